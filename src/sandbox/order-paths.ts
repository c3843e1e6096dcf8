// The status paths orders follow (the live-service notes, "Order status values"): which
// statuses an order passes through, from which step its reference id, actual amounts
// and transaction hash exist, where it waits for manual action (offramp 3 and 17), and
// which status it moves to once its completion webhook is acknowledged.

export const ONRAMP = 1
export const OFFRAMP = 2
export type OrderType = typeof ONRAMP | typeof OFFRAMP

/** Orders created before this instant follow the legacy status numbers (3/4/5, 4/5/6/7). */
const LEGACY_UNTIL = Date.parse('2023-06-01T00:00:00.000Z')

const NEVER = 255

export interface StatusPath {
  id: number
  type: OrderType
  name: string
  statuses: readonly number[]
  /** Status after the completion webhook was acknowledged (4 -> 5, 15 -> 16, 6 -> 7, 14 -> 15, 40 -> 41). */
  webhookStatus?: number
  /** Step index from which the onramp referenceId (UTR) exists. */
  referenceAt: number
  /** Step index from which actual price and amounts are known. */
  actualsAt: number
  /** Step index from which transactionHash is set (withdrawal for onramp, deposit for offramp). */
  hashAt: number
  /** Step index where the order waits for manual action. */
  holdAt?: number
  era: 'legacy' | 'current' | 'any'
  weight: number
  outcome: 'success' | 'failure'
}

type Def = Omit<StatusPath, 'id'>

const defs: Def[] = [
  // onramp
  {
    type: 1,
    name: 'completed',
    statuses: [0, 1, 2, 11, 12, 13, 14, 15],
    webhookStatus: 16,
    referenceAt: 1,
    actualsAt: 5,
    hashAt: 6,
    era: 'current',
    weight: 70,
    outcome: 'success'
  },
  {
    type: 1,
    name: 'completed (legacy)',
    statuses: [0, 1, 2, 3, 4],
    webhookStatus: 5,
    referenceAt: 1,
    actualsAt: 3,
    hashAt: 4,
    era: 'legacy',
    weight: 70,
    outcome: 'success'
  },
  {
    type: 1,
    name: 'timed out',
    statuses: [0, -1],
    referenceAt: NEVER,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 12,
    outcome: 'failure'
  },
  {
    type: 1,
    name: 'abandoned',
    statuses: [0, -2],
    referenceAt: NEVER,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 8,
    outcome: 'failure'
  },
  {
    type: 1,
    name: 'name mismatch',
    statuses: [0, 1, 2, -3],
    referenceAt: 1,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 4,
    outcome: 'failure'
  },
  {
    type: 1,
    name: 'amount mismatch',
    statuses: [0, 1, -4],
    referenceAt: 1,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 3,
    outcome: 'failure'
  },
  // offramp
  {
    type: 2,
    name: 'completed',
    statuses: [0, 1, 10, 11, 12, 13, 14],
    webhookStatus: 15,
    referenceAt: NEVER,
    actualsAt: 4,
    hashAt: 2,
    era: 'current',
    weight: 40,
    outcome: 'success'
  },
  {
    type: 2,
    name: 'completed (payout)',
    statuses: [0, 1, 2, 12, 30, 33, 40],
    webhookStatus: 41,
    referenceAt: NEVER,
    actualsAt: 3,
    hashAt: 2,
    era: 'current',
    weight: 25,
    outcome: 'success'
  },
  {
    type: 2,
    name: 'completed (legacy)',
    statuses: [0, 1, 2, 4, 5, 6],
    webhookStatus: 7,
    referenceAt: NEVER,
    actualsAt: 3,
    hashAt: 2,
    era: 'legacy',
    weight: 65,
    outcome: 'success'
  },
  {
    type: 2,
    name: 'over limit, reviewed',
    statuses: [0, 1, 2, 3, 4, 5, 6],
    webhookStatus: 7,
    referenceAt: NEVER,
    actualsAt: 4,
    hashAt: 2,
    holdAt: 3,
    era: 'any',
    weight: 4,
    outcome: 'success'
  },
  {
    type: 2,
    name: 'alternate bank',
    statuses: [0, 1, 10, 12, 13, 17, 18, 19],
    referenceAt: NEVER,
    actualsAt: 3,
    hashAt: 2,
    holdAt: 5,
    era: 'any',
    weight: 4,
    outcome: 'success'
  },
  {
    type: 2,
    name: 'timed out',
    statuses: [0, -1],
    referenceAt: NEVER,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 10,
    outcome: 'failure'
  },
  {
    type: 2,
    name: 'abandoned',
    statuses: [0, -2],
    referenceAt: NEVER,
    actualsAt: NEVER,
    hashAt: NEVER,
    era: 'any',
    weight: 6,
    outcome: 'failure'
  },
  {
    type: 2,
    name: 'amount mismatch',
    statuses: [0, 1, 2, -4],
    referenceAt: NEVER,
    actualsAt: NEVER,
    hashAt: 2,
    era: 'any',
    weight: 3,
    outcome: 'failure'
  }
]

export const PATHS: readonly StatusPath[] = defs.map((d, id) => ({ ...d, id }))

export function pathAt(id: number): StatusPath {
  const p = PATHS[id]
  if (!p) throw new RangeError(`no status path ${id}`)
  return p
}

/** The paths an order of a type created at time t can follow. */
export function pathsFor(type: OrderType, createdAt: number): StatusPath[] {
  const legacy = createdAt < LEGACY_UNTIL
  return ERA_PATHS[type][legacy ? 1 : 0]
}

const eraPaths = (type: OrderType, legacy: boolean): StatusPath[] =>
  PATHS.filter((p) => p.type === type && (p.era === 'any' || (p.era === 'legacy') === legacy))
const ERA_PATHS: Record<OrderType, [StatusPath[], StatusPath[]]> = {
  1: [eraPaths(1, false), eraPaths(1, true)],
  2: [eraPaths(2, false), eraPaths(2, true)]
}

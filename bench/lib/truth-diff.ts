// Compares a client's database with the sandbox's ground truth: which orders it never
// stored (missing), which it holds in an older state than the service's (stale: another
// status or updatedAt), and which it holds that the service does not list (extra).
// Used by the history bench to say whether a client lost orders, and which.

/** One order as either side knows it. */
export interface OrderFact {
  type: number
  orderId: number
  status: number
  /** Any ISO 8601 form; compared as instants. */
  updatedAt: string
}

export interface TruthDiff {
  truth: number
  local: number
  missing: number
  stale: number
  extra: number
  /** The first ids of each kind (ascending), for the report. */
  missingIds: number[]
  staleIds: number[]
  extraIds: number[]
}

const key = (o: OrderFact): string => `${o.type}:${o.orderId}`
const SAMPLE = 10

export function diffAgainstTruth(truth: readonly OrderFact[], local: readonly OrderFact[]): TruthDiff {
  const held = new Map(local.map((o) => [key(o), o]))
  const listed = new Set(truth.map(key))
  const missingIds: number[] = []
  const staleIds: number[] = []
  for (const t of truth) {
    const l = held.get(key(t))
    if (!l) missingIds.push(t.orderId)
    else if (l.status !== t.status || Date.parse(l.updatedAt) !== Date.parse(t.updatedAt)) staleIds.push(t.orderId)
  }
  const extraIds = local.filter((o) => !listed.has(key(o))).map((o) => o.orderId)
  const first = (ids: number[]) => [...ids].sort((a, b) => a - b).slice(0, SAMPLE)
  return {
    truth: truth.length,
    local: local.length,
    missing: missingIds.length,
    stale: staleIds.length,
    extra: extraIds.length,
    missingIds: first(missingIds),
    staleIds: first(staleIds),
    extraIds: first(extraIds)
  }
}

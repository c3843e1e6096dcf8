import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  STATUS_GROUPS,
  STATUS_TABLE,
  statusTooltip,
  UNKNOWN_STATUS_MEANING,
  UNKNOWN_STATUS_TELL,
  orderKindLabel,
  STATUSES_BY_GROUP,
  knownStatuses,
  statusGroupFilter,
  statusInfo,
  statusText,
  statusesInGroup
} from '../../../../src/shared/domain/status'
import type { OrderType } from '../../../../src/shared/ipc/contract'
import { statusMatchesGroup } from '../../../support/status-group'

// The tables of the live-service notes, "Order status values", written out again here
// so a slip in the source table shows up as a mismatch (the service's words: serviceLabel).
const ONRAMP: Array<[number[], string, 'success' | 'failure' | 'progress']> = [
  [[-4], 'amount mismatch', 'failure'],
  [[-3], 'bank and KYC name mismatch', 'failure'],
  [[-2], 'abandoned by the user', 'failure'],
  [[-1], 'timed out', 'failure'],
  [[0], 'created', 'progress'],
  [[1], 'reference id claimed', 'progress'],
  [[2], 'deposit secured', 'progress'],
  [[3, 13], 'crypto purchased', 'progress'],
  [[11], 'order placement initiated', 'progress'],
  [[12], 'purchasing crypto', 'progress'],
  [[14], 'withdrawal initiated', 'progress'],
  [[4, 15], 'withdrawal complete', 'success'],
  [[5, 16], 'webhook sent (after completion)', 'success']
]

const OFFRAMP: Array<[number[], string, 'success' | 'failure' | 'progress' | 'attention']> = [
  [[-4], 'amount mismatch', 'failure'],
  [[-2], 'abandoned', 'failure'],
  [[-1], 'timed out', 'failure'],
  [[0], 'created', 'progress'],
  [[1], 'confirmed, deposit hash generated', 'progress'],
  [[2, 10, 11], 'deposit found, selling crypto', 'progress'],
  [[3], 'over limit, held for manual review', 'attention'],
  [[4, 12], 'crypto sold', 'progress'],
  [[5, 13, 30, 31, 32, 33, 34, 35, 36], 'fiat withdrawal to bank initiated', 'progress'],
  [[17], 'user must provide an alternate bank', 'attention'],
  [[18], 'paying out to the alternate bank', 'progress'],
  [[6, 14, 40], 'fiat withdrawal processed', 'success'],
  [[7, 15, 41], 'webhook sent', 'success'],
  [[19], 'success', 'success']
]

describe('statusInfo', () => {
  it.each([
    [1, ONRAMP],
    [2, OFFRAMP]
  ] as const)('matches the notes table for type %i', (type, table) => {
    for (const [statuses, label, tone] of table) {
      for (const s of statuses) {
        const info = statusInfo(type, s)
        expect(info, `type ${type} status ${s}`).toMatchObject({
          serviceLabel: label,
          tone,
          known: true,
          terminal: tone === 'success' || tone === 'failure'
        })
      }
    }
    expect(knownStatuses(type)).toEqual(table.flatMap(([s]) => s).sort((a, b) => a - b))
  })

  it('gives the same number different meanings per type', () => {
    expect(statusInfo(1, 4).label).toBe('Complete')
    expect(statusInfo(1, 4).terminal).toBe(true)
    expect(statusInfo(2, 4).label).toBe('Crypto sold')
    expect(statusInfo(2, 4).terminal).toBe(false)
    expect(statusInfo(1, 3).group).toBe('in progress')
    expect(statusInfo(2, 3).group).toBe('needs attention')
  })

  it('puts offramp 3 and 17 under needs attention, not terminal', () => {
    for (const s of [3, 17]) {
      expect(statusInfo(2, s)).toMatchObject({ tone: 'attention', group: 'needs attention', terminal: false })
    }
    expect(statusesInGroup(2, 'needs attention')).toEqual([3, 17])
    expect(statusesInGroup(1, 'needs attention')).toEqual([])
  })

  it('shows unknown values as "Unknown status N", in progress, never terminal, saying to check with the service', () => {
    for (const [type, status] of [
      [1, 99],
      [1, -3.5],
      [2, -3],
      [2, 20],
      [3, 0],
      [0, 4],
      [1, Number.NaN]
    ] as const) {
      const info = statusInfo(type, status)
      expect(info).toMatchObject({
        label: `Unknown status ${String(status)}`,
        meaning: UNKNOWN_STATUS_MEANING,
        tell: UNKNOWN_STATUS_TELL,
        serviceLabel: null,
        terminal: false,
        tone: 'progress',
        group: 'in progress',
        known: false
      })
    }
    // -3 is a known onramp failure but not an offramp status.
    expect(statusInfo(1, -3).known).toBe(true)
  })

  it('never throws, and terminal always means success or failure', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -1000, max: 1000 }), (type, status) => {
        const info = statusInfo(type, status)
        expect(info.terminal).toBe(info.tone === 'success' || info.tone === 'failure')
        expect(STATUS_GROUPS).toContain(info.group)
        expect(info.label.length).toBeGreaterThan(0)
      })
    )
  })

  it('statusText shows the number next to the label, the tooltip the number and the meaning', () => {
    expect(statusText(1, 15)).toBe('Complete (15)')
    expect(statusText(2, 77)).toBe('Unknown status 77')
    expect(statusTooltip(1, 16)).toBe("Complete (status 16): The crypto was sent to the customer's wallet and your system was told.")
    expect(statusTooltip(2, 77)).toBe(`Unknown status 77: ${UNKNOWN_STATUS_MEANING}`)
  })
})

describe('status groups', () => {
  it.each([1, 2] as const)('partition the known statuses of type %i', (type: OrderType) => {
    const all = STATUS_GROUPS.flatMap((g) => [...STATUSES_BY_GROUP[type][g]])
    expect([...all].sort((a, b) => a - b)).toEqual(knownStatuses(type))
    expect(new Set(all).size).toBe(all.length)
    for (const g of STATUS_GROUPS) for (const s of STATUSES_BY_GROUP[type][g]) expect(statusInfo(type, s).group).toBe(g)
  })

  it('lists the completed and failed statuses of each type', () => {
    expect(statusesInGroup(1, 'completed')).toEqual([4, 5, 15, 16])
    expect(statusesInGroup(1, 'failed')).toEqual([-4, -3, -2, -1])
    expect(statusesInGroup(2, 'completed')).toEqual([6, 7, 14, 15, 19, 40, 41])
    expect(statusesInGroup(2, 'failed')).toEqual([-4, -2, -1])
  })

  it('the in-progress filter also catches unknown statuses so no order is hidden', () => {
    const f = statusGroupFilter(2, 'in progress')
    expect(f.includeUnknown).toBe(true)
    expect(statusGroupFilter(2, 'completed').includeUnknown).toBe(false)
    // The filter's rule and statusMatchesGroup agree for any status.
    fc.assert(
      fc.property(
        fc.constantFrom(1 as const, 2 as const),
        fc.integer({ min: -50, max: 100 }),
        fc.constantFrom(...STATUS_GROUPS),
        (type, status, group) => {
          const filter = statusGroupFilter(type, group)
          const byFilter = filter.in.includes(status) || (filter.includeUnknown && !filter.known.includes(status))
          expect(byFilter).toBe(statusMatchesGroup(type, status, group))
        }
      )
    )
  })
})

describe('orderKindLabel', () => {
  it('names each order type, capitalized for headings and lowercase inside a sentence', () => {
    expect([orderKindLabel(1), orderKindLabel(2)]).toEqual(['Onramp', 'Offramp'])
    expect([orderKindLabel(1, 'lowercase'), orderKindLabel(2, 'lowercase')]).toEqual(['onramp', 'offramp'])
  })
})

describe('STATUS_GROUPS', () => {
  it('are the contract filter groups, in display order', () => {
    expect(STATUS_GROUPS).toEqual(['in progress', 'needs attention', 'completed', 'failed'])
  })
})

// Swap orders' statuses as the live-service notes list them ("More from the live service's
// public documentation"), with the tone the app gives each.
const SWAP: Array<[number, string, 'success' | 'failure' | 'progress' | 'attention']> = [
  [-1, 'expired', 'failure'],
  [0, 'created', 'progress'],
  [1, 'deposit secured', 'progress'],
  [2, 'deposit confirmed', 'progress'],
  [3, 'placing the swap', 'progress'],
  [4, 'swap placed', 'progress'],
  [5, 'error: contact the service', 'attention'],
  [6, 'processing', 'progress'],
  [7, 'processed', 'progress'],
  [8, 'error withdrawing', 'attention'],
  [9, 'withdrawal initiated', 'progress'],
  [10, 'withdrawal processed', 'success']
]

/** Every status the notes list, with its kind. */
const EVERY: Array<[1 | 2 | 'swap', number]> = [
  ...ONRAMP.flatMap(([ss]) => ss.map((s) => [1, s] as [1, number])),
  ...OFFRAMP.flatMap(([ss]) => ss.map((s) => [2, s] as [2, number])),
  ...SWAP.map(([s]) => ['swap', s] as ['swap', number])
]

/** Words of the integration, not of an operator with a customer on the phone. */
const INTEGRATION_WORDS = /webhook|reference id|\bAPI\b|endpoint|\bnull\b|\bKYC\b|status code|\bhash id\b/i

describe('the status table in the operator words', () => {
  it('names swap orders statuses as the notes list them', () => {
    for (const [s, service, tone] of SWAP) {
      expect(statusInfo('swap', s), `swap ${s}`).toMatchObject({ serviceLabel: service, tone, known: true })
    }
    expect(statusInfo('swap', 11).known).toBe(false)
  })

  it('gives every status of the notes a label, what it means and what to tell the customer', () => {
    // 16 onramp, 29 offramp and 12 swap statuses.
    expect(EVERY).toHaveLength(16 + 29 + 12)
    for (const [kind, s] of EVERY) {
      const info = statusInfo(kind, s)
      const at = `${String(kind)}/${s}`
      expect(info.known, at).toBe(true)
      expect(info.label, at).toMatch(/^[A-Z][a-z]+( [a-z]+)*$/)
      // Short enough for the status column (status-width.spec.ts measures it in the renderer).
      expect(info.label.length, at).toBeLessThanOrEqual(18)
      expect(info.meaning, at).toMatch(/^[A-Z].{15,}\.$/)
      expect(info.tell, at).toMatch(/^[A-Z].{15,}\.$/)
      expect(info.short, at).toBe(info.label)
      // The number is shown beside the label (detail, tooltips), never inside it.
      expect(info.label, at).not.toMatch(/\d/)
    }
  })

  it('holds no integration words in any label, meaning or what-to-tell, unknown statuses included', () => {
    const copy = [
      ...Object.values(STATUS_TABLE).flatMap((rows) => rows.flatMap((r) => [r.label, r.meaning, r.tell])),
      UNKNOWN_STATUS_MEANING,
      UNKNOWN_STATUS_TELL,
      statusInfo(1, 77).label
    ]
    expect(copy.length).toBeGreaterThan(100)
    for (const text of copy) expect(text).not.toMatch(INTEGRATION_WORDS)
    // The service's own words do hold them (5/16 is "webhook sent"): what the check above keeps out.
    expect(statusInfo(1, 16).serviceLabel).toMatch(INTEGRATION_WORDS)
  })

  it('tells apart the two ways an order completes, in the meaning and not in the label', () => {
    expect(statusInfo(1, 15).label).toBe(statusInfo(1, 16).label)
    expect(statusInfo(1, 15).meaning).not.toBe(statusInfo(1, 16).meaning)
    expect(statusInfo(1, 16).meaning).toMatch(/your system was told/)
    expect(statusInfo(2, 41).meaning).toMatch(/your system was told/)
  })
})

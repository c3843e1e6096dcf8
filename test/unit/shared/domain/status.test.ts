import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  STATUS_GROUPS,
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
// so a slip in the source table shows up as a mismatch.
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
          label,
          tone,
          known: true,
          terminal: tone === 'success' || tone === 'failure'
        })
      }
    }
    expect(knownStatuses(type)).toEqual(table.flatMap(([s]) => s).sort((a, b) => a - b))
  })

  it('gives the same number different meanings per type', () => {
    expect(statusInfo(1, 4).label).toBe('withdrawal complete')
    expect(statusInfo(1, 4).terminal).toBe(true)
    expect(statusInfo(2, 4).label).toBe('crypto sold')
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

  it('shows unknown values as "unknown status N", in progress, never terminal', () => {
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
        label: `unknown status ${String(status)}`,
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

  it('statusText shows the number next to the label', () => {
    expect(statusText(1, 15)).toBe('withdrawal complete (15)')
    expect(statusText(2, 77)).toBe('unknown status 77')
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

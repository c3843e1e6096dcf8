// Shared pieces of the reliability suite: the summary rows every scenario appends to
// test-results/reliability-summary.jsonl (scripts/test.mjs prints them), waiting on a
// condition without timed assertions, the comparison of a profile database with the
// sandbox's ground truth (orders, records and status transitions), and handlers that note
// which channels a request reached.
import { appendFileSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { expect } from 'vitest'
import type { TruthOrder } from '../../src/sandbox'
import { OfframpOrder, OnrampOrder } from '../../src/shared/api/schemas'
import { jsonEqual } from '../../src/shared/api/signature'
import type { LocalStore } from '../../src/main/store/local-store'
import { channelNames, type ContractHandlers } from '../../src/shared/ipc/contract'

export const REPO_ROOT = resolve(__dirname, '../..')
export const SUMMARY_FILE = join(REPO_ROOT, 'test-results', 'reliability-summary.jsonl')

export interface ScenarioSummary {
  scenario: string
  injected: string[]
  checked: string[]
  /** What was lost or duplicated: empty when nothing was. */
  lost: string[]
}

/** Appends one scenario's line; written only after the scenario's assertions passed or failed, never before. */
export function recordScenario(row: ScenarioSummary): void {
  mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true })
  appendFileSync(SUMMARY_FILE, JSON.stringify(row) + '\n')
}

export { until } from '../support/until'

export interface TruthDiff {
  /** Orders of the truth missing from the database. */
  missing: string[]
  /** Orders in the database the truth does not have (in the synced scopes). */
  extra: string[]
  /** Orders whose status, updatedAt or record differ. */
  different: string[]
  /** Status transitions observed twice, or a timeline that does not chain. */
  duplicated: string[]
  /** Transitions the truth has after the first sighting that the timeline lacks (beyond those allowed). */
  lostTransitions: string[]
  /** Transitions in the timeline the truth never made. */
  invented: string[]
  orders: number
  transitions: number
}

export interface TimelineRow {
  oldStatus: number | null
  newStatus: number
}

/**
 * Every (type, fiat) the sandbox holds orders in: the app finds and syncs each one (issue
 * 23), so the database is compared with all of them, and each one's sync is waited for.
 */
export function scopesHeld(truth: readonly TruthOrder[]): { type: 1 | 2; fiatType: number }[] {
  const keys = new Set(truth.map((o) => `${o.type}:${o.fiatType}`))
  return [...keys].map((k) => {
    const [type, fiatType] = k.split(':').map(Number) as [1 | 2, number]
    return { type, fiatType }
  })
}

/**
 * Compares the database with the ground truth of the given scopes. Timelines: the app
 * sees an order first at some status; from there every status of the truth's history
 * must appear exactly once, in order, except those in `unobservable` (order id ->
 * statuses that were entered and left again while no sync could run: the API shows only
 * the current status, so nothing could have seen them).
 */
export function diffAgainstTruth(
  store: Pick<LocalStore, 'orders' | 'database'>,
  truth: readonly TruthOrder[],
  scopes: ReadonlyArray<{ type: 1 | 2; fiatType: number }>,
  unobservable: ReadonlyMap<number, ReadonlySet<number>> = new Map()
): TruthDiff {
  const d: TruthDiff = {
    missing: [],
    extra: [],
    different: [],
    duplicated: [],
    lostTransitions: [],
    invented: [],
    orders: 0,
    transitions: 0
  }
  const inScope = (o: { type: number; fiatType: number | null }) => scopes.some((s) => s.type === o.type && s.fiatType === o.fiatType)
  const want = truth.filter(inScope)
  const wantKeys = new Set(want.map((o) => `${o.type}:${o.orderId}`))
  const rows = store.database.sql.all<{ type: number; order_id: number; fiat_type: number | null }>(
    'SELECT type, order_id, fiat_type FROM orders'
  )
  for (const r of rows) if (!wantKeys.has(`${r.type}:${r.order_id}`)) d.extra.push(`${r.type}:${r.order_id}`)
  for (const o of want) {
    const key = `${o.type}:${o.orderId}`
    const row = store.orders.get(o.type, o.orderId)
    if (!row) {
      d.missing.push(key)
      continue
    }
    d.orders++
    const expected = (o.type === 1 ? OnrampOrder : OfframpOrder).parse(o.record)
    if (row.status !== o.status || row.updatedAt !== o.updatedAt || !jsonEqual(row.record, expected)) {
      d.different.push(`${key}: stored ${row.status}@${row.updatedAt}, truth ${o.status}@${o.updatedAt}`)
    }
    const timeline: TimelineRow[] = store.orders.timeline(o.type, o.orderId)
    d.transitions += timeline.length
    // The timeline chains: first sighting (old null), then each old = the previous new.
    for (let i = 0; i < timeline.length; i++) {
      const e = timeline[i]!
      const prev = i === 0 ? null : timeline[i - 1]!.newStatus
      if (e.oldStatus !== prev) d.duplicated.push(`${key}: event ${i} ${e.oldStatus}->${e.newStatus} after ${prev}`)
    }
    const seen = timeline.map((e) => e.newStatus)
    if (new Set(seen).size !== seen.length) d.duplicated.push(`${key}: statuses ${seen.join(',')}`)
    const history = o.history.map((h) => h.status)
    const first = seen[0]
    const start = first === undefined ? -1 : history.indexOf(first)
    if (start < 0) {
      d.invented.push(`${key}: first seen at ${String(first)}, truth ${history.join(',')}`)
      continue
    }
    const skip = unobservable.get(o.orderId) ?? new Set<number>()
    const expectedSeq = history.slice(start).filter((s, i) => i === 0 || i === history.length - start - 1 || !skip.has(s))
    for (const s of seen) if (!history.includes(s)) d.invented.push(`${key}: ${s} not in ${history.join(',')}`)
    for (const s of expectedSeq)
      if (!seen.includes(s)) d.lostTransitions.push(`${key}: ${s} (truth ${history.join(',')}, seen ${seen.join(',')})`)
    // Order preserved (the list is a subsequence of the truth).
    const positions = seen.map((s) => history.indexOf(s))
    if (positions.some((p, i) => i > 0 && p <= positions[i - 1]!))
      d.invented.push(`${key}: out of order ${seen.join(',')} vs ${history.join(',')}`)
  }
  return d
}

/** The lost/duplicated half of a summary row from a diff: empty when nothing was. */
export function lossesOf(d: TruthDiff): string[] {
  const out: string[] = []
  if (d.missing.length) out.push(`${d.missing.length} orders missing`)
  if (d.extra.length) out.push(`${d.extra.length} orders not in the truth`)
  if (d.different.length) out.push(`${d.different.length} orders differing`)
  if (d.duplicated.length) out.push(`${d.duplicated.length} duplicated transitions`)
  if (d.lostTransitions.length) out.push(`${d.lostTransitions.length} lost transitions`)
  if (d.invented.length) out.push(`${d.invented.length} invented transitions`)
  return out
}

/** Asserts the diff lost, duplicated and invented nothing, list by list so a failure names the kind. */
export function expectLossless(d: TruthDiff): void {
  expect(d.missing).toEqual([])
  expect(d.extra).toEqual([])
  expect(d.different).toEqual([])
  expect(d.duplicated).toEqual([])
  expect(d.lostTransitions).toEqual([])
  expect(d.invented).toEqual([])
}

/** The given handlers, each pushing its channel onto `reached` when called (to show what an input got to). */
export function spiedHandlers(handlers: ContractHandlers, reached: string[]): ContractHandlers {
  return Object.fromEntries(
    channelNames.map((c) => [
      c,
      (input: unknown) => {
        reached.push(c)
        return (handlers[c] as (i: unknown) => Promise<unknown>)(input)
      }
    ])
  ) as unknown as ContractHandlers
}

// Whether the local copy holds every order, in one answer (sync:coverage, the
// coverage:changed event, diagnostics): each (type, fiat) scope with its probe and audit,
// the readings of merchantHistory the sync relies on, the freshness of open orders, what
// checking them cost in the last hour, and every gap the app knows of in the operator's
// words, so that none is only in a log (nothing silent). Pure: the monitor passes what
// its parts know.
import { auditOverdue, auditText, scopeName } from '../../shared/domain/coverage-text'
import type { Coverage, CoverageGap, ErrorInfo, FreshnessInfo, HistoryReadingInfo, ScopeCoverage } from '../../shared/ipc/contract'
import type { HistoryReadingsState, Reading } from './history-readings'

export type SpendPurpose = keyof Coverage['spentLastHour']

const HOUR = 60 * 60_000

/** Requests per purpose in the last hour. */
export class SpendLog {
  private readonly at: Record<SpendPurpose, number[]> = { probe: [], audit: [], reading: [], freshness: [] }
  constructor(private readonly now: () => number) {}

  add(purpose: SpendPurpose, n = 1): void {
    const t = this.now()
    for (let i = 0; i < n; i++) this.at[purpose].push(t)
  }

  lastHour(): Coverage['spentLastHour'] {
    const from = this.now() - HOUR
    const count = (p: SpendPurpose) => (this.at[p] = this.at[p].filter((t) => t > from)).length
    return { probe: count('probe'), audit: count('audit'), reading: count('reading'), freshness: count('freshness') }
  }
}

const time = (ms: number): string => `${new Date(ms).toISOString().slice(11, 16)} UTC`
const count = (n: number): string => n.toLocaleString('en-US')

/** A scope's audit in words, for main's texts (times in UTC). */
export const auditLine = (s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe' | 'revealed'>, now: number): string =>
  auditText(s, time, count, now)

const LABELS: Record<string, string> = {
  sinceField: 'since filters on',
  orderField: 'order sorts by',
  direction: 'order direction',
  firstPage: 'first page number',
  pageSize: 'records a page holds',
  'fiatFilter.1': 'onramp listings by fiatType',
  'fiatFilter.2': 'offramp listings by fiatType'
}

export function readingInfos(r: HistoryReadingsState): HistoryReadingInfo[] {
  const row = (key: string, x: Reading<unknown>): HistoryReadingInfo => ({
    key,
    label: LABELS[key] ?? key,
    value: key === 'pageSize' && x.state === 'assumed' ? `${String(x.value)} (largest answered so far: ${r.largestPage})` : String(x.value),
    state: x.state,
    at: x.at,
    how: x.how
  })
  return [
    row('sinceField', r.sinceField),
    row('orderField', r.orderField),
    row('direction', r.direction),
    row('firstPage', r.firstPage),
    row('pageSize', r.pageSize),
    row('fiatFilter.1', r.fiatFilter[1]),
    row('fiatFilter.2', r.fiatFilter[2])
  ]
}

export interface CoverageInputs {
  scopes: ScopeCoverage[]
  readings: HistoryReadingsState
  /** Whether the readings are checked by probes (a profile session); else they are only learned from pages. */
  probes: boolean
  freshness: FreshnessInfo
  spent: Coverage['spentLastHour']
  /** The latest error a probe met (scope-discovery.ts). */
  probeError?: ErrorInfo | null
  /** Tells a check overdue. */
  now: number
}

export function buildCoverage(i: CoverageInputs): Coverage {
  const gaps: CoverageGap[] = []
  const scopeGap = (kind: CoverageGap['kind'], s: ScopeCoverage, text: string) =>
    gaps.push({ kind, text: `${scopeName(s.type, s.fiatType)}: ${text}`, type: s.type, fiatType: s.fiatType })
  for (const s of i.scopes) {
    if (s.probe === 'unprobed' || s.probe === 'probing') scopeGap('unprobed', s, 'not probed yet, orders there may be missing')
    else if (s.probe === 'failed') scopeGap('probe', s, `could not be probed (${s.error ?? 'error'}); orders there may be missing`)
    else if (s.probe === 'refused' && s.revealed)
      scopeGap(
        'probe',
        s,
        `an order there was seen (${s.revealed.by === 'webhook' ? 'a webhook' : 'a record listed with another fiat'}) but the service refuses to list it (${s.error ?? 'refused'}); orders there may be missing`
      )
    if (s.audit.state === 'repairing' || s.audit.state === 'incomplete' || auditOverdue(s.audit, i.now))
      scopeGap(s.audit.state === 'repairing' ? 'repair' : 'audit', s, auditLine(s, i.now))
    // The last check could not finish (no answer in time, the service failing): what it said before is not confirmed.
    else if (s.probe === 'active' && s.audit.error && s.audit.startedAt == null)
      scopeGap('audit', s, `${auditLine(s, i.now)}; ${s.audit.error.replace(/^the check/, 'the latest check')}`)
  }
  if (i.probes) {
    const unchecked = (['sinceField', 'firstPage'] as const).filter((k) => i.readings[k].state === 'assumed')
    const synced = i.scopes.some((s) => s.probe === 'active')
    if (synced && unchecked.length > 0)
      gaps.push({
        kind: 'reading',
        text: `merchantHistory not yet checked: ${unchecked.map((k) => `${LABELS[k]} (assumed ${String(i.readings[k].value)})`).join(', ')}`,
        type: null,
        fiatType: null
      })
  }
  const f = i.freshness
  if (f.stale > 0)
    gaps.push({
      kind: 'freshness',
      text:
        `${f.stale.toLocaleString('en-US')} open order${f.stale === 1 ? '' : 's'} not confirmed by the service within ${f.boundMinutes} min` +
        (f.error ? ` (${f.error})` : ''),
      type: null,
      fiatType: null
    })
  if (f.unconfirmable)
    gaps.push({
      kind: 'freshness',
      text:
        `${f.unconfirmable.toLocaleString('en-US')} open order${f.unconfirmable === 1 ? '' : 's'} cannot be confirmed: orderStatus failed ` +
        `${f.unconfirmableAfter ?? 'several'} times in a row` +
        (f.error ? ` (${f.error.replace(/^orderStatus for [a-z]+ order \d+: /, '')})` : ''),
      type: null,
      fiatType: null
    })
  return {
    scopes: i.scopes,
    readings: readingInfos(i.readings),
    freshness: f,
    gaps,
    spentLastHour: i.spent,
    probeError: i.probeError ?? null
  }
}

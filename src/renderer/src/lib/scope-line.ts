// A scope's completeness in the operator's words and locale ("complete: 2,034 orders,
// checked 14:05", "incomplete: repairing (2 of 5 pages)"), for every view that lists scopes.
import { auditOverdue, auditText } from '../../../shared/domain/coverage-text'
import type { ScopeCoverage } from '../../../shared/ipc/contract'
import { clockTime, count } from './format'

export function scopeLine(s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe' | 'revealed'>, locale: string, now: number): string {
  return auditText(
    s,
    (ms) => clockTime(ms, locale),
    (n) => count(n, locale),
    now
  )
}

/**
 * Shown as a gap: a scope not known complete (incomplete, repairing, its check overdue or
 * failed, or not synced for want of a probe).
 */
export const scopeInTrouble = (s: Pick<ScopeCoverage, 'audit' | 'probe'>, now: number): boolean =>
  s.audit.state === 'incomplete' ||
  s.audit.state === 'repairing' ||
  s.probe !== 'active' ||
  auditOverdue(s.audit, now) ||
  (s.audit.error !== null && s.audit.startedAt == null)

/**
 * Listed where orders are shown: every scope but those known to hold none (probed empty, or
 * refused by the service with no order seen there). A refused scope where a record or a
 * webhook showed an order is listed: orders there may be missing.
 */
export const scopeShown = (s: Pick<ScopeCoverage, 'probe' | 'revealed'>): boolean =>
  s.probe !== 'empty' && (s.probe !== 'refused' || !!s.revealed)

// A scope's completeness in the operator's words and locale ("complete: 2,034 orders,
// checked 14:05", "incomplete: repairing (2 of 5 pages)"), for every view that lists scopes.
import { auditText } from '../../../shared/domain/coverage-text'
import type { ScopeCoverage } from '../../../shared/ipc/contract'
import { clockTime, count } from './format'

export function scopeLine(s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe'>, locale: string): string {
  return auditText(
    s,
    (ms) => clockTime(ms, locale),
    (n) => count(n, locale)
  )
}

/** Shown as a gap: a scope not known complete (incomplete, repairing, or not synced for want of a probe). */
export const scopeInTrouble = (s: Pick<ScopeCoverage, 'audit' | 'probe'>): boolean =>
  s.audit.state === 'incomplete' || s.audit.state === 'repairing' || s.probe !== 'active'

// The words for order coverage (what the app knows it may be missing), in one place so that
// main's texts (diagnostics, the tray) and the renderer's views say it alike: a scope's name,
// its audit in the operator's terms, and how a status was last confirmed.
import { EVERY_FIAT_TYPE } from './fiat-scope'
import { fiatName } from './names'
import { orderKindLabel } from './status'
import { nounFor } from './plural'
import type { OrderRow, ScopeCoverage } from '../ipc/contract'

/** "Onramp INR", "Offramp (every fiat)". */
export function scopeName(type: 1 | 2, fiatType: number): string {
  return `${orderKindLabel(type)} ${fiatType === EVERY_FIAT_TYPE ? '(every fiat)' : fiatName(fiatType)}`
}

/**
 * A completeness check not done this long after it began is overdue, and shown as a gap:
 * its count is one or two low-priority requests (six at most), and a low request waits at
 * most two windows of a minute in a busy lane (rate-budget.ts), so two requests are done
 * within 4 min on a service that answers.
 */
export const AUDIT_OVERDUE_MS = 5 * 60_000
/**
 * A check not done this long after it began is given up (the audit moves on to other
 * scopes, and the scope says the check could not finish): longer than its six requests at
 * most may wait (two windows each), so a busy but answering service is never cut short.
 */
export const AUDIT_TIMEOUT_MS = 15 * 60_000

/** A check running for AUDIT_OVERDUE_MS or more. */
export const auditOverdue = (a: Pick<ScopeCoverage['audit'], 'state' | 'startedAt'>, now: number): boolean =>
  a.state === 'checking' && a.startedAt != null && now - a.startedAt >= AUDIT_OVERDUE_MS

/**
 * "complete: 2,034 orders, checked 14:05" / "incomplete: repairing (2 of 5 pages)" /
 * "incomplete: 12 orders missing" / "checking since 14:05" / "check overdue: ..." /
 * "2,034 orders, not checked yet"; a scope not synced says what its probe found. `time`
 * writes an instant; `now` tells a check overdue.
 */
export function auditText(
  s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe' | 'revealed'>,
  time: (ms: number) => string,
  count: (n: number) => string,
  now: number
): string {
  const a = s.audit
  const n = `${count(s.orders)} ${nounFor(s.orders, 'order')}`
  if (s.probe === 'refused' && s.revealed) return 'refused by the service, though an order was seen there'
  if (s.probe !== 'active') return PROBE_TEXT[s.probe]
  switch (a.state) {
    case 'complete':
      return `complete: ${n}, checked ${a.checkedAt === null ? '-' : time(a.checkedAt)}`
    case 'repairing':
      return `incomplete: repairing (${a.repair?.page ?? 0} of ${a.repair?.pages ?? '?'} pages)`
    case 'incomplete': {
      const missing = Math.max(0, (a.serviceOrders ?? 0) - s.orders)
      return `incomplete: ${a.error ?? `${count(missing)} ${nounFor(missing, 'order')} missing`}`
    }
    case 'checking':
      if (a.startedAt == null) return `checking (${n} here)`
      return auditOverdue(a, now)
        ? `check overdue: no count from the service since ${time(a.startedAt)}; given up at ${time(a.startedAt + AUDIT_TIMEOUT_MS)}`
        : `checking since ${time(a.startedAt)} (${n} here)`
    case 'unchecked':
      return `${n}, not checked yet`
  }
}

const PROBE_TEXT: Record<ScopeCoverage['probe'], string> = {
  unprobed: 'not probed yet',
  probing: 'probing',
  active: 'synced',
  empty: 'no orders',
  refused: 'not offered by the service',
  failed: 'could not be probed'
}

/**
 * orderStatus failures in a row (with nothing confirming the order since) after which its
 * status is said to be one that cannot be confirmed (the freshness sweep, the order detail).
 */
export const UNCONFIRMABLE_AFTER = 3

/** How an order's status stands against the freshness bound. */
export type StatusConfirmation =
  /** Closed (terminal), or confirmed within the bound: the detail says when and how. */
  | { kind: 'current' }
  /** Open and not confirmed within the bound (the budget, the sweep not reaching it yet). */
  | { kind: 'overdue' }
  /** Open, and orderStatus failed for it UNCONFIRMABLE_AFTER times or more in a row with nothing confirming it since. */
  | { kind: 'unconfirmable'; failures: number; lastTriedAt: number | null }

export function statusConfirmation(
  row: Pick<OrderRow, 'statusConfirmedAt' | 'statusCheckFailures' | 'statusCheckedAt'>,
  o: { open: boolean; now: number; boundMs: number }
): StatusConfirmation {
  if (!o.open || row.statusConfirmedAt === undefined) return { kind: 'current' }
  const failures = row.statusCheckFailures ?? 0
  if (failures >= UNCONFIRMABLE_AFTER) return { kind: 'unconfirmable', failures, lastTriedAt: row.statusCheckedAt ?? null }
  if (row.statusConfirmedAt === null || o.now - row.statusConfirmedAt > o.boundMs) return { kind: 'overdue' }
  return { kind: 'current' }
}

/**
 * The order detail's sentence on its status: when and how it was last confirmed, and,
 * plainly, when it could not be within the bound or cannot be at all. `when` writes an
 * instant ("12 min ago (25 Nov 2026, 14:05)"), `time` a time of day.
 */
export function statusConfirmationText(
  row: Pick<OrderRow, 'statusConfirmedAt' | 'statusConfirmedBy' | 'statusCheckFailures' | 'statusCheckedAt'>,
  o: { open: boolean; now: number; boundMs: number; when: (ms: number) => string; time: (ms: number) => string }
): { text: string; attention: boolean } {
  const min = Math.round(o.boundMs / 60_000)
  const last =
    row.statusConfirmedAt === null || row.statusConfirmedAt === undefined
      ? 'never confirmed by the service'
      : `last confirmed ${o.when(row.statusConfirmedAt)} by ${confirmedByText(row.statusConfirmedBy ?? 'history')}`
  const c = statusConfirmation(row, o)
  switch (c.kind) {
    case 'unconfirmable':
      return {
        attention: true,
        text:
          `Status cannot be confirmed: ${c.failures} status checks with the service failed in a row` +
          `${c.lastTriedAt !== null ? `, last at ${o.time(c.lastTriedAt)}` : ''}. ` +
          `${last[0]!.toUpperCase()}${last.slice(1)}; it may no longer be the service's status. It is asked again in turn.`
      }
    case 'overdue':
      return {
        attention: true,
        text: `Status not confirmed within the ${min} min bound: ${last}. It is asked again.`
      }
    case 'current':
      return {
        attention: false,
        text:
          row.statusConfirmedAt === null
            ? 'Status not confirmed by the service yet.'
            : `Status ${last.replace('last confirmed', 'confirmed')}.${o.open ? ` Open orders are confirmed at least every ${min} min.` : ''}`
      }
  }
}

/** How a status was confirmed, in an operator's words: "a history sync", "a webhook from the service", "a status check". */
export function confirmedByText(by: NonNullable<OrderRow['statusConfirmedBy']>): string {
  return by === 'history' ? 'a history sync' : by === 'webhook' ? 'a webhook from the service' : 'a status check'
}

// The words for order coverage (issue 23), one place for main's texts (diagnostics, the
// tray) and the renderer's views: a scope's name, its audit in the operator's terms, and
// how a status was last confirmed.
import { fiatName } from './names'
import { orderKindLabel } from './status'
import type { OrderRow, ScopeCoverage } from '../ipc/contract'

/** "Onramp INR", "Offramp (every fiat)". */
export function scopeName(type: 1 | 2, fiatType: number): string {
  return `${orderKindLabel(type)} ${fiatType === 0 ? '(every fiat)' : fiatName(fiatType)}`
}

/**
 * "complete: 2,034 orders, checked 14:05" / "incomplete: repairing (2 of 5 pages)" /
 * "incomplete: 12 orders missing" / "checking" / "2,034 orders, not checked yet"; a scope
 * not synced says what its probe found. `time` writes a checked-at instant.
 */
export function auditText(
  s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe' | 'revealed'>,
  time: (ms: number) => string,
  count: (n: number) => string
): string {
  const a = s.audit
  const n = count(s.orders)
  if (s.probe === 'refused' && s.revealed) return 'refused by the service, though an order was seen there'
  if (s.probe !== 'active') return PROBE_TEXT[s.probe]
  switch (a.state) {
    case 'complete':
      return `complete: ${n} orders, checked ${a.checkedAt === null ? '-' : time(a.checkedAt)}`
    case 'repairing':
      return `incomplete: repairing (${a.repair?.page ?? 0} of ${a.repair?.pages ?? '?'} pages)`
    case 'incomplete':
      return `incomplete: ${a.error ?? `${count(Math.max(0, (a.serviceOrders ?? 0) - s.orders))} orders missing`}`
    case 'checking':
      return `checking (${n} orders here)`
    case 'unchecked':
      return `${n} orders, not checked yet`
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

/** "a history answer", "a verified webhook", "orderStatus". */
export function confirmedByText(by: NonNullable<OrderRow['statusConfirmedBy']>): string {
  return by === 'history' ? 'a history answer' : by === 'webhook' ? 'a verified webhook' : 'orderStatus'
}

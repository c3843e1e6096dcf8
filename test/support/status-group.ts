// The test oracle for status-group filters: an order belongs in a group when the label
// table puts its status there (unknown statuses count as 'in progress'). The SQL filter
// and statusGroupFilter are checked against it, one order at a time.
import { statusInfo } from '../../src/shared/domain/status'
import type { StatusGroup } from '../../src/shared/ipc/contract'

export function statusMatchesGroup(type: number, status: number, group: StatusGroup): boolean {
  return statusInfo(type, status).group === group
}

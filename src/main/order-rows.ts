// Maps stored orders to the rows the renderer shows, and the renderer's filter to the
// store's query: the one place where the contract's order shapes meet the database's.
import type { OrderFilter as ContractFilter, OrderRow as ContractRow, OrderSort as ContractSort } from '../shared/ipc/contract'
import { OPEN_GROUPS, statusGroupFilter } from '../shared/domain/status'
import type { ListedOrder, StoredOrderFilter, StoredOrderSort } from './store/orders-repo'

export function toContractRow(r: ListedOrder, watched: boolean): ContractRow {
  const onramp = r.type === 1
  return {
    type: r.type,
    orderId: r.orderId,
    status: r.status,
    fiatType: r.fiatType,
    coinId: r.coinId,
    chainId: r.chainId,
    fiatAmount: onramp ? r.fiatAmount : (r.actualFiatAmount ?? r.fiatAmount),
    cryptoAmount: onramp ? (r.actualCryptoAmount ?? r.expectedCryptoAmount) : (r.actualQuantity ?? r.expectedQuantity),
    walletAddress: r.walletAddress,
    merchantRecognitionId: r.merchantRecognitionId,
    referenceId: r.referenceId,
    transactionHash: r.transactionHash,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    firstSeenAt: Date.parse(r.firstSeenAt),
    lastChangedAt: Date.parse(r.lastChangedAt),
    watched,
    statusConfirmedAt: r.statusConfirmedAt === null ? null : Date.parse(r.statusConfirmedAt),
    statusConfirmedBy: r.statusConfirmedBy,
    // Failures count only while nothing has confirmed the status since (as openSummary counts them).
    statusCheckFailures:
      r.statusCheckedAt !== null && (r.statusConfirmedAt === null || r.statusConfirmedAt <= r.statusCheckedAt) ? r.statusCheckFailures : 0,
    statusCheckedAt: r.statusCheckedAt === null ? null : Date.parse(r.statusCheckedAt),
    goneAt: r.goneAt === null ? null : Date.parse(r.goneAt)
  }
}

export function toStoreFilter(f: ContractFilter): StoredOrderFilter {
  const out: StoredOrderFilter = { type: f.type }
  if (f.statusGroup) {
    const g = statusGroupFilter(f.type, f.statusGroup)
    // Unknown statuses belong to their group too: "everything not known" is an exclusion.
    if (g.includeUnknown) out.excludeStatuses = g.known.filter((s) => !g.in.includes(s))
    else out.statuses = g.in
    // An order the service no longer has is going nowhere: in no open group.
    if (OPEN_GROUPS.includes(f.statusGroup)) out.listed = true
  }
  if (f.fiatType !== undefined) out.fiatType = f.fiatType
  if (f.coinId !== undefined) out.coinId = f.coinId
  if (f.chainId !== undefined) out.chainId = f.chainId
  if (f.from) out.from = f.from
  if (f.to) out.to = f.to
  if (f.search) out.search = f.search
  return out
}

export function toStoreSort(s: ContractSort): StoredOrderSort {
  const [key, dir] = s.split(':') as [StoredOrderSort['key'], StoredOrderSort['dir']]
  return { key, dir }
}

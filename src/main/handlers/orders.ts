// orders:* — the local database's orders: a window of a filtered query, one order with
// its timeline, history records that could not be read, watching, the tray's
// list (the watched orders, then what needs attention and the moving ones), and CSV export.
import { exportOrdersCsv } from '../export/orders-csv'
import { localOperator } from '../local-operator'
import { claimEntry } from '../store/order-claims-repo'
import { csvNamesOf } from '../../shared/domain/csv'
import { toContractRow, toStoreFilter, toStoreSort } from '../order-rows'
import type { LocalStore } from '../store/local-store'
import { ContractError, type OrderRef, type OrderRow } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

/** How many of the most recently changed orders per type and group the tray lists beside the watched ones. */
const TRAY_RECENT = 20

/** The watched orders (as `watched` lists them), then what needs the operator, then the active orders, most recently changed first: the tray's list. */
export function trayRows(store: Pick<LocalStore, 'orders'>, watched: readonly OrderRef[]): OrderRow[] {
  const rows = watched.flatMap((w) => {
    const r = store.orders.get(w.type, w.orderId)
    return r ? [toContractRow(r, true)] : []
  })
  const seen = new Set(rows.map((r) => `${r.type}:${r.orderId}`))
  for (const statusGroup of ['needs attention', 'in progress'] as const) {
    for (const type of [1, 2] as const) {
      const recent = store.orders.query({
        ...toStoreFilter({ type, statusGroup }),
        sort: { key: 'updatedAt', dir: 'desc' },
        limit: TRAY_RECENT
      })
      for (const r of recent.rows) if (!seen.has(`${r.type}:${r.orderId}`)) rows.push(toContractRow(r, false))
    }
  }
  return rows
}

export function orderHandlers(c: Pick<HandlerContext, 'ready' | 'audit' | 'emit' | 'now' | 'exportDir'>): HandlerSlice<'orders'> {
  return {
    'orders:query': async ({ filter, sort, offset, limit }) => {
      const s = await c.ready()
      const r = s.store.orders.query({ ...toStoreFilter(filter), sort: toStoreSort(sort), offset, limit })
      const ids = r.rows.map((row) => row.orderId)
      const handlers = s.store.claims.handlers(filter.type, ids)
      // One statement for the window's watches: one per row was 100 round trips through the binding.
      const watched = s.store.watches.watchedAmong(filter.type, ids)
      const rows = r.rows.map((row) => ({
        ...toContractRow(row, watched.has(row.orderId)),
        handledBy: handlers.get(row.orderId) ?? null
      }))
      // An order id searched for and not held may be in a fiat not synced yet: its type's empty scopes are probed now.
      if (r.total === 0 && filter.search && /^\d+$/.test(filter.search.trim())) s.monitor.revealSearch(filter.type)
      // What the operator searched for may be an order of the other type: say how many.
      const total = { total: r.total, ...(r.totalAtLeast ? { totalAtLeast: true } : {}) }
      if (!filter.search?.trim() || offset > 0) return { ...total, rows }
      const other = s.store.orders.totalUpTo(toStoreFilter({ ...filter, type: filter.type === 1 ? 2 : 1 }))
      return { ...total, rows, otherTypeTotal: other.total, ...(other.atLeast ? { otherTypeTotalAtLeast: true } : {}) }
    },
    'orders:get': async ({ type, orderId }) => {
      const s = await c.ready()
      const row = s.store.orders.get(type, orderId)
      if (!row) return null
      const claim = s.store.claims.claim(type, orderId)
      return {
        row: { ...toContractRow(row, s.store.watches.has(type, orderId)), handledBy: claim?.operator ?? null },
        claim,
        notes: s.store.claims.notes(type, orderId),
        record: row.record as Record<string, unknown>,
        timeline: s.store.orders
          .timeline(type, orderId)
          .map((e) => ({ at: Date.parse(e.at), oldStatus: e.oldStatus, newStatus: e.newStatus, source: e.source }))
      }
    },
    'orders:unreadable': async () => {
      const s = await c.ready()
      return { rows: s.store.unreadableOrders.list() }
    },
    'orders:watch': async ({ type, orderId, watch }) => {
      const s = await c.ready()
      if (watch) s.monitor.watch(type, orderId)
      else s.monitor.unwatch(type, orderId)
      c.audit(watch ? 'order.watch' : 'order.unwatch', { type, orderId })
      return { ok: true }
    },
    'orders:claim': async (input) => {
      const s = await c.ready()
      if (!s.store.orders.get(input.type, input.orderId)) throw new ContractError('invalid_input', 'This order is not in the database')
      const by = localOperator()
      const change = s.store.claims.record(claimEntry(s.store.claims.claim(input.type, input.orderId), input, by, c.now()))!
      c.audit(`order.${input.action}`, { type: input.type, orderId: input.orderId, ...(input.action === 'hand' ? { to: input.to } : {}) })
      c.emit('order:handling', { type: input.type, orderId: input.orderId, claim: change.claim, by })
      return { claim: change.claim }
    },
    'orders:note': async ({ type, orderId, text }) => {
      const s = await c.ready()
      if (!s.store.orders.get(type, orderId)) throw new ContractError('invalid_input', 'This order is not in the database')
      const by = localOperator()
      const change = s.store.claims.record({ type, orderId, kind: 'note', text, actor: by, at: c.now() })!
      c.audit('order.note', { type, orderId })
      c.emit('order:handling', { type, orderId, claim: change.claim, note: change.note, by })
      return change.note!
    },
    'orders:check': async ({ type, orderId }) => {
      const s = await c.ready()
      return s.monitor.checkOrder(type, orderId)
    },
    'orders:watched': async () => {
      const s = await c.ready()
      return { rows: trayRows(s.store, s.store.watches.list()) }
    },
    'orders:export': async (input) => {
      const s = await c.ready()
      const { filter } = input
      const r = await exportOrdersCsv({
        store: s.store,
        input,
        // Names as the configuration has them now (cached; fetched at start).
        names: csvNamesOf(await s.config.get().catch(() => s.config.snapshot())),
        dir: c.exportDir,
        at: c.now(),
        onProgress: (p) => c.emit('export:progress', p)
      })
      s.store.audit.append('orders.export', {
        type: filter.type,
        ...(input.bothTypes ? { bothTypes: true } : {}),
        rows: r.rows,
        path: r.path
      })
      return r
    }
  }
}

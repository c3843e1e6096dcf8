// Orders through the handlers after a full history sync from the embedded sandbox:
// every orders:query filter (status group with unknown statuses under 'in progress',
// fiat, coin, chain, created-at range, search by order id or its first digits and by text
// anywhere in the merchant recognition id, wallet, reference and hash) returns exactly what the same filter over
// the sandbox's ground truth says; orders:get has the timeline; a watched order's status
// change at the sandbox arrives as 'order:changed'; orders:export writes a guarded CSV.
import { readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TruthOrder } from '../../../src/sandbox'
import { OnrampOrder } from '../../../src/shared/api/schemas'
import { STATUS_GROUPS, statusInfo } from '../../../src/shared/domain/status'
import type { OrderFilter } from '../../../src/shared/ipc/contract'
import { startServicesHarness, type ServicesHarness } from './harness'
import { parseCsv } from '../../support/csv-reader'

let h: ServicesHarness
const notes: Array<{ title: string; body: string; order?: { type: 1 | 2; orderId: number } }> = []
let truth: TruthOrder[]
const FORMULA_MRID = '=HYPERLINK("http://evil.test","x")'
/** An order whose status no label table knows, as a future service version might send. */
let unknownOrder: TruthOrder

beforeAll(async () => {
  h = await startServicesHarness({ sandbox: { orders: 400, autoGenerate: false, seed: 23 }, shell: { notify: (n) => void notes.push(n) } })
  const sb = h.services.sandbox()!
  sb.control.createOrder({ type: 1, fiatType: 1, merchantRecognitionId: FORMULA_MRID })
  const fiats = [...new Set(sb.control.groundTruth().map((o) => o.fiatType))].sort((a, b) => a - b)
  await h.call('settings:update', { fiatTypes: fiats })
  await h.services.session().monitor.syncNow()

  // Inject the unknown status the way a sync would store it.
  const base = sb.control.groundTruth({ type: 1, fiatType: 1 })[0]!
  const record = { ...base.record, orderId: 990_001, status: 77, merchantRecognitionId: 'future-status-77' }
  h.services.session().store.orders.applyRecord(1, OnrampOrder.parse(record), 'sync')
  unknownOrder = { ...base, orderId: 990_001, status: 77, record }
  truth = [...sb.control.groundTruth(), unknownOrder]
})
afterAll(async () => {
  await h?.close()
})

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The filter semantics, written out directly over the ground truth. */
function expected(f: OrderFilter): number[] {
  return truth
    .filter((o) => {
      const r = o.record
      if (o.type !== f.type) return false
      if (f.statusGroup && statusInfo(o.type, o.status).group !== f.statusGroup) return false
      if (f.fiatType !== undefined && o.fiatType !== f.fiatType) return false
      if (f.coinId !== undefined && r.coinId !== f.coinId) return false
      if (f.chainId !== undefined && r.chainId !== f.chainId) return false
      if (f.from && Date.parse(o.createdAt) < Date.parse(f.from)) return false
      if (f.to && Date.parse(o.createdAt) >= Date.parse(f.to)) return false
      if (f.search) {
        // Three characters or more anywhere in a text, one or two at its start; an order id by its first digits.
        const s = f.search.trim().toLowerCase()
        const byId = /^\d{1,15}$/.test(s) && String(o.orderId).startsWith(s)
        const inText = (v: string): boolean => (s.length >= 3 ? v.toLowerCase().includes(s) : v.toLowerCase().startsWith(s))
        const byText = [r.merchantRecognitionId, r.walletAddress, r.referenceId, r.transactionHash].some((v) => {
          const t = text(v)
          return t !== null && inText(t)
        })
        if (!byId && !byText) return false
      }
      return true
    })
    .map((o) => o.orderId)
    .sort((a, b) => a - b)
}

async function query(filter: OrderFilter): Promise<number[]> {
  const r = await h.call('orders:query', { filter, sort: 'orderId:asc', offset: 0, limit: 1000 })
  expect(r.rows.length).toBe(r.total)
  for (const row of r.rows) expect(row.type).toBe(filter.type)
  return r.rows.map((x) => x.orderId)
}

describe('orders:query against the ground truth', () => {
  it('all orders of each type were synced', async () => {
    for (const type of [1, 2] as const) {
      const want = expected({ type })
      expect(want.length).toBeGreaterThan(20)
      expect(await query({ type })).toEqual(want)
    }
  })

  it('status groups, with unknown statuses under "in progress"', async () => {
    for (const type of [1, 2] as const) {
      let sum = 0
      for (const statusGroup of STATUS_GROUPS) {
        const got = await query({ type, statusGroup })
        expect(got, `${type} ${statusGroup}`).toEqual(expected({ type, statusGroup }))
        sum += got.length
      }
      expect(sum).toBe(expected({ type }).length)
    }
    expect(await query({ type: 1, statusGroup: 'in progress' })).toContain(unknownOrder.orderId)
    expect(await query({ type: 1, statusGroup: 'completed' })).not.toContain(unknownOrder.orderId)
    // Groups that some orders fall in on each side, so the comparisons above are not all empty.
    expect(expected({ type: 1, statusGroup: 'completed' }).length).toBeGreaterThan(0)
    expect(expected({ type: 1, statusGroup: 'failed' }).length).toBeGreaterThan(0)
  })

  it('fiat, coin and chain, alone and combined', async () => {
    const onramp = truth.filter((o) => o.type === 1)
    const fiats = [...new Set(onramp.map((o) => o.fiatType))]
    expect(fiats.length).toBeGreaterThan(1)
    for (const fiatType of fiats) expect(await query({ type: 1, fiatType })).toEqual(expected({ type: 1, fiatType }))
    const coins = [...new Set(onramp.map((o) => o.record.coinId as number))]
    for (const coinId of coins) expect(await query({ type: 1, coinId })).toEqual(expected({ type: 1, coinId }))
    const chains = [...new Set(truth.filter((o) => o.type === 2).map((o) => o.record.chainId as number))]
    for (const chainId of chains) expect(await query({ type: 2, chainId })).toEqual(expected({ type: 2, chainId }))
    const busy = onramp[0]!
    const combined: OrderFilter = {
      type: 1,
      fiatType: busy.fiatType,
      coinId: busy.record.coinId as number,
      statusGroup: statusInfo(1, busy.status).group
    }
    const got = await query(combined)
    expect(got).toEqual(expected(combined))
    expect(got).toContain(busy.orderId)
  })

  it('a created-at range: from inclusive, to exclusive', async () => {
    const created = truth
      .filter((o) => o.type === 1)
      .map((o) => o.createdAt)
      .sort()
    const from = created[Math.floor(created.length / 4)]!
    const to = created[Math.floor((created.length * 3) / 4)]!
    const f: OrderFilter = { type: 1, from, to }
    const got = await query(f)
    expect(got).toEqual(expected(f))
    expect(got.length).toBeGreaterThan(0)
    expect(await query({ type: 1, from })).toEqual(expected({ type: 1, from }))
    expect(await query({ type: 1, to })).toEqual(expected({ type: 1, to }))
  })

  it('search by order id or its first digits, and by text anywhere in recognition id, wallet, reference and hash', async () => {
    const onramp = truth.filter((o) => o.type === 1 && text(o.record.referenceId) && text(o.record.transactionHash))
    const o = onramp[0]!
    const r = o.record as Record<string, string>
    const searches = [
      String(o.orderId),
      String(o.orderId).slice(0, 4),
      r.merchantRecognitionId!,
      r.merchantRecognitionId!.slice(0, 5).toUpperCase(),
      r.merchantRecognitionId!.slice(-5),
      r.walletAddress!.slice(0, 8).toLowerCase(),
      r.walletAddress!.slice(-6).toUpperCase(),
      r.referenceId!.slice(0, 6),
      r.referenceId!.slice(-5),
      r.transactionHash!.slice(0, 10),
      r.transactionHash!.slice(-8),
      r.transactionHash!.slice(0, 3),
      r.transactionHash!.slice(0, 2),
      'no-such-order'
    ]
    for (const search of searches) {
      const got = await query({ type: 1, search })
      expect(got, `search ${search}`).toEqual(expected({ type: 1, search }))
    }
    expect(await query({ type: 1, search: String(o.orderId) })).toContain(o.orderId)
    expect(await query({ type: 1, search: r.transactionHash!.slice(-8) })).toContain(o.orderId)
    expect(await query({ type: 1, search: r.walletAddress!.slice(-6) })).toContain(o.orderId)
    const off = truth.find((x) => x.type === 2 && text(x.record.transactionHash))!
    const hash = (off.record.transactionHash as string).slice(-12)
    expect(await query({ type: 2, search: hash })).toEqual(expected({ type: 2, search: hash }))
    expect(await query({ type: 2, search: hash })).toContain(off.orderId)
  })

  it('an order id searched for and not held, however short, probes the empty scopes of its type', async () => {
    const monitor = h.services.session().monitor
    const asked: number[] = []
    const real = monitor.revealSearch.bind(monitor)
    monitor.revealSearch = (type) => {
      asked.push(type)
      real(type)
    }
    try {
      // A three-digit id nothing of offramp's contains: nothing matches, and offramp's empty scopes are probed.
      const short = Array.from({ length: 900 }, (_, i) => String(100 + i)).find((c) => expected({ type: 2, search: c }).length === 0)!
      expect(await query({ type: 2, search: short })).toEqual([])
      expect(asked).toEqual([2])
      expect(await query({ type: 2, search: '987654321' })).toEqual([])
      expect(asked.at(-1)).toBe(2)
      // Text is not an order id: nothing to probe.
      const before = asked.length
      await query({ type: 1, search: 'no-such-order' })
      expect(asked).toHaveLength(before)
    } finally {
      monitor.revealSearch = real
    }
  })

  it('a search counts its matches in the other order type too', async () => {
    const off = truth.find((x) => x.type === 2 && text(x.record.merchantRecognitionId))!
    const search = (off.record.merchantRecognitionId as string).slice(-6)
    const r = await h.call('orders:query', { filter: { type: 1, search }, sort: 'orderId:asc', offset: 0, limit: 100 })
    expect(r.total).toBe(expected({ type: 1, search }).length)
    expect(r.otherTypeTotal).toBe(expected({ type: 2, search }).length)
    expect(r.otherTypeTotal).toBeGreaterThan(0)
    // Not asked for a window further down, nor without a search.
    expect(
      (await h.call('orders:query', { filter: { type: 1, search }, sort: 'orderId:asc', offset: 100, limit: 100 })).otherTypeTotal
    ).toBeUndefined()
    expect((await h.call('orders:query', { filter: { type: 1 }, sort: 'orderId:asc', offset: 0, limit: 1 })).otherTypeTotal).toBeUndefined()
  })
})

describe('one order', () => {
  it('the first sync does not announce every historical order; a new one arrives as order:created', async () => {
    expect(h.events.filter((e) => e.event === 'order:created')).toEqual([])
    const sb = h.services.sandbox()!
    const o = sb.control.createOrder({ type: 2, fiatType: 1, merchantRecognitionId: 'brand-new' })
    const before = h.lastSeq()
    await h.services.session().monitor.syncNow()
    const ev = await h.waitFor('order:created', (r) => r.orderId === o.orderId, before)
    // The event names the order; what it holds is the query's.
    expect(ev).toEqual({ type: 2, orderId: o.orderId })
    expect((await h.call('orders:get', { type: 2, orderId: o.orderId }))?.row).toMatchObject({
      merchantRecognitionId: 'brand-new',
      status: o.status,
      watched: false
    })
    expect(h.events.filter((e) => e.seq > before && e.event === 'order:created')).toHaveLength(1)
    truth.push(o)
  })

  it('orders:get has the row, the record and the timeline', async () => {
    const o = truth.find((x) => x.type === 1 && x.orderId !== unknownOrder.orderId)!
    const got = await h.call('orders:get', { type: 1, orderId: o.orderId })
    expect(got).not.toBeNull()
    expect(got!.row.orderId).toBe(o.orderId)
    expect(got!.row.status).toBe(o.status)
    expect(got!.record.merchantRecognitionId).toBe(o.record.merchantRecognitionId)
    expect(got!.timeline.length).toBeGreaterThan(0)
    expect(got!.timeline.at(-1)!.newStatus).toBe(o.status)
    expect(await h.call('orders:get', { type: 1, orderId: 424242 })).toBeNull()
  })

  it('a watched order’s status change at the sandbox arrives as order:changed, and lands in the timeline', async () => {
    await h.call('settings:update', { watchPollSeconds: 5 })
    const sb = h.services.sandbox()!
    const created = sb.control.createOrder({ type: 1, fiatType: 1, hold: true, merchantRecognitionId: 'watch-me' })
    await h.services.session().monitor.syncNow()
    expect((await h.call('orders:get', { type: 1, orderId: created.orderId }))?.row.status).toBe(0)

    const before = h.lastSeq()
    await h.call('orders:watch', { type: 1, orderId: created.orderId, watch: true })
    const watched = await h.call('orders:watched', {})
    expect(watched.rows.find((r) => r.orderId === created.orderId)?.watched).toBe(true)
    // The orders table marks it, and only it, in the window it shows.
    const window = await h.call('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 100 })
    expect(window.rows.filter((r) => r.watched).map((r) => r.orderId)).toEqual([created.orderId])

    const moved = sb.control.advanceOrder(created.orderId)
    expect(moved.status).not.toBe(0)
    const ev = await h.waitFor('order:changed', (p) => p.row.orderId === created.orderId, before)
    expect(ev.oldStatus).toBe(0)
    expect(ev.newStatus).toBe(moved.status)
    expect(ev.row.watched).toBe(true)
    const got = await h.call('orders:get', { type: 1, orderId: created.orderId })
    expect(got!.timeline.map((t) => [t.oldStatus, t.newStatus, t.source]).at(-1)).toEqual([0, moved.status, 'watch'])

    const audit = await h.call('audit:list', { limit: 50 })
    expect(audit.rows.some((r) => r.action === 'order.watch' && r.detail.orderId === created.orderId)).toBe(true)
    await h.call('orders:watch', { type: 1, orderId: created.orderId, watch: false })
  })

  it('a change to a terminal status notifies (default policy), a change within progress does not', async () => {
    const sb = h.services.sandbox()!
    const o = sb.control.createOrder({ type: 1, fiatType: 1, hold: true, merchantRecognitionId: 'notify-me' })
    await h.services.session().monitor.syncNow()
    notes.length = 0
    sb.control.advanceOrder(o.orderId)
    await h.services.session().monitor.syncNow()
    expect(notes.filter((n) => n.order?.orderId === o.orderId)).toEqual([])
    const done = sb.control.advanceOrder(o.orderId, 15)
    expect(statusInfo(1, done.status).terminal).toBe(true)
    await h.services.session().monitor.syncNow()
    const mine = notes.filter((n) => n.order?.orderId === o.orderId)
    expect(mine).toHaveLength(1)
    expect(mine[0]!.title).toBe(`Onramp order ${o.orderId}: Complete`)
    expect(mine[0]!.order).toEqual({ type: 1, orderId: o.orderId })
  })

  it('orders:check asks the service now: a move nothing synced yet arrives as order:changed, confirmed by a status check', async () => {
    const sb = h.services.sandbox()!
    const created = sb.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' })
    await h.services.session().monitor.syncNow()
    expect(await h.call('orders:check', { type: 1, orderId: created.orderId })).toMatchObject({
      kind: 'status',
      status: created.status,
      previous: created.status,
      kept: true
    })
    const before = h.lastSeq()
    const moved = sb.control.advanceOrder(created.orderId)
    const r = await h.call('orders:check', { type: 1, orderId: created.orderId })
    expect(r).toMatchObject({ kind: 'status', status: moved.status, previous: created.status, kept: true })
    const ev = await h.waitFor('order:changed', (p) => p.row.orderId === created.orderId, before)
    expect(ev.newStatus).toBe(moved.status)
    const got = await h.call('orders:get', { type: 1, orderId: created.orderId })
    expect(got!.row).toMatchObject({ status: moved.status, statusConfirmedBy: 'orderStatus' })
    // An order the service does not know: said so, not an error.
    expect(await h.call('orders:check', { type: 2, orderId: 987654321 })).toMatchObject({ kind: 'unknown-order' })
  })
})

describe('orders:export', () => {
  it('writes the filtered orders as CSV with decimal strings and guarded formula cells, with progress and an audit entry', async () => {
    const filter: OrderFilter = { type: 1, fiatType: 1 }
    const listed = await h.call('orders:query', { filter, sort: 'orderId:asc', offset: 0, limit: 1000 })
    const before = h.lastSeq()
    const out = await h.call('orders:export', { filter })
    expect(out.rows).toBe(listed.total)
    expect(dirname(out.path)).toBe(h.exportDir)

    const raw = await readFile(out.path, 'utf8')
    expect(raw.startsWith('\uFEFF')).toBe(true)
    const [header, ...lines] = parseCsv(raw.slice(1))
    expect(lines).toHaveLength(listed.total)
    const col = (name: string): number => header!.indexOf(name)
    expect(col('orderId')).toBeGreaterThanOrEqual(0)
    const byId = new Map(lines.map((l) => [Number(l[col('orderId')]), l]))
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual(listed.rows.map((r) => r.orderId))

    for (const name of [
      'fiatAmount',
      'expectedCryptoAmount',
      'expectedPrice',
      'onrampFee',
      'clientFee',
      'gatewayFee',
      'gasFee',
      'actualCryptoAmount',
      'actualPrice'
    ]) {
      for (const l of lines) expect(l[col(name)], `${name} of ${l[col('orderId')]}`).toMatch(/^(-?\d+(\.\d+)?)?$/)
    }
    for (const r of listed.rows) expect(byId.get(r.orderId)![col('fiatAmount')]).toBe(r.fiatAmount)
    // Coins, chains and fiats by the names the configuration gives them, never "#54".
    const config = await h.call('config:get', {})
    for (const r of listed.rows) {
      const l = byId.get(r.orderId)!
      expect(l[col('coin')]).toBe(config.coins.find((c) => c.id === r.coinId)!.code.toUpperCase())
      expect(l[col('chain')]).toBe(config.chains.find((c) => c.id === r.chainId)!.symbol.toUpperCase())
      expect(l[col('fiat')]).toBe('INR')
    }

    const evil = listed.rows.find((r) => r.merchantRecognitionId === FORMULA_MRID)!
    expect(evil).toBeDefined()
    expect(byId.get(evil.orderId)![col('merchantRecognitionId')]).toBe(`'${FORMULA_MRID}`)
    expect(raw).not.toMatch(/(^|,)=HYPERLINK/m)

    const done = h.events
      .filter((e) => e.seq > before && e.event === 'export:progress')
      .map((e) => e.payload as { rows: number; total: number; done: boolean })
    expect(done.at(-1)).toEqual({ rows: listed.total, total: listed.total, done: true })
    const audit = await h.call('audit:list', { limit: 20 })
    const entry = audit.rows.find((r) => r.action === 'orders.export')
    expect(entry?.detail).toMatchObject({ type: 1, rows: listed.total, path: out.path })
    expect(h.contractViolations).toEqual([])
  })
})

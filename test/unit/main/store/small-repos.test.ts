// Config cache, ticker history, webhook deliveries, audit log and watches.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'

let dir: string
let store: LocalStore
let clock: Date

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-repos-'))
  clock = new Date('2024-06-01T12:00:00.000Z')
  store = openLocalStore(dir, { now: () => clock })
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('ConfigCacheRepo', () => {
  it('stores a value with fetchedAt and etag, and tells whether a refetch changed it', () => {
    expect(store.configCache.get('allConfigMapping')).toBeUndefined()
    const first = store.configCache.put('allConfigMapping', { fiat: { INR: 1 }, coin: { usdt: 54 } }, { etag: 'W/"1"' })
    expect(first.changed).toBe(true)
    expect(first.entry).toMatchObject({ fetchedAt: clock.toISOString(), etag: 'W/"1"' })
    clock = new Date('2024-06-01T13:00:00.000Z')
    // Same content, keys in another order.
    const again = store.configCache.put('allConfigMapping', { coin: { usdt: 54 }, fiat: { INR: 1 } })
    expect(again.changed).toBe(false)
    expect(again.entry.hash).toBe(first.entry.hash)
    const stored = store.configCache.get<{ fiat: Record<string, number> }>('allConfigMapping')!
    expect(stored.value.fiat.INR).toBe(1)
    expect(stored.fetchedAt).toBe('2024-06-01T13:00:00.000Z')
    expect(store.configCache.put('allConfigMapping', { fiat: { INR: 1, TRY: 2 } }).changed).toBe(true)
    expect(store.configCache.touch('allConfigMapping', '2024-06-02T00:00:00.000Z')).toBe(true)
    expect(store.configCache.get('allConfigMapping')!.fetchedAt).toBe('2024-06-02T00:00:00.000Z')
    expect(store.configCache.list().map((e) => e.key)).toEqual(['allConfigMapping'])
    expect(store.configCache.delete('allConfigMapping')).toBe(true)
    expect(store.configCache.get('allConfigMapping')).toBeUndefined()
  })
})

describe('TickerHistoryRepo', () => {
  it('appends, reads a series in time order, gives the latest per coin and prunes by age', () => {
    store.tickers.append([
      { fiatType: 1, coinId: 54, side: 'buy', price: '83.41', at: '2024-06-01T10:00:00.000Z' },
      { fiatType: 1, coinId: 54, side: 'buy', price: '83.5', at: '2024-06-01T11:00:00.000Z' },
      { fiatType: 1, coinId: 54, side: 'sell', price: '82.9', at: '2024-06-01T11:00:00.000Z' },
      { fiatType: 1, coinId: 1, side: 'buy', price: '5000000.123456789012345', at: '2024-06-01T11:30:00.000Z' },
      { fiatType: 2, coinId: 54, side: 'buy', price: '32.1', at: '2024-05-01T00:00:00.000Z' }
    ])
    expect(store.tickers.range({ fiatType: 1, coinId: 54, side: 'buy' }).map((s) => s.price)).toEqual(['83.41', '83.5'])
    expect(store.tickers.range({ fiatType: 1, coinId: 54, side: 'buy', from: '2024-06-01T10:30:00Z' }).map((s) => s.price)).toEqual([
      '83.5'
    ])
    expect(store.tickers.latest(1, 'buy').map((s) => [s.coinId, s.price])).toEqual([
      [1, '5000000.123456789012345'],
      [54, '83.5']
    ])
    expect(store.tickers.prune({ maxAgeMs: 24 * 3600_000 })).toBe(1)
    expect(store.tickers.prune({ olderThan: '2024-06-01T10:30:00.000Z' })).toBe(1)
    expect(store.tickers.count()).toBe(3)
  })

  it('refuses a price that is not a decimal and appends nothing from a bad batch', () => {
    expect(() =>
      store.tickers.append([
        { fiatType: 1, coinId: 54, side: 'buy', price: '1', at: '2024-06-01T10:00:00.000Z' },
        { fiatType: 1, coinId: 54, side: 'buy', price: 'NaN', at: '2024-06-01T10:00:00.000Z' }
      ])
    ).toThrow()
    expect(store.tickers.count()).toBe(0)
  })
})

describe('WebhookDeliveriesRepo', () => {
  const delivery = {
    headers: { 'content-type': 'application/json', 'x-service-signature': 'ab12' },
    payloadHeader: 'eyJ0aW1lc3RhbXAiOjF9',
    body: '{"orderId":1,"status":4}',
    verified: true,
    orderType: 1 as const,
    orderId: 1,
    orderStatus: 4
  }

  it('stores a delivery once and counts identical redeliveries', () => {
    const a = store.webhookDeliveries.insert(delivery)
    expect(a).toEqual({ id: expect.any(Number), inserted: true, timesReceived: 1 })
    clock = new Date('2024-06-01T12:00:05.000Z')
    const b = store.webhookDeliveries.insert(delivery)
    expect(b).toEqual({ id: a.id, inserted: false, timesReceived: 2 })
    const stored = store.webhookDeliveries.get(a.id)!
    expect(stored).toMatchObject({
      receivedAt: '2024-06-01T12:00:00.000Z',
      lastReceivedAt: '2024-06-01T12:00:05.000Z',
      timesReceived: 2,
      verified: true,
      reason: null,
      headers: delivery.headers,
      orderType: 1,
      orderId: 1,
      orderStatus: 4
    })
    // A different body is a different delivery.
    expect(store.webhookDeliveries.insert({ ...delivery, body: '{"orderId":1,"status":5}' }).inserted).toBe(true)
  })

  it('lists newest first with filters, and keeps failed verifications with their reason', () => {
    store.webhookDeliveries.insert(delivery)
    store.webhookDeliveries.insert({
      ...delivery,
      body: 'x',
      verified: false,
      reason: 'signature mismatch',
      orderId: null,
      orderType: null
    })
    store.webhookDeliveries.insert({ ...delivery, body: 'y', dedupeKey: 'custom', orderId: 2 })
    const all = store.webhookDeliveries.list()
    expect(all.total).toBe(3)
    expect(all.rows.map((d) => d.body)).toEqual(['y', 'x', delivery.body])
    const bad = store.webhookDeliveries.list({ verified: false })
    expect(bad.rows).toHaveLength(1)
    expect(bad.rows[0]).toMatchObject({ verified: false, reason: 'signature mismatch' })
    expect(store.webhookDeliveries.list({ orderType: 1, orderId: 2 }).rows.map((d) => d.dedupeKey)).toEqual(['custom'])
    clock = new Date('2024-07-01T00:00:00.000Z')
    expect(store.webhookDeliveries.pruneOlderThan('2024-06-15T00:00:00.000Z', 100)).toBe(3)
  })

  it('prunes by age (by last receipt, at most a batch at a time) and by count (the oldest beyond the newest N)', () => {
    const at = (day: number) => `2024-06-${String(day).padStart(2, '0')}T00:00:00.000Z`
    for (let day = 1; day <= 20; day++) store.webhookDeliveries.insert({ ...delivery, body: `b${day}`, receivedAt: at(day) })
    // A delivery first seen on day 2 and received again on day 19 is recent.
    store.webhookDeliveries.insert({ ...delivery, body: 'b2', receivedAt: at(19) })
    expect(store.webhookDeliveries.pruneOlderThan(at(11), 4)).toBe(4)
    expect(store.webhookDeliveries.pruneOlderThan(at(11), 4)).toBe(4)
    // Days 1 and 3..10 were older than day 11; day 2 was received again on day 19.
    expect(store.webhookDeliveries.pruneOlderThan(at(11), 4)).toBe(1)
    expect(store.webhookDeliveries.pruneOlderThan(at(11), 4)).toBe(0)
    const left = () => store.webhookDeliveries.list({ limit: 100 }).rows.map((r) => r.body)
    expect(left().sort()).toEqual(['b11', 'b12', 'b13', 'b14', 'b15', 'b16', 'b17', 'b18', 'b19', 'b2', 'b20'])

    // By count: the newest 5 by arrival stay.
    expect(store.webhookDeliveries.pruneBeyond(5, 4)).toBe(4)
    expect(store.webhookDeliveries.pruneBeyond(5, 4)).toBe(2)
    expect(store.webhookDeliveries.pruneBeyond(5, 4)).toBe(0)
    expect(left()).toEqual(['b20', 'b19', 'b18', 'b17', 'b16'])
    expect(store.webhookDeliveries.count()).toBe(5)
  })

  it('keeps the length and hash of a body, and says when only its head is stored', () => {
    const a = store.webhookDeliveries.insert({ ...delivery, body: '{"x":"é"}' })
    expect(store.webhookDeliveries.get(a.id)).toMatchObject({ bodyBytes: 10, bodySha256: null, bodyTruncated: false })
    const b = store.webhookDeliveries.insert({
      ...delivery,
      verified: false,
      body: 'head',
      bodyBytes: 1_048_576,
      bodySha256: 'ab'.repeat(32),
      bodyTruncated: true
    })
    expect(store.webhookDeliveries.get(b.id)).toMatchObject({
      body: 'head',
      bodyBytes: 1_048_576,
      bodySha256: 'ab'.repeat(32),
      bodyTruncated: true
    })
  })
})

describe('AuditLogRepo', () => {
  it('appends and lists newest first, filtered by action', () => {
    store.audit.append('profile.create', { profileId: 'live-1', name: 'Live' })
    store.audit.append('webhook.setUrl', { url: 'https://example.test/hook' })
    store.audit.append('orders.export', { rows: 12 })
    const all = store.audit.list()
    expect(all.total).toBe(3)
    expect(all.rows.map((e) => e.action)).toEqual(['orders.export', 'webhook.setUrl', 'profile.create'])
    expect(store.audit.list({ action: 'webhook.setUrl' }).rows[0]!.detail).toEqual({ url: 'https://example.test/hook' })
    expect(store.audit.list({ limit: 1, offset: 1 }).rows.map((e) => e.action)).toEqual(['webhook.setUrl'])
  })

  it('never stores credential-looking values', () => {
    const e = store.audit.append('profile.update', {
      profileId: 'p',
      apiSecret: 's3cr3t',
      nested: { token: 't', ok: 1 },
      list: [{ password: 'x' }]
    })
    expect(e.detail).toEqual({
      profileId: 'p',
      apiSecret: '[redacted]',
      nested: { token: '[redacted]', ok: 1 },
      list: [{ password: '[redacted]' }]
    })
    const raw = store.database.sql.value<string>('SELECT detail_json FROM audit_log')!
    expect(raw).not.toContain('s3cr3t')
  })
})

describe('WatchesRepo', () => {
  it('adds idempotently, lists, removes', () => {
    const w = store.watches.add(1, 10, 'vip')
    expect(w).toMatchObject({ type: 1, orderId: 10, label: 'vip', addedAt: clock.toISOString(), lastStatus: null })
    clock = new Date('2024-06-02T00:00:00.000Z')
    expect(store.watches.add(1, 10).addedAt).toBe('2024-06-01T12:00:00.000Z')
    expect(store.watches.add(1, 10).label).toBe('vip')
    store.watches.add(2, 10)
    expect(store.watches.list().map((x) => [x.type, x.orderId])).toEqual([
      [1, 10],
      [2, 10]
    ])
    expect(store.watches.has(2, 10)).toBe(true)
    expect(store.watches.remove(2, 10)).toBe(true)
    expect(store.watches.remove(2, 10)).toBe(false)
    expect(() => store.watches.add(3 as 1, 1)).toThrow(RangeError)
  })
})

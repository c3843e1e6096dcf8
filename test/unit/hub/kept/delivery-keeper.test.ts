// The keeper answers only for what it kept: in the store, in the spool when the store fails or
// does not answer in time, and neither (NotKeptError: the hub answers 503) when both fail.
// While the spool holds anything, new deliveries queue behind it; a drain hands them to the
// store in order and the store is used directly again.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DeliveryKeeper, NotKeptError } from '../../../../src/hub/kept/delivery-keeper'
import { DeliverySpool } from '../../../../src/hub/kept/delivery-spool'
import type { KeptDelivery } from '../../../../src/hub/kept/kept-delivery'
import type { KeptStore } from '../../../../src/hub/kept/kept-store'
import type { HubLog } from '../../../../src/hub/hub-log'
import { until } from '../../../support/until'

let dir: string
const lines: string[] = []
const log: HubLog = {
  info: (m) => void lines.push(`INFO ${m}`),
  warn: (m) => void lines.push(`WARN ${m}`),
  error: (m) => void lines.push(`ERROR ${m}`)
}
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-keeper-'))
  lines.length = 0
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const d = (orderId: number) => ({ orderId, contentKey: `c${orderId}` }) as KeptDelivery

/** A store whose keep() does what the test says (take, fail, or hang), taking `ms` to take. */
function fakeStore(ms = 0) {
  const kept: number[] = []
  let mode: 'take' | 'fail' | 'hang' = 'take'
  const store = {
    async keep(batch: readonly KeptDelivery[]) {
      if (mode === 'fail') throw new Error('connect ECONNREFUSED')
      if (mode === 'hang') return new Promise<never>(() => undefined)
      if (ms) await new Promise((r) => setTimeout(r, ms))
      kept.push(...batch.map((x) => x.orderId!))
      return batch.map((_, i) => ({ id: kept.length - batch.length + i + 1, outcome: { relay: 'queued' as const } }))
    },
    async ping() {
      if (mode !== 'take') throw new Error('down')
    }
  } as unknown as KeptStore
  return { store, kept, set: (m: typeof mode) => void (mode = m) }
}

describe('the delivery keeper', () => {
  it('keeps in the store while it answers', async () => {
    const s = fakeStore()
    const keeper = new DeliveryKeeper({ store: s.store, spool: DeliverySpool.open(join(dir, 's')), log, drainEveryMs: 60_000 })
    expect(await keeper.keep(d(1))).toMatchObject({ where: 'store', id: 1 })
    expect(s.kept).toEqual([1])
    await keeper.close()
  })

  it('spools what a failing or silent store does not take, queues the rest behind it, and hands it all over in order', async () => {
    const s = fakeStore()
    const spool = DeliverySpool.open(join(dir, 's'))
    const keeper = new DeliveryKeeper({ store: s.store, spool, log, storeTimeoutMs: 100, drainEveryMs: 60_000 })
    s.set('fail')
    expect(await keeper.keep(d(1))).toEqual({ where: 'spool' })
    expect(lines.some((l) => /^ERROR webhook deliveries go to the spool .*connect ECONNREFUSED/.test(l))).toBe(true)
    s.set('hang')
    expect(await keeper.keep(d(2))).toEqual({ where: 'spool' })
    s.set('take')
    // The store answers again, but the spool is not empty: this one goes behind the others.
    expect(await keeper.keep(d(3))).toEqual({ where: 'spool' })
    expect(s.kept).toEqual([])
    await keeper.drain()
    expect(s.kept).toEqual([1, 2, 3])
    expect(spool.isEmpty()).toBe(true)
    expect(await keeper.keep(d(4))).toMatchObject({ where: 'store' })
    expect(lines).toContain('INFO the store answers again: webhook deliveries are kept there again, after what waits in the spool')
    await keeper.close()
  })

  it('goes back to the store under steady traffic: once the store answers, deliveries wait for the drain and are kept directly', async () => {
    const s = fakeStore(10)
    const spool = DeliverySpool.open(join(dir, 's'))
    const keeper = new DeliveryKeeper({ store: s.store, spool, log, drainEveryMs: 30 })
    s.set('fail')
    for (let i = 1; i <= 5; i++) expect(await keeper.keep(d(i))).toEqual({ where: 'spool' })
    s.set('take')
    // A delivery every 5 ms while the spool drains: none lost or reordered, and they go back to the store.
    const where: string[] = []
    for (let i = 6; i <= 80; i++) {
      void keeper.keep(d(i)).then((k) => where.push(k.where))
      await new Promise((r) => setTimeout(r, 5))
    }
    await until(() => where.length === 75, 'every delivery kept', 5_000)
    await keeper.drain()
    expect(s.kept).toEqual(Array.from({ length: 80 }, (_, i) => i + 1))
    expect(where.slice(-20).every((w) => w === 'store')).toBe(true)
    expect(spool.isEmpty()).toBe(true)
    await keeper.close()
  })

  it('says so when it stops with deliveries still in the spool', async () => {
    const s = fakeStore()
    s.set('fail')
    const keeper = new DeliveryKeeper({ store: s.store, spool: DeliverySpool.open(join(dir, 's')), log, drainEveryMs: 60_000 })
    await keeper.keep(d(1))
    await keeper.close()
    expect(lines.some((l) => /^WARN 1 webhook delivery answered 2xx wait in the spool .* do not delete it$/.test(l))).toBe(true)
  })

  it('says it could not keep a delivery when neither the store nor the spool can', async () => {
    const s = fakeStore()
    s.set('fail')
    const keeper = new DeliveryKeeper({ store: s.store, spool: DeliverySpool.open(join(dir, 's'), 10), log, drainEveryMs: 60_000 })
    const e = await keeper.keep(d(1)).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(NotKeptError)
    expect((e as Error).message).toMatch(/the store connect ECONNREFUSED, and the spool the webhook spool is full/)
    await keeper.close()
  })

  it('hands an earlier run’s spool to the store on its own', async () => {
    const s = fakeStore()
    const spool = DeliverySpool.open(join(dir, 's'))
    await spool.append(d(7))
    await spool.close()
    const keeper = new DeliveryKeeper({ store: s.store, spool: DeliverySpool.open(join(dir, 's')), log, drainEveryMs: 20 })
    for (let i = 0; i < 100 && !s.kept.length; i++) await new Promise((r) => setTimeout(r, 10))
    expect(s.kept).toEqual([7])
    await keeper.close()
  })
})

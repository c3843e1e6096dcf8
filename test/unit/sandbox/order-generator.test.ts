import { describe, expect, it } from 'vitest'
import { OrderGenerator, generateHistoricOrders } from '../../../src/sandbox/order-generator'
import { OrderStore, CUTOVER } from '../../../src/sandbox/order-store'
import { PriceBook } from '../../../src/sandbox/price-book'
import { OrderRenderer, WalletBook } from '../../../src/sandbox/order-render'
import { pathAt } from '../../../src/sandbox/order-paths'
import { statusInfo } from '../../../src/shared/domain/status'
import { OnrampOrder, OfframpOrder } from '../../../src/shared/api/schemas'

const NOW = Date.parse('2025-03-01T12:00:00.000Z')

function world(seed: number, n: number) {
  const store = new OrderStore()
  const prices = new PriceBook(seed, NOW)
  generateHistoricOrders({ store, prices, seed }, n, NOW)
  const renderer = new OrderRenderer(seed, store, new WalletBook(seed))
  return { store, prices, renderer }
}

describe('historical orders', () => {
  it('are the same for the same seed and differ for another', () => {
    const a = world(3, 300)
    const b = world(3, 300)
    const c = world(4, 300)
    const recs = (w: ReturnType<typeof world>) => Array.from({ length: 300 }, (_, r) => w.renderer.record(r))
    expect(recs(a)).toEqual(recs(b))
    expect(recs(a)).not.toEqual(recs(c))
  })

  it('spread over months with some before the cutover, ids in creation order, all valid records', () => {
    const { store, renderer } = world(1, 12000)
    let before = 0
    let stuck = 0
    for (let r = 0; r < store.size; r++) {
      const rec = renderer.record(r)
      const parsed = store.type[r] === 2 ? OfframpOrder.safeParse(rec) : OnrampOrder.safeParse(rec)
      expect(parsed.success, JSON.stringify(rec)).toBe(true)
      // Every order bought or sold something real.
      if (store.type[r] === 1) expect(rec.expectedCryptoAmount as number, JSON.stringify(rec)).toBeGreaterThan(0)
      else expect(rec.expectedQuantity as number).toBeGreaterThan(0)
      if (store.type[r] === 2 && (rec.actualFiatAmount as number) !== 0) expect(rec.actualFiatAmount as number).toBeGreaterThan(0)
      if ((store.updatedAt[r] ?? 0) <= CUTOVER) {
        before++
        expect(rec.updatedAt).toBe('2022-11-09T16:58:07.000Z')
      }
      if (r > 0) expect(store.createdAt[r]!).toBeGreaterThanOrEqual(store.createdAt[r - 1]!)
      const info = statusInfo(store.type[r]!, store.status[r]!)
      expect(info.known).toBe(true)
      if (!info.terminal) {
        stuck++
        expect(info.tone).toBe('attention')
      }
    }
    expect(before).toBeGreaterThan(150)
    expect(stuck).toBeGreaterThan(0)
    const span = store.createdAt[store.size - 1]! - store.createdAt[0]!
    expect(span).toBeGreaterThan(90 * 24 * 3600 * 1000)
  })
})

describe('live generator', () => {
  it('moves an order along its path to the end and reports completion once', () => {
    const { store, prices } = world(2, 0)
    const completed: number[] = []
    const gen = new OrderGenerator({ store, prices, seed: 2 }, { onTerminal: (row) => completed.push(row) }, 0)
    const row = gen.create({ type: 1, coinCode: 'usdt', network: 'bep20', fiatType: 1, fiatAmount: 1000, path: 'completed' }, NOW)
    let t = NOW
    for (let i = 0; i < 50 && completed.length === 0; i++) {
      t += 60 * 60_000
      gen.tick(t)
    }
    expect(completed).toEqual([row])
    expect(store.history(row).map((h) => h.status)).toEqual(pathAt(store.path[row]!).statuses)
    expect(() => gen.advance(row, t)).toThrow(/end of its path/)
  })

  it('advances to a chosen status through the statuses between, switching to a path that leads there', () => {
    const { store, prices } = world(2, 0)
    const gen = new OrderGenerator({ store, prices, seed: 2 }, { onTerminal: () => undefined })
    const row = gen.create({ type: 2, coinCode: 'usdt', network: 'trc20', quantity: 100, path: 'completed', hold: true }, NOW)
    gen.advance(row, NOW + 1000, 17)
    expect(store.status[row]).toBe(17)
    expect(pathAt(store.path[row]!).name).toBe('alternate bank')
    expect(store.history(row).map((h) => h.status)).toEqual([0, 1, 10, 12, 13, 17])
    expect(() => gen.advance(row, NOW + 2000, 6)).toThrow(/cannot follow/)
    gen.advance(row, NOW + 3000)
    expect(store.status[row]).toBe(18)
  })
})

// TickerService with fake timers and a fake client: polls only while some view shows
// tickers, stops when all hide them, keeps history for sparklines, marks prices stale
// when fetches fail, and switches fiat cleanly (also with a fetch of the old fiat in flight).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { endpoints } from '../../../../src/shared/api/endpoints'
import { ApiError } from '../../../../src/shared/api/errors'
import type { ApiClient, CallOptions } from '../../../../src/main/api/client'
import { TickerService, type TickPoint, type TickerHistoryStore } from '../../../../src/main/tickers/ticker-service'
import { TickerRow } from '../../../../src/shared/ipc/contract'

const POLL = 15_000

class FakeClient {
  requests: { fiatType: number; signal?: AbortSignal }[] = []
  failWith: ApiError | null = null
  /** Price of coin 54 per fiat; moves by +1 per request so each tick differs. */
  base: Record<number, number> = { 1: 88, 2: 41 }
  hold = false
  private held: Array<() => void> = []

  priceTicker = async (req: { type: number; fiatType: number }, o?: CallOptions) => {
    expect(req.type).toBe(3)
    this.requests.push({ fiatType: req.fiatType, signal: o?.signal })
    const n = this.requests.length
    if (this.hold) {
      await new Promise<void>((resolve, reject) => {
        this.held.push(resolve)
        o?.signal?.addEventListener('abort', () => reject(new ApiError({ kind: 'aborted', endpoint: 'priceTicker', message: 'aborted' })))
      })
    }
    if (this.failWith) throw this.failWith
    const price = (this.base[req.fiatType] ?? 1) + n
    const raw = {
      status: 1,
      code: 200,
      data:
        req.fiatType === 1
          ? { onramp: { '54': price + 0.1, '14': 300000.5 }, offramp: { '54': price - 0.5 } }
          : { onramp: { '54': price }, offramp: {} }
    }
    return endpoints.priceTicker.response.parse(raw).data
  }

  release(): void {
    for (const r of this.held.splice(0)) r()
  }
}

class MemoryHistory implements TickerHistoryStore {
  points = new Map<number, TickPoint[]>()
  append(fiatType: number, pts: TickPoint[]): void {
    this.points.set(fiatType, [...(this.points.get(fiatType) ?? []), ...pts])
  }
  range(fiatType: number, since: number): TickPoint[] {
    return (this.points.get(fiatType) ?? []).filter((p) => p.at >= since)
  }
}

function setup(fiatType = 1) {
  const client = new FakeClient()
  const store = new MemoryHistory()
  const ticks: { fiatType: number; rows: TickerRow[] }[] = []
  const svc = new TickerService({
    client: client as unknown as ApiClient,
    store,
    pollMs: POLL,
    fiatType,
    now: () => Date.now(),
    onTick: (t) => ticks.push(t)
  })
  return { client, store, ticks, svc }
}

/** Runs due timers and lets the fake's promise chains settle. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms)
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-03-01T10:00:00Z') })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('TickerService polling follows visibility', () => {
  it('sends nothing while no view shows tickers', async () => {
    const { client, svc } = setup()
    await advance(10 * POLL)
    expect(client.requests).toHaveLength(0)
    expect(svc.current().nextRefreshAt).toBeNull()
    await svc.close()
  })

  it('polls at once when a view shows tickers, then every interval, and stops when the last view hides them', async () => {
    const { client, svc, ticks } = setup()
    svc.setVisible('main', true)
    await advance(0)
    expect(client.requests).toHaveLength(1)
    expect(ticks).toHaveLength(1)
    expect(svc.current().nextRefreshAt).toBe(Date.now() + POLL)

    await advance(POLL)
    expect(client.requests).toHaveLength(2)
    await advance(POLL)
    expect(client.requests).toHaveLength(3)

    // A second view showing and one hiding: still polling.
    svc.setVisible('tray', true)
    svc.setVisible('main', false)
    await advance(POLL)
    expect(client.requests).toHaveLength(4)

    svc.setVisible('tray', false)
    expect(svc.current().nextRefreshAt).toBeNull()
    await advance(20 * POLL)
    expect(client.requests).toHaveLength(4)
    await svc.close()
  })

  it('tells the next refresh in the future with each tick, never a time already passed (no "next refresh in 0 s")', async () => {
    const { client, svc, ticks } = setup()
    client.hold = true
    svc.setVisible('main', true)
    await advance(0)
    // The first fetch is in flight: what is asked meanwhile is not a time passed.
    expect(svc.current().nextRefreshAt).toBeGreaterThan(Date.now())
    client.hold = false
    client.release()
    await advance(0)
    for (let i = 0; i < 3; i++) {
      const t = ticks.at(-1) as unknown as { nextRefreshAt: number }
      expect(t.nextRefreshAt - Date.now()).toBe(POLL)
      await advance(POLL)
    }
    await svc.close()
  })

  it('hiding while a fetch is in flight does not reschedule after it lands', async () => {
    const { client, svc } = setup()
    client.hold = true
    svc.setVisible('main', true)
    await advance(0)
    expect(client.requests).toHaveLength(1)
    svc.setVisible('main', false)
    client.release()
    await advance(0)
    await advance(10 * POLL)
    expect(client.requests).toHaveLength(1)
    await svc.close()
  })
})

describe('TickerService rows', () => {
  it('accumulates history for sparklines with the previous tick, in decimal strings', async () => {
    const { svc } = setup()
    svc.setVisible('main', true)
    await advance(0)
    await advance(POLL)
    await advance(POLL)
    const { rows, error } = svc.current()
    expect(error).toBeNull()
    for (const r of rows) expect(TickerRow.safeParse(r).success).toBe(true)
    const usdt = rows.find((r) => r.coinId === 54)!
    expect(usdt.history.map((h) => h.buy)).toEqual(['89.1', '90.1', '91.1'])
    expect(usdt.buy).toBe('91.1')
    expect(usdt.prevBuy).toBe('90.1')
    expect(usdt.sell).toBe('90.5')
    expect(usdt.prevSell).toBe('89.5')
    expect(usdt.stale).toBe(false)
    const eth = rows.find((r) => r.coinId === 14)!
    expect(eth.sell).toBeNull()
    expect(eth.buy).toBe('300000.5')
    await svc.close()
  })

  it('marks prices stale when a fetch fails and clears the mark on the next success', async () => {
    const { client, svc } = setup()
    svc.setVisible('main', true)
    await advance(0)
    expect(svc.current().rows.every((r) => !r.stale)).toBe(true)

    client.failWith = new ApiError({ kind: 'network', endpoint: 'priceTicker', message: 'socket hang up', retryable: true })
    await advance(POLL)
    const failed = svc.current()
    expect(failed.error?.kind).toBe('network')
    expect(failed.rows.length).toBeGreaterThan(0)
    expect(failed.rows.every((r) => r.stale)).toBe(true)
    // The last known prices are still shown.
    expect(failed.rows.find((r) => r.coinId === 54)?.buy).toBe('89.1')

    client.failWith = null
    await advance(POLL)
    const back = svc.current()
    expect(back.error).toBeNull()
    expect(back.rows.every((r) => !r.stale)).toBe(true)
    await svc.close()
  })

  it('marks prices stale by age when nothing was fetched for three intervals', async () => {
    const { svc } = setup()
    await svc.refresh()
    expect(svc.current().rows.every((r) => !r.stale)).toBe(true)
    await advance(3 * POLL + 1)
    expect(svc.current().rows.every((r) => r.stale)).toBe(true)
    await svc.close()
  })
})

describe('TickerService fiat switch', () => {
  it('switching fiat fetches the new fiat at once and shows only its prices', async () => {
    const { client, svc } = setup(1)
    svc.setVisible('main', true)
    await advance(0)
    svc.configure({ fiatType: 2 })
    await advance(0)
    expect(client.requests.map((r) => r.fiatType)).toEqual([1, 2])
    const cur = svc.current()
    expect(cur.fiatType).toBe(2)
    expect(cur.rows.map((r) => r.coinId)).toEqual([54])
    expect(cur.rows[0]!.sell).toBeNull()
    await advance(POLL)
    expect(client.requests.map((r) => r.fiatType)).toEqual([1, 2, 2])
    await svc.close()
  })

  it('refresh() after a switch waits for the new fiat even with a fetch of the old one in flight', async () => {
    const { client, svc } = setup(1)
    client.hold = true
    const old = svc.refresh()
    await advance(0)
    svc.configure({ fiatType: 2 })
    const next = svc.refresh()
    client.release()
    await advance(0)
    client.release()
    await Promise.all([old, next])
    expect(client.requests.map((r) => r.fiatType)).toEqual([1, 2])
    const cur = svc.current()
    expect(cur.fiatType).toBe(2)
    expect(cur.rows.map((r) => r.coinId)).toEqual([54])
    await svc.close()
  })

  it('close() aborts the fetch in flight and no tick follows', async () => {
    const { client, svc, ticks } = setup()
    client.hold = true
    svc.setVisible('main', true)
    await advance(0)
    expect(client.requests).toHaveLength(1)
    await svc.close()
    expect(client.requests[0]!.signal?.aborted).toBe(true)
    await advance(10 * POLL)
    expect(ticks).toHaveLength(0)
    expect(client.requests).toHaveLength(1)
  })
})

// Live prices: priceTicker type 3 (buy and sell in one request) for the chosen fiat,
// polled within the request budget and only while some window shows tickers. Every
// tick is stored for sparklines; a price is stale when the latest fetch failed or its
// last successful fetch is older than three poll intervals.
import type { ApiClient } from '../api/client'
import { toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import type { TickerRow, TickerSnapshot, TickerTick } from '../../shared/ipc/contract'
import { serviceAbortController } from '../abort'

export interface TickPoint {
  at: number
  coinId: number
  buy: string | null
  sell: string | null
}

/** Ticker history storage (the profile database's ticker_history table). */
export interface TickerHistoryStore {
  append(fiatType: number, points: TickPoint[]): void
  /** Points at or after `since`, oldest first. */
  range(fiatType: number, since: number): TickPoint[]
}

export interface TickerServiceOptions {
  client: ApiClient
  store: TickerHistoryStore
  pollMs: number
  fiatType: number
  now?: () => number
  historyMs?: number
  onTick?: (t: TickerTick) => void
}

export class TickerService {
  private readonly now: () => number
  private readonly visible = new Set<string>()
  private timer: NodeJS.Timeout | null = null
  private nextAt: number | null = null
  private lastError: ApiErrorInfo | null = null
  private lastFetchAt: number | null = null
  private abort = serviceAbortController()
  private running: { fiatType: number; done: Promise<void> } | null = null

  constructor(private o: TickerServiceOptions) {
    this.now = o.now ?? Date.now
  }

  get fiatType(): number {
    return this.o.fiatType
  }

  /** A window shows or hides tickers; polling runs only while at least one shows them. */
  setVisible(view: string, visible: boolean): void {
    const before = this.visible.size > 0
    if (visible) this.visible.add(view)
    else this.visible.delete(view)
    const after = this.visible.size > 0
    // Shown again: fetch when the last fetch is a poll interval old, not at once, so
    // opening a view right after tickers:get does not spend a second request (priceTicker
    // allows 10 a minute) on an identical price.
    if (after && !before) this.schedule(this.lastFetchAt === null ? 0 : Math.max(0, this.lastFetchAt + this.o.pollMs - this.now()))
    if (!after && before) this.stopTimer()
  }

  /** The machine woke or the network came back: fetch now if a window shows tickers. */
  wake(): void {
    if (this.visible.size > 0 && !this.abort.signal.aborted) this.schedule(0)
  }

  configure(p: { pollMs?: number; fiatType?: number }): void {
    const fiatChanged = p.fiatType !== undefined && p.fiatType !== this.o.fiatType
    this.o = { ...this.o, ...p }
    if (fiatChanged) {
      // The last outcome belonged to the other fiat.
      this.lastFetchAt = null
      this.lastError = null
    }
    if (this.visible.size > 0) this.schedule(fiatChanged ? 0 : this.o.pollMs)
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.nextAt = null
  }

  private schedule(delay: number): void {
    this.stopTimer()
    this.nextAt = this.now() + delay
    this.timer = setTimeout(() => {
      this.timer = null
      void this.refresh().finally(() => {
        if (this.visible.size > 0 && !this.abort.signal.aborted) this.schedule(this.o.pollMs)
      })
    }, delay)
    this.timer.unref?.()
  }

  /**
   * Fetches once now (single-flight per fiat: after a fiat switch the caller waits for
   * the new fiat's prices, not for a fetch of the old one). Errors are kept, never thrown.
   */
  refresh(): Promise<void> {
    const fiatType = this.o.fiatType
    const running = this.running
    if (running?.fiatType === fiatType) return running.done
    const done = (async () => {
      if (running) await running.done
      if (this.abort.signal.aborted || fiatType !== this.o.fiatType) return
      try {
        const data = await this.o.client.priceTicker({ type: 3, fiatType }, { priority: 'background', signal: this.abort.signal })
        const at = this.now()
        const ids = new Set([...Object.keys(data.onramp ?? {}), ...Object.keys(data.offramp ?? {})])
        const points: TickPoint[] = [...ids].map((id) => ({
          at,
          coinId: Number(id),
          buy: data.onramp?.[id] ?? null,
          sell: data.offramp?.[id] ?? null
        }))
        if (this.abort.signal.aborted) return
        this.o.store.append(fiatType, points)
        if (fiatType !== this.o.fiatType) return
        this.lastFetchAt = at
        this.lastError = null
      } catch (e) {
        if (this.abort.signal.aborted || fiatType !== this.o.fiatType) return
        this.lastError = toErrorInfo(e)
      }
      this.o.onTick?.(this.current())
    })().finally(() => {
      if (this.running?.done === done) this.running = null
    })
    this.running = { fiatType, done }
    return done
  }

  /** Latest price per coin with the previous tick and the stored history. */
  current(): TickerSnapshot {
    const now = this.now()
    const fiatType = this.o.fiatType
    const points = this.o.store.range(fiatType, now - (this.o.historyMs ?? 6 * 60 * 60_000))
    const byCoin = new Map<number, TickPoint[]>()
    for (const p of points) {
      const list = byCoin.get(p.coinId) ?? []
      list.push(p)
      byCoin.set(p.coinId, list)
    }
    const staleAfter = 3 * this.o.pollMs
    const rows: TickerRow[] = [...byCoin.entries()]
      .sort(([a], [b]) => a - b)
      .map(([coinId, list]) => {
        const last = list[list.length - 1]!
        const prev = list.length > 1 ? list[list.length - 2]! : null
        return {
          coinId,
          buy: last.buy,
          sell: last.sell,
          prevBuy: prev?.buy ?? null,
          prevSell: prev?.sell ?? null,
          at: last.at,
          // A failed latest fetch means the shown price may no longer be the service's.
          stale: now - last.at > staleAfter || this.lastError !== null,
          history: thin(list, 120).map((p) => ({ at: p.at, buy: p.buy, sell: p.sell }))
        }
      })
    // A fetch the timer started runs with the timer spent (the next is set once it lands):
    // what it tells, and what is asked meanwhile, is one poll from now, never a time passed.
    const next = this.nextAt !== null && this.nextAt <= now && this.visible.size > 0 ? now + this.o.pollMs : this.nextAt
    return { fiatType, rows, nextRefreshAt: next, error: this.lastError }
  }

  async close(): Promise<void> {
    this.stopTimer()
    this.visible.clear()
    this.abort.abort()
    await this.running?.done
    this.abort = serviceAbortController()
  }
}

/** At most n points, evenly spread, always keeping the last. */
function thin<T>(list: T[], n: number): T[] {
  if (list.length <= n) return list
  const step = list.length / n
  const out: T[] = []
  for (let i = 0; i < n - 1; i++) out.push(list[Math.floor(i * step)]!)
  out.push(list[list.length - 1]!)
  return out
}

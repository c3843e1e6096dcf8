// The team's prices: one ticker service per fiat that some operator looks at, polled
// once within the hub's one request budget and fanned out to every desktop showing
// that fiat. A fiat polls only while some operator's window shows tickers for it, as
// on the desktop; an operator whose event streams all closed shows nothing.
import type { ApiClient } from '../main/api/client'
import { TickerService, type TickerHistoryStore } from '../main/tickers/ticker-service'
import type { TickerSnapshot, TickerTick, TickerView } from '../shared/ipc/contract'

export interface HubTickersOptions {
  client: ApiClient
  store: TickerHistoryStore
  pollMs: number
  /** The fiat an operator sees before asking for one. */
  defaultFiat: number
  now: () => number
  onTick: (t: TickerTick) => void
}

export class HubTickers {
  private readonly services = new Map<number, TickerService>()
  /** operator -> the fiat their windows show. */
  private readonly fiatOf = new Map<string, number>()
  /** operator -> the views that show tickers. */
  private readonly views = new Map<string, Set<TickerView>>()

  constructor(private o: HubTickersOptions) {}

  private service(fiatType: number): TickerService {
    let s = this.services.get(fiatType)
    if (!s) {
      s = new TickerService({
        client: this.o.client,
        store: this.o.store,
        pollMs: this.o.pollMs,
        fiatType,
        now: this.o.now,
        onTick: this.o.onTick
      })
      this.services.set(fiatType, s)
    }
    return s
  }

  fiatFor(operator: string): number {
    return this.fiatOf.get(operator) ?? this.o.defaultFiat
  }

  /** The operator's prices in this fiat (fetched now when the team has none yet); their windows follow it. */
  async get(operator: string, fiatType: number): Promise<TickerSnapshot> {
    const before = this.fiatFor(operator)
    this.fiatOf.set(operator, fiatType)
    if (before !== fiatType) this.showFor(operator, before, fiatType)
    const s = this.service(fiatType)
    if (s.current().rows.length === 0) await s.refresh()
    return s.current()
  }

  setVisible(operator: string, view: TickerView, visible: boolean): void {
    const set = this.views.get(operator) ?? new Set<TickerView>()
    if (visible) set.add(view)
    else set.delete(view)
    this.views.set(operator, set)
    this.service(this.fiatFor(operator)).setVisible(`${operator}\u0000${view}`, visible)
  }

  /** The operator's last event stream closed: their windows no longer show anything. */
  forget(operator: string): void {
    for (const view of this.views.get(operator) ?? []) this.service(this.fiatFor(operator)).setVisible(`${operator}\u0000${view}`, false)
    this.views.delete(operator)
  }

  configure(p: { pollMs: number }): void {
    this.o = { ...this.o, ...p }
    for (const s of this.services.values()) s.configure({ pollMs: p.pollMs })
  }

  private showFor(operator: string, from: number, to: number): void {
    for (const view of this.views.get(operator) ?? []) {
      const key = `${operator}\u0000${view}`
      this.service(from).setVisible(key, false)
      this.service(to).setVisible(key, true)
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.services.values()].map((s) => s.close()))
    this.services.clear()
  }
}

// What an order monitor test runs in: a fresh profile database in a temporary folder, the
// fake service and clock (fake-history.ts), and every event the monitors made here emit.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { OrderMonitor, type MonitorEvents, type OrderMonitorOptions } from '../../../../src/main/monitor/order-monitor'
import { FakeClock, FakeHistory } from './fake-history'

export class MonitorWorld {
  private readonly dir: string
  readonly store: LocalStore
  readonly fake = new FakeHistory()
  readonly clock = new FakeClock()
  readonly events: Array<{ event: string; payload: unknown }> = []

  constructor(name: string) {
    this.dir = mkdtempSync(join(tmpdir(), `rampdesk-${name}-`))
    this.store = openLocalStore(this.dir)
  }

  /** A monitor of fiat 1 over the fake, its events (order:terminal too) recorded. */
  monitor(o: Pick<OrderMonitorOptions, 'historyPollMs' | 'watchPollMs'> & Partial<OrderMonitorOptions>): OrderMonitor {
    const m = new OrderMonitor({
      client: this.fake,
      store: this.store,
      fiatTypes: [1],
      now: this.clock.now,
      timers: this.clock.timers,
      onEvent: (event, payload) => this.events.push({ event, payload }),
      ...o
    })
    m.on('order:terminal', (p) => this.events.push({ event: 'order:terminal', payload: p }))
    return m
  }

  /** The payloads of one event, in order. */
  of<E extends keyof MonitorEvents>(e: E): MonitorEvents[E][] {
    return this.events.filter((x) => x.event === e).map((x) => x.payload as MonitorEvents[E])
  }

  close(): void {
    this.store.close()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

// Child process of the history benchmark: the main-side services that sync history
// (ApiClient, OrderMonitor with HistorySync, the profile's SQLite store) and nothing
// else, so its RSS and heap are theirs alone. It also hosts the since-cursor baseline
// client (lib/since-cursor-sync.ts), run in a process of its own the same way.
import type { ApiClient } from '../src/main/api/client'
import { RateBudget } from '../src/main/api/rate-budget'
import { OrderMonitor } from '../src/main/monitor/order-monitor'
import { openLocalStore, type LocalStore } from '../src/main/store/local-store'
import type { OrderType } from '../src/shared/ipc/contract'
import { serveWorker } from './lib/child'
import { SinceCursorSync } from './lib/since-cursor-sync'
import { sandboxClient } from './lib/sandbox-client'
import { peakRssSampler } from './lib/peak-rss'

export interface InitCommand {
  cmd: 'init'
  mode: 'incremental' | 'sinceCursor'
  url: string
  apiKey: string
  apiSecret: string
  serviceName: string
  dbDir: string
  fiatTypes: number[]
}
export type WorkerCommand = InitCommand | { cmd: 'poll' } | { cmd: 'counts' } | { cmd: 'close' }

export interface MemoryFigures {
  rssMb: number
  heapUsedMb: number
  /** Peak RSS of the process so far (getrusage maxrss). */
  peakRssMb: number
  /** Highest heapUsed sampled every 20 ms so far. */
  peakHeapMb: number
  /** heapUsed right after a full GC: what the process keeps. */
  heapAfterGcMb: number
}

export interface PollResult extends MemoryFigures {
  wallMs: number
  /** merchantHistory HTTP requests sent during this poll (retries included). */
  requests: number
  /** Requests that were not answered 200. */
  failed: number
  ordersInDb: number
  /** (type, fiat) scopes the client synced: the monitor's own choice (offramp only where it exists). */
  scopes: Array<{ type: number; fiatType: number }>
}

export interface ScopeCount {
  type: OrderType
  fiatType: number
  orders: number
}

const MB = 1024 * 1024
const peakRss = peakRssSampler()
let peakHeap = 0
const sampler = setInterval(() => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
}, 20)
sampler.unref()

function memory(): MemoryFigures {
  const m = process.memoryUsage()
  peakHeap = Math.max(peakHeap, m.heapUsed)
  ;(globalThis as { gc?: () => void }).gc?.()
  const after = process.memoryUsage()
  const r = (x: number) => Math.round(x * 10) / 10
  return {
    rssMb: r(m.rss / MB),
    heapUsedMb: r(m.heapUsed / MB),
    peakRssMb: peakRss(),
    peakHeapMb: r(peakHeap / MB),
    heapAfterGcMb: r(after.heapUsed / MB)
  }
}

let state: {
  store: LocalStore
  client: ApiClient
  poll: () => Promise<void>
  scopes: () => PollResult['scopes']
  close: () => Promise<void>
} | null = null
let failed = 0

serveWorker<WorkerCommand>(async (m) => {
  switch (m.cmd) {
    case 'init': {
      const store = openLocalStore(m.dbDir)
      // The merchantHistory lane is opened wide for both clients: the service documents no
      // limit for it and the point here is the work done, not the budget's pacing.
      const budget = new RateBudget({ profileId: 'bench', defaultLimitPerMinute: 1_000_000 })
      const client = sandboxClient(m, {
        profileId: 'bench',
        budget
      })
      client.onRequest((e) => {
        if (e.outcome !== 'ok') failed++
      })
      if (m.mode === 'incremental') {
        const monitor = new OrderMonitor({ client, store, fiatTypes: m.fiatTypes, historyPollMs: 3_600_000, watchPollMs: 3_600_000 })
        state = {
          store,
          client,
          poll: async () => {
            const states = await monitor.syncNow()
            const err = states.find((s) => s.lastError)
            if (err) throw new Error(`sync of ${err.type}:${err.fiatType} failed: ${err.lastError?.message}`)
          },
          scopes: () => monitor.states().map((s) => ({ type: s.type, fiatType: s.fiatType })),
          close: () => monitor.stop()
        }
      } else {
        const baseline = new SinceCursorSync(client, store, m.fiatTypes)
        state = { store, client, poll: () => baseline.poll(), scopes: () => baseline.scopes(), close: async () => undefined }
      }
      return memory()
    }
    case 'poll': {
      if (!state) throw new Error('init first')
      const before = state.client.stats().merchantHistory
      const failedBefore = failed
      const t0 = performance.now()
      await state.poll()
      const wallMs = Math.round(performance.now() - t0)
      const result: PollResult = {
        wallMs,
        requests: state.client.stats().merchantHistory - before,
        failed: failed - failedBefore,
        ordersInDb: state.store.orders.count(),
        scopes: state.scopes(),
        ...memory()
      }
      return result
    }
    case 'counts': {
      if (!state) throw new Error('init first')
      const s = state
      return [1, 2].flatMap((type) =>
        [1, 2, 3, 4, 5, 6, 7, 8].map((fiatType) => ({
          type,
          fiatType,
          orders: s.store.orders.query({ type: type as OrderType, fiatType, limit: 1 }).total
        }))
      )
    }
    case 'close': {
      if (state) {
        await state.close()
        await state.client.close()
        state.store.close()
        state = null
      }
      return { closed: true }
    }
  }
})

process.send?.({ ready: true, ...memory() })

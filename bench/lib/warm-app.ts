// A "warm" data directory for the browser harness: the sandbox profile's database
// already holding every order of a seeded sandbox (all eight fiat types synced), so the
// renderer and start-up benchmarks open the app the way an operator does on an ordinary
// morning. The sync that fills it runs through the same worker as the history benchmark
// (the app's OrderMonitor, in a child process, budget lane opened wide); the web app
// later starts its embedded sandbox with the same seed and size, so its orders are the
// same ones (shifted by the minutes between the two starts, which the incremental sync
// at start-up picks up). The app itself runs with the settings it ships (no settings
// file: fiatTypes [1], history every 30 s): the database holds every fiat's orders, the
// way an operator who followed more fiats before would have it.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { PROFILES_DIR } from '../../src/main/profiles/profile-store'
import { startSandbox, type StartSandboxOptions } from '../../src/sandbox'
import { startWorker } from './child'
import type { BenchContext } from './types'
import type { InitCommand, PollResult, ScopeCount, WorkerCommand } from '../history-worker'

export const ALL_FIATS = [1, 2, 3, 4, 5, 6, 7, 8]

export interface WarmData {
  dataDir: string
  /** Options for the web app's embedded sandbox: the same orders as the database holds. */
  sandbox: StartSandboxOptions
  orders: number
  rowsByType: { 1: number; 2: number }
  buildMs: number
}

const cache = new Map<string, Promise<WarmData>>()

/** Builds (once per process and size) a data directory whose sandbox profile holds `orders` synced orders. */
export function warmDataDir(ctx: BenchContext, orders: number, seed = 11): Promise<WarmData> {
  const k = `${orders}:${seed}`
  let p = cache.get(k)
  if (!p) {
    p = build(ctx, orders, seed)
    cache.set(k, p)
    p.catch(() => cache.delete(k))
  }
  return p
}

async function build(ctx: BenchContext, orders: number, seed: number): Promise<WarmData> {
  const t0 = performance.now()
  const dataDir = join(ctx.tmp, `warm-${orders}-${seed}`)
  const dbDir = join(dataDir, PROFILES_DIR, 'sandbox')
  await mkdir(dbDir, { recursive: true })
  const sandbox: StartSandboxOptions = { orders, seed, autoGenerate: false }
  ctx.log(`warm database: syncing ${orders} orders (seed ${seed}) into ${dataDir}`)
  const sb = await startSandbox(sandbox)
  const worker = await startWorker<WorkerCommand, PollResult | ScopeCount[] | { error: string }>(
    join(import.meta.dirname, '..', 'history-worker.ts')
  )
  try {
    const init: InitCommand = {
      cmd: 'init',
      mode: 'incremental',
      url: sb.url,
      apiKey: sb.apiKey,
      apiSecret: sb.apiSecret,
      serviceName: sb.serviceName,
      dbDir,
      fiatTypes: ALL_FIATS
    }
    const ok = <T>(r: unknown): T => {
      if (r && typeof r === 'object' && 'error' in r) throw new Error(String((r as { error: string }).error))
      return r as T
    }
    ok(await worker.ask(init))
    const poll = ok<PollResult>(await worker.ask({ cmd: 'poll' }))
    if (poll.ordersInDb !== orders) throw new Error(`warm database holds ${poll.ordersInDb} orders, not ${orders}`)
    const counts = ok<ScopeCount[]>(await worker.ask({ cmd: 'counts' }))
    ok(await worker.ask({ cmd: 'close' }))
    const rowsByType = { 1: 0, 2: 0 }
    for (const c of counts) rowsByType[c.type] += c.orders
    return { dataDir, sandbox, orders, rowsByType, buildMs: Math.round(performance.now() - t0) }
  } finally {
    await worker.close()
    await sb.close()
  }
}

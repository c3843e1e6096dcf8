// A "warm" data directory for the browser harness: the sandbox profile's database
// already holding every order of a seeded sandbox (all eight fiat types synced), so the
// renderer and start-up benchmarks open the app the way an operator does on an ordinary
// morning. The sync that fills it runs through the same worker as the history benchmark
// (the app's OrderMonitor, in a child process, budget lane opened wide); the web app
// later starts its embedded sandbox with the same seed and size, so its orders are the
// same ones (shifted by the minutes between the two starts, which the incremental sync
// at start-up picks up). The sandbox that fills it does not generate (so the database
// holds exactly the orders asked for); the app's embedded one starts as `npm run web`
// starts it, generating. The app itself runs with the settings it ships (no settings
// file: fiatTypes [1], history every 30 s): the database holds every fiat's orders, the
// way an operator who followed more fiats before would have it.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { PROFILES_DIR } from '../../src/main/profiles/profile-store'
import { startSandbox, type Sandbox, type StartSandboxOptions } from '../../src/sandbox'
import { startWorker } from './child'
import type { BenchContext } from './types'
import type { InitCommand, PollResult, ScopeCount, WorkerCommand } from '../history-worker'

export const ALL_FIATS = [1, 2, 3, 4, 5, 6, 7, 8]

export interface WarmData {
  dataDir: string
  /** Options for the web app's embedded sandbox: the same orders as the database holds, generating as shipped. */
  sandbox: StartSandboxOptions
  orders: number
  rowsByType: { 1: number; 2: number }
  buildMs: number
  /** The first sync that filled it (the app's OrderMonitor in a child process). */
  firstSync: PollResult
  /** Orders per (type, fiat) scope. */
  counts: ScopeCount[]
}

export const PAGE_SIZE = 500

/** The request floor of a first sync: sum over (type, fiat) of ceil(orders / 500). */
export function requestFloor(counts: readonly ScopeCount[]): number {
  return counts.reduce((n, c) => n + Math.ceil(c.orders / PAGE_SIZE), 0)
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
  const sandbox: StartSandboxOptions = { orders, seed }
  ctx.log(`warm database: syncing ${orders} orders (seed ${seed}) into ${dataDir}`)
  const sb = await startSandbox({ ...sandbox, autoGenerate: false })
  try {
    const { firstSync, counts } = await fillDatabase(sb, dbDir, orders)
    const rowsByType = { 1: 0, 2: 0 }
    for (const c of counts) rowsByType[c.type] += c.orders
    return { dataDir, sandbox, orders, rowsByType, buildMs: Math.round(performance.now() - t0), firstSync, counts }
  } finally {
    await sb.close()
  }
}

/**
 * The first sync of every order of `sb` (all eight fiat types) into the profile database
 * in `dbDir`, by the app's OrderMonitor in a child process; fails unless it holds `orders`.
 */
export async function fillDatabase(sb: Sandbox, dbDir: string, orders: number): Promise<{ firstSync: PollResult; counts: ScopeCount[] }> {
  await mkdir(dbDir, { recursive: true })
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
    const firstSync = ok<PollResult>(await worker.ask({ cmd: 'poll' }))
    if (firstSync.ordersInDb !== orders) throw new Error(`the database holds ${firstSync.ordersInDb} orders, not ${orders}`)
    const counts = ok<ScopeCount[]>(await worker.ask({ cmd: 'counts' }))
    ok(await worker.ask({ cmd: 'close' }))
    return { firstSync, counts }
  } finally {
    await worker.close()
  }
}

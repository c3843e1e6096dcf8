// Benchmark 5: start-up with a warm database, two figures. The Electron start itself
// cannot be measured here (no Electron binary on this machine), so:
//
// 1. The WEB HARNESS launch. The clock starts when the browser harness
// is launched as its own process (the `npm run web` CLI, bundled with esbuild the way
// the app's main process is bundled, on a warm data directory) and stops when the first
// order row is in the orders view: process start and module loading, services, the
// sandbox profile's embedded simulator, the HTTP harness, Chromium's launch, the page
// and its first query. The renderer is built beforehand (a packaged app ships it built).
// Baseline: the same launch on a warm database of 1,000 orders, so the line shows what
// the size of the database adds; and the embedded simulator's generation time for each
// size, measured alone, because a live profile does not pay it.
//
// 2. The MAIN-SIDE start alone (startup-worker.ts): in a fresh Node process, on the same
// warm data directory, createServices + start() as the Electron main calls them, with the
// support log the app ships, until the orders view's first orders:query is answered.
// Three runs, each in a new process; median and spread. Beside it, the embedded
// simulator's generation alone, also in a fresh process, which a live profile skips.
//
// 3. A fresh clone's first `npm run web` after `npm install`, to its URL (first-web.ts).
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { buildRenderer } from '../src/web/build-renderer'
import { startSandbox } from '../src/sandbox'
import { firstWebBench } from './first-web'
import { launchChromium, VIEWPORT, viewUrl } from './lib/browser'
import { bundle, startWorker } from './lib/child'
import { benchSize } from './lib/smoke'
import { repeated, round } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { warmDataDir, type WarmData } from './lib/warm-app'
import type { MainStartFigures, StartCommand } from './startup-worker'

export const WARM_ORDERS = benchSize('BENCH_WARM_ORDERS', 143_500, 500)
const SMALL_ORDERS = benchSize(null, 1_000, 100)
const MAIN_RUNS = benchSize(null, 3, 1)
const ROOT = resolve(import.meta.dirname, '..')

interface StartupFigures {
  totalMs: number
  harnessMs: number
  browserLaunchMs: number
  pageToFirstRowsMs: number
  embeddedSandboxMs: number
  rowsInView: number
}

/** Starts the web CLI as a process; resolves with the URL it prints once it serves. */
function launchHarness(script: string, warm: WarmData): { ready: Promise<string>; stop: () => Promise<void> } {
  const args = [script, '--data-dir', warm.dataDir, '--orders', String(warm.sandbox.orders), '--seed', String(warm.sandbox.seed)]
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const ready = new Promise<string>((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout })
    lines.on('line', (l) => {
      const m = /^Open: (\S+)/.exec(l)
      if (m) resolveUrl(m[1]!)
    })
    void exited.then(() => reject(new Error('the web harness exited before it printed its URL')))
  })
  return {
    ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
  }
}

async function measure(script: string, warm: WarmData): Promise<StartupFigures> {
  // The embedded simulator's generation alone, outside the timed start.
  const g0 = performance.now()
  const alone = await startSandbox(warm.sandbox)
  const embeddedSandboxMs = performance.now() - g0
  await alone.close()

  const t0 = performance.now()
  const harness = launchHarness(script, warm)
  try {
    const openUrl = await harness.ready
    const t1 = performance.now()
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ viewport: VIEWPORT })
      const t2 = performance.now()
      await page.goto(viewUrl(openUrl, 'orders'))
      await page.waitForSelector('table.orders tbody tr[data-order]', { timeout: 60_000 })
      const t3 = performance.now()
      const rowsInView = Number(await page.locator('table.orders').getAttribute('data-total'))
      return {
        totalMs: round(t3 - t0, 0),
        harnessMs: round(t1 - t0, 0),
        browserLaunchMs: round(t2 - t1, 0),
        pageToFirstRowsMs: round(t3 - t2, 0),
        embeddedSandboxMs: round(embeddedSandboxMs, 0),
        rowsInView
      }
    } finally {
      await browser.close()
    }
  } finally {
    await harness.stop()
  }
}

type WorkerAnswer = MainStartFigures | { embeddedSandboxMs: number } | { error: string } | { ready: true }

function ok<T>(r: WorkerAnswer): T {
  if ('error' in r) throw new Error(r.error)
  return r as T
}

/** One main-side start in a fresh process; then, in another, the embedded simulator's generation alone. */
async function measureMainSide(warm: WarmData): Promise<MainStartFigures & { embeddedSandboxMs: number }> {
  const worker = await startWorker<StartCommand, WorkerAnswer>(join(import.meta.dirname, 'startup-worker.ts'))
  let figures: MainStartFigures
  try {
    figures = ok<MainStartFigures>(
      await worker.ask({ cmd: 'start', dataDir: warm.dataDir, sandbox: { orders: warm.sandbox.orders, seed: warm.sandbox.seed } })
    )
  } finally {
    await worker.close()
  }
  const alone = await startWorker<StartCommand, WorkerAnswer>(join(import.meta.dirname, 'startup-worker.ts'))
  try {
    const { embeddedSandboxMs } = ok<{ embeddedSandboxMs: number }>(
      await alone.ask({ cmd: 'sandbox', sandbox: { orders: warm.sandbox.orders, seed: warm.sandbox.seed } })
    )
    return { ...figures, embeddedSandboxMs }
  } finally {
    await alone.close()
  }
}

export async function startupBench(ctx: BenchContext): Promise<BenchLine[]> {
  await buildRenderer({ quiet: true })
  const entry = join(ROOT, 'src', 'web', 'cli.ts')
  const script = await bundle(entry)
  if (!script) throw new Error('esbuild is needed to bundle the web harness for a cold start')
  const warm = await warmDataDir(ctx, WARM_ORDERS)
  const small = await warmDataDir(ctx, SMALL_ORDERS)
  ctx.log(`startup: ${WARM_ORDERS} orders, then ${SMALL_ORDERS}`)
  const big = await measure(script, warm)
  const base = await measure(script, small)
  const main: Array<MainStartFigures & { embeddedSandboxMs: number }> = []
  for (let i = 0; i < MAIN_RUNS; i++) {
    ctx.log(`startup: main side alone, run ${i + 1} of ${MAIN_RUNS}`)
    main.push(await measureMainSide(warm))
  }
  const of = (k: keyof (typeof main)[number]) => repeated(main.map((r) => r[k] as number))
  const harness: BenchLine = {
    bench: 'startup',
    label: 'web harness launch (the browser harness, not Electron: the Electron start cannot be measured on this machine)',
    what: `the web harness launched as a process (src/web/cli.ts bundled by esbuild) on a warm data directory (sandbox profile, ${WARM_ORDERS} orders synced for all 8 fiat types; its embedded simulator seeded with the same orders), Chromium launched, main window opened on #/orders, until the first tr[data-order]; renderer prebuilt`,
    orders: WARM_ORDERS,
    rowsInView: big.rowsInView,
    totalMs: big.totalMs,
    harnessMs: big.harnessMs,
    browserLaunchMs: big.browserLaunchMs,
    pageToFirstRowsMs: big.pageToFirstRowsMs,
    embeddedSandboxMs: big.embeddedSandboxMs,
    totalWithoutEmbeddedSandboxMs: round(big.totalMs - big.embeddedSandboxMs, 0),
    baseline: {
      smallDatabase: { orders: SMALL_ORDERS, ...base, totalWithoutEmbeddedSandboxMs: round(base.totalMs - base.embeddedSandboxMs, 0) },
      totalRatio: round(big.totalMs / base.totalMs, 2),
      pageToFirstRowsRatio: round(big.pageToFirstRowsMs / base.pageToFirstRowsMs, 2)
    }
  }
  const mainSide: BenchLine = {
    bench: 'startup-main',
    label: 'main-side start alone (services ready and the first orders query answered; no window, no renderer)',
    what: `${MAIN_RUNS} runs, each a fresh Node process on the esbuild bundle of bench/startup-worker.ts: createServices({ shellKind: 'electron', support log at the shipped level }) + start() on the warm data directory of the web harness line (sandbox profile active, ${WARM_ORDERS} orders synced, embedded simulator seeded with the same orders and generating, as npm run web starts it), then orders:query { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 100 } (the orders view's first page) through invokeChannel as the IPC calls it; median and min-max`,
    orders: WARM_ORDERS,
    rows: main[0]!.rows,
    total: main[0]!.total,
    servicesToFirstRowsMs: of('servicesToFirstRowsMs'),
    processToFirstRowsMs: of('processToFirstRowsMs'),
    processAndModulesMs: of('processAndModulesMs'),
    createServicesMs: of('createServicesMs'),
    startMs: of('startMs'),
    firstQueryMs: of('firstQueryMs'),
    embeddedSandboxMs: of('embeddedSandboxMs'),
    servicesToFirstRowsWithoutEmbeddedSandboxMs: repeated(main.map((r) => r.servicesToFirstRowsMs - r.embeddedSandboxMs)),
    baseline: {
      webHarnessLaunchMs: big.totalMs,
      what: "the web harness line's launch to first rows (one run), which adds the harness's HTTP server, Chromium and the page to this"
    }
  }
  const firstWeb = await firstWebBench(ctx)
  return [harness, mainSide, firstWeb]
}

export default startupBench

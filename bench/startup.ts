// Benchmark 5: start-up with a warm database. From the call that launches the browser
// harness (services, the sandbox profile's embedded simulator, the HTTP harness) through
// launching Chromium and opening the main window on the orders view, to the first order
// rows in the table. The renderer is built beforehand (a packaged app ships it built).
// Baseline: the same start with a warm database of 1,000 orders, so the line shows what
// the size of the database adds; and the embedded sandbox's own generation time for
// each size, measured alone, because a live profile does not pay it.
import { startWebApp } from '../src/web/app'
import { buildRenderer } from '../src/web/build-renderer'
import { startSandbox } from '../src/sandbox'
import { launchChromium, VIEWPORT, viewUrl } from './lib/browser'
import { round } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { warmDataDir, type WarmData } from './lib/warm-app'

export const WARM_ORDERS = Number(process.env.BENCH_WARM_ORDERS ?? 143_500)
const SMALL_ORDERS = 1_000

interface StartupFigures {
  totalMs: number
  harnessMs: number
  browserLaunchMs: number
  pageToFirstRowsMs: number
  embeddedSandboxMs: number
  rowsInView: number
}

async function measure(warm: WarmData, staticDir: string): Promise<StartupFigures> {
  // The embedded simulator's generation alone, outside the timed start.
  const g0 = performance.now()
  const alone = await startSandbox(warm.sandbox)
  const embeddedSandboxMs = performance.now() - g0
  await alone.close()

  const t0 = performance.now()
  const app = await startWebApp({ dataDir: warm.dataDir, sandbox: warm.sandbox, staticDir })
  const t1 = performance.now()
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: VIEWPORT })
    const t2 = performance.now()
    await page.goto(viewUrl(app.openUrl, 'orders'))
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
    await app.close()
  }
}

export async function startupBench(ctx: BenchContext): Promise<BenchLine> {
  const staticDir = await buildRenderer({ quiet: true })
  const warm = await warmDataDir(ctx, WARM_ORDERS)
  const small = await warmDataDir(ctx, SMALL_ORDERS)
  ctx.log(`startup: ${WARM_ORDERS} orders, then ${SMALL_ORDERS}`)
  const big = await measure(warm, staticDir)
  const base = await measure(small, staticDir)
  return {
    bench: 'startup',
    what: `startWebApp on a warm data directory (sandbox profile, ${WARM_ORDERS} orders synced for all 8 fiat types, embedded sandbox seeded with the same orders), Chromium launch, main window opened on #/orders, until the first tr[data-order]; renderer prebuilt`,
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
      pageToFirstRowsRatio: round(big.pageToFirstRowsMs / base.pageToFirstRowsMs, 2)
    }
  }
}

export default startupBench

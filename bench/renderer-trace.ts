// A Chromium performance trace of the orders view, for finding where a filter change, a
// search and a scroll step spend the renderer's main thread (not a benchmark: it prints
// the trace's main-thread time by kind of work per action, and keeps the trace to open in
// Chrome's Performance panel). The same app as the renderer bench, smaller by default:
//   npx tsx bench/renderer-trace.ts [--orders 30000] [--out test-results/renderer-trace]
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startWebApp } from '../src/web/app'
import { buildRenderer } from '../src/web/build-renderer'
import { launchChromium, VIEWPORT, viewUrl } from './lib/browser'

interface TraceEvent {
  name: string
  cat: string
  ph: string
  ts: number
  dur?: number
  pid: number
  tid: number
  args?: { name?: string; data?: Record<string, unknown> }
}

/** The renderer main thread's top-level work by kind, in ms, between the marks of one action. */
function breakdown(events: TraceEvent[], from: number, to: number, pid: number, tid: number): Record<string, number> {
  const kinds: Record<string, string> = {
    FunctionCall: 'script',
    EvaluateScript: 'script',
    'v8.callFunction': 'script',
    TimerFire: 'script',
    FireAnimationFrame: 'script',
    EventDispatch: 'script',
    XHRLoad: 'script',
    XHRReadyStateChange: 'script',
    RunMicrotasks: 'script',
    UpdateLayoutTree: 'style',
    Layout: 'layout',
    PrePaint: 'paint',
    Paint: 'paint',
    Layerize: 'paint',
    'LocalFrameView::RunPostLifecycleSteps': 'other',
    HitTest: 'other'
  }
  const out: Record<string, number> = {}
  // Nested events are counted once, by their outermost known kind.
  const open: Array<{ end: number }> = []
  const sorted = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.ts >= from && e.ts <= to && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))
  for (const e of sorted) {
    while (open.length && open[open.length - 1]!.end <= e.ts) open.pop()
    const kind = kinds[e.name]
    if (!kind) continue
    if (open.length === 0) out[kind] = (out[kind] ?? 0) + e.dur! / 1000
    open.push({ end: e.ts + e.dur! })
  }
  for (const k of Object.keys(out)) out[k] = Math.round(out[k]! * 10) / 10
  return out
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { orders: { type: 'string', default: '30000' }, out: { type: 'string', default: 'test-results/renderer-trace' } }
  })
  const outDir = resolve(values.out!)
  await mkdir(outDir, { recursive: true })
  const staticDir = await buildRenderer({ quiet: true, outDir: join(outDir, 'web'), force: true, minify: false })
  const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-trace-'))
  const app = await startWebApp({ dataDir, sandbox: { orders: Number(values.orders), seed: 11 }, staticDir })
  const browser = await launchChromium()
  try {
    const h = app.services.handlers
    for (;;) {
      const { states } = await h['sync:state']({})
      if (states.length > 0 && states.every((s) => s.lastSuccessAt !== null && !s.running)) break
      await new Promise((r) => setTimeout(r, 200))
    }
    const page = await browser.newPage({ viewport: VIEWPORT })
    await page.goto(viewUrl(app.openUrl, 'orders'))
    await page
      .locator('table.orders tbody tr[data-order]')
      .first()
      .waitFor({ timeout: 60_000 })
      .catch(async (e: unknown) => {
        await page.screenshot({ path: join(outDir, 'no-rows.png') })
        throw e
      })
    await page.waitForTimeout(1000)
    const tracePath = join(outDir, 'trace.json')
    await browser.startTracing(page, {
      path: tracePath,
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8.execute']
    })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
    await cdp.send('Profiler.start')
    const mark = (name: string) => page.evaluate((n) => performance.mark(n), name)
    const fiat = page.locator('form.filters label.field', { hasText: 'Status' }).locator('select')
    for (const v of ['completed', '', 'failed', '']) {
      await mark(`filter:${v}:start`)
      await fiat.selectOption(v)
      await page.waitForTimeout(400)
      await mark(`filter:${v}:end`)
    }
    const search = page.getByTestId('orders-search')
    for (const text of ['rd-3', '0x', '']) {
      await search.fill('')
      await page.waitForTimeout(300)
      await mark(`search:${text}:start`)
      await search.pressSequentially(text)
      await page.waitForTimeout(600)
      await mark(`search:${text}:end`)
    }
    await mark('scroll:start')
    // A string, not a function: tsx's helpers do not exist in the page.
    await page.evaluate(`new Promise((done) => {
      const sc = document.querySelector('[data-testid="orders-scroller"]')
      let n = 0
      const step = () => { sc.scrollTop += 96; if (++n < 120) requestAnimationFrame(step); else done() }
      requestAnimationFrame(step)
    })`)
    await mark('scroll:end')
    const { profile } = await cdp.send('Profiler.stop')
    await browser.stopTracing()
    // Self time by function, over every action.
    const self = new Map<string, number>()
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    const dts = profile.timeDeltas ?? []
    ;(profile.samples ?? []).forEach((id, k) => {
      const n = byId.get(id)!
      const f = n.callFrame
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}:${f.columnNumber}`
      self.set(key, (self.get(key) ?? 0) + (dts[k + 1] ?? 0) / 1000)
    })
    console.log('self time (ms), top 25:')
    for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${v.toFixed(1).padStart(8)} ${k}`)
    const trace = JSON.parse(await readFile(tracePath, 'utf8')) as { traceEvents: TraceEvent[] }
    const ev = trace.traceEvents
    const marks = ev.filter((e) => e.cat.includes('blink.user_timing') && (e.ph === 'R' || e.ph === 'I' || e.ph === 'n' || e.ph === 'b'))
    const main = ev.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && marks.some((m) => m.pid === e.pid))
    if (!main) throw new Error('no renderer main thread in the trace')
    const at = (n: string) => marks.find((m) => m.name === n)?.ts
    for (const name of [...new Set(marks.map((m) => m.name.replace(/:(start|end)$/, '')))]) {
      const a = at(`${name}:start`)
      const b = at(`${name}:end`)
      if (a === undefined || b === undefined) continue
      console.log(name.padEnd(20), JSON.stringify(breakdown(ev, a, b, main.pid, main.tid)))
    }
    console.log(`trace: ${tracePath}`)
  } finally {
    await browser.close()
    await app.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

await main()

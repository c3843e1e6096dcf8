// Benchmark 4: the renderer's orders view over 100,000+ rows, in the system Chromium
// through the browser harness as `npm run web` starts it (the sandbox profile, its
// embedded simulator generating a tick every 2 s, settings as shipped), measured through
// the UI the way an operator uses it. The app forgets the sandbox profile's orders when
// its simulator starts (src/main/store/sandbox-run.ts), so the bench lets the app's own
// start-up sync fill the onramp tab, then measures while the simulator keeps writing:
//   - time to first rows: navigation start to the first painted order row;
//   - filter latency: a select changed (status, fiat, coin, network) until the table
//     shows main's answer to that filter (its total and first row), painted; a new value
//     apart from going back to "any" (which the window shows from a page it kept);
//   - search latency: real key presses, typed at once and at 120 ms a key, until the
//     table shows main's answer to the text typed, painted, from the last key press:
//     3+ character texts (prefixes and substrings of stored values) apart from 1-2
//     character ones, which the view sends only after its pause in typing
//     (SHORT_SEARCH_PAUSE_MS, included in their figure), and apart from clearing the box;
//   - scroll frame time: one scroll step per frame, time from the frame's start to the
//     end of its rendering work (a message posted from requestAnimationFrame arrives
//     after the frame's style, layout and paint), steady (3 rows a frame) and flung
//     (60 rows a frame); beside it the same loop without scrolling (the method's floor);
//   - renderer JS heap after all of that (after a forced GC), beside the settings view's;
//   - the JS bundle gzipped, beside its target.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { gzipSync } from 'node:zlib'
import type { Page } from '@playwright/test'
import { startWebApp } from '../src/web/app'
import { buildRenderer } from '../src/web/build-renderer'
import type { OrderFilter } from '../src/shared/ipc/contract'
import { SHORT_SEARCH_PAUSE_MS } from '../src/renderer/src/lib/search-pause'
import { launchChromium, VIEWPORT, viewUrl } from './lib/browser'
import { benchSize } from './lib/smoke'
import { round, summary } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'
import { filterValueSteps, searchTexts } from './lib/order-inputs'
import { INIT_SCRIPT } from './renderer-page'

const LATENCY_TARGET_MS = 50
const SHORT_SEARCH_TARGET_MS = 300
/** A person typing: ms between key presses. */
const HUMAN_KEY_DELAY_MS = 120
const FRAME_TARGET_MS = 16.7
/** The main thread's work to show a new window of rows (renderWork), and main's query for it. */
const RENDER_WORK_TARGET_MS = 16
const MAIN_QUERY_TARGET_MS = 10
const BUNDLE_TARGET_KB = 250
/** The onramp rows the targets are set on. */
const TARGET_ROWS = 100_000
/**
 * The embedded simulator's orders (BENCH_RENDERER_ORDERS): 143,500 with seed 11 gives
 * about 100,000 onramp orders (in every fiat the sandbox uses: the app finds and syncs
 * each), the orders view's first tab.
 */
const ORDERS = benchSize('BENCH_RENDERER_ORDERS', 143_500, 500)
const SEED = 11
/**
 * BENCH_RENDERER_ROUNDS=N repeats the filter changes and searches N times (default 1:
 * 44 changes and 22 searches), for a steadier p95 when comparing two versions.
 */
const ROUNDS = Math.max(1, benchSize('BENCH_RENDERER_ROUNDS', 1, 1) || 1)
/** Passes over the filter steps per round (a value, then back to "any"). */
const FILTER_PASSES = benchSize(null, 2, 1)
/** Search texts of each length kept (all of them in a real run). */
const SEARCH_TEXTS = benchSize(null, Infinity, 1)
/** Frames measured: the idle loop, the steady scroll and the fling. */
const FRAMES = { idle: benchSize(null, 120, 10), steady: benchSize(null, 300, 20), fling: benchSize(null, 150, 10) }
/**
 * BENCH_RENDERER_STATIC=dir measures a renderer built before (its out/web), so two
 * versions can be compared in interleaved runs against the same main side.
 */
const PREBUILT = process.env.BENCH_RENDERER_STATIC

/** An answer's way through the page, in ms (INIT_SCRIPT's parts()); null where it was not seen. */
interface AnswerParts {
  /** Sent to arrived. */
  rpcMs: number | null
  /** Arrived to shown (painted). */
  renderMs: number | null
  /** Of renderMs, the main thread's work: the page's handling of the answer, and the frame that shows it from its start. */
  renderWorkMs: number | null
  /** The channel in the harness (invokeChannel: the input's parse and the handler). */
  appMs: number | null
  /** The harness's whole time on the request, app included. */
  harnessMs: number | null
  /** The wire's parts, from the query's resource timing (INIT_SCRIPT's wireOf()). */
  wire: WireParts | null
}

interface WireParts {
  /** In Chromium before the request went out (a connection to wait for). */
  queuedMs: number
  /** Sent to the answer's first byte, less the harness's time: main busy with other work before it read the request. */
  toMainMs: number
  /** The answer's bytes. */
  bytesMs: number
  /** The answer's end to its load event: the page's main thread busy before it dispatched it. */
  toPageMs: number
}

/** The way of the answers to one kind of action, split where the page and the harness can tell. */
class Parts {
  readonly main: number[] = []
  /** The harness's part around the channel: the body read and parsed, the answer serialized. */
  readonly harness: number[] = []
  /** The rest of the round trip: the loopback HTTP and Chromium's network stack, both ways. */
  readonly wire: number[] = []
  readonly render: number[] = []
  readonly renderWork: number[] = []
  readonly wireParts: Record<keyof WireParts, number[]> = { queuedMs: [], toMainMs: [], bytesMs: [], toPageMs: [] }

  add(r: AnswerParts, mainMs: number | undefined): void {
    if (r.wire) for (const k of Object.keys(this.wireParts) as (keyof WireParts)[]) this.wireParts[k].push(r.wire[k])
    if (mainMs !== undefined) this.main.push(mainMs)
    if (r.harnessMs !== null && r.appMs !== null) this.harness.push(Math.max(0, r.harnessMs - r.appMs))
    if (r.rpcMs !== null && r.harnessMs !== null) this.wire.push(Math.max(0, r.rpcMs - r.harnessMs))
    if (r.renderMs !== null) this.render.push(r.renderMs)
    if (r.renderWorkMs !== null) this.renderWork.push(r.renderWorkMs)
  }

  at(p: 'p50' | 'p95'): Record<string, number> {
    return {
      mainQuery: summary(this.main)[p],
      transport: summary(this.harness.map((h, i) => h + (this.wire[i] ?? 0)))[p],
      harness: summary(this.harness)[p],
      wire: summary(this.wire)[p],
      render: summary(this.render)[p],
      renderWork: summary(this.renderWork)[p]
    }
  }

  /** The wire's parts at p (each its own percentile: they need not add up to the wire's). */
  wireAt(p: 'p50' | 'p95'): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [k, v] of Object.entries(this.wireParts)) out[k.replace(/Ms$/, '')] = summary(v)[p]
    return out
  }
}

/**
 * What Electron's IPC would add to the same answers instead of the harness's HTTP: it
 * copies the value by structured clone (V8's serializer in main, its deserializer in the
 * renderer). Measured here on the answers the page got, in Node; the hop between the two
 * processes is not in it, and no Electron runs on this machine.
 */
function ipcCopyMs(answers: readonly unknown[]): { p50: number; p95: number; n: number } {
  const ms = answers.map((a) => {
    const t0 = performance.now()
    deserialize(serialize(a))
    return performance.now() - t0
  })
  const s = summary(ms)
  return { p50: s.p50, p95: s.p95, n: s.n }
}

/** What INIT_SCRIPT puts on window.__bench. */
interface PageBench {
  total(): number
  load(): { firstRows: number | null; fcp: number | null }
  selectChange(label: string, optionValue: string, key: string): Promise<{ ms: number } & AnswerParts>
  armSearch(key: string, text: string): void
  searchDone(key: string): Promise<{ fromKey: number; fromQuery: number | null } & AnswerParts>
  scrollTop(): void
  scrollFrames(frames: number, stepPx: number): Promise<{ frames: number[]; loadingFrames: number }>
}

/** Calls window.__bench.<name>(...args) in the page. */
function inPage<K extends keyof PageBench>(
  page: Page,
  name: K,
  ...args: Parameters<PageBench[K]>
): Promise<Awaited<ReturnType<PageBench[K]>>> {
  return page.evaluate(
    ({ name, args }) => {
      const b = (globalThis as unknown as { __bench: Record<string, (...a: unknown[]) => unknown> }).__bench
      return b[name]!(...args)
    },
    { name, args: args as unknown[] }
  ) as Promise<Awaited<ReturnType<PageBench[K]>>>
}

/** The filter's fields in name order, as the page's keyOf() writes them. */
function filterKey(f: OrderFilter): string {
  const o = f as Record<string, unknown>
  return JSON.stringify(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]])
  )
}

async function bundleGzipKb(staticDir: string): Promise<{ js: number; css: number; files: number }> {
  const assets = join(staticDir, 'assets')
  let js = 0
  let css = 0
  let files = 0
  for (const f of await readdir(assets)) {
    const gz = gzipSync(await readFile(join(assets, f)), { level: 9 }).length
    if (f.endsWith('.js')) {
      js += gz
      files++
    } else if (f.endsWith('.css')) css += gz
  }
  return { js: round(js / 1024, 1), css: round(css / 1024, 1), files }
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  const { usedSize } = await cdp.send('Runtime.getHeapUsage')
  await cdp.detach()
  return round(usedSize / (1024 * 1024), 1)
}

/** Types `text` into the search box (replacing what is there), `delay` ms between keys; latency from the last key and from the query. */
async function searchLatency(
  page: Page,
  text: string,
  delay: number
): Promise<{ fromKey: number; fromQuery: number | null } & AnswerParts> {
  const key = filterKey(text === '' ? { type: 1 } : { type: 1, search: text })
  await page.getByTestId('orders-search').click()
  await inPage(page, 'armSearch', key, text)
  await page.keyboard.press('ControlOrMeta+A')
  if (text === '') await page.keyboard.press('Backspace')
  else await page.keyboard.type(text, { delay })
  return inPage(page, 'searchDone', key)
}

export async function rendererBench(ctx: BenchContext): Promise<BenchLine> {
  const staticDir = PREBUILT ?? (await buildRenderer({ quiet: true }))
  if (PREBUILT) ctx.log(`renderer: NOTE measuring the renderer built in ${PREBUILT}`)
  const bundle = await bundleGzipKb(staticDir)
  // As `npm run web -- --orders N --seed S` starts it: the sandbox profile, its embedded
  // simulator generating (tick every 2 s), no settings file.
  const app = await startWebApp({ dataDir: join(ctx.tmp, 'renderer-app'), sandbox: { orders: ORDERS, seed: SEED }, staticDir })
  // Time the services' side of every orders:query the page sends (SQL and row mapping).
  const queryMs: number[] = []
  /** First pages main answered (up to 200), for the IPC copy's estimate at the end. */
  const firstPages: unknown[] = []
  const handlers = app.services.handlers
  const query = handlers['orders:query']
  handlers['orders:query'] = async (input) => {
    const t0 = performance.now()
    try {
      const out = await query(input)
      if (input.offset === 0 && firstPages.length < 200) firstPages.push(out)
      return out
    } finally {
      queryMs.push(performance.now() - t0)
    }
  }
  const browser = await launchChromium()
  try {
    // The start-up sync fills the onramp tab (the sandbox profile starts empty): wait
    // until every scope has synced once and none runs. The simulator keeps writing after.
    const h = app.services.handlers
    const s0 = performance.now()
    for (let i = 0; ; i++) {
      const { states } = await h['sync:state']({})
      if (states.length > 0 && states.every((s) => s.lastSuccessAt !== null && !s.running)) break
      if (i > 9000) throw new Error('the start-up sync did not finish in 15 minutes')
      await new Promise((r) => setTimeout(r, 100))
    }
    const startupSyncMs = Math.round(performance.now() - s0)
    const all = (await h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).total
    ctx.log(`renderer: start-up sync took ${(startupSyncMs / 1000).toFixed(1)} s; orders view over ${all} onramp rows`)
    if (all < TARGET_ROWS)
      ctx.log(`renderer: NOTE the targets are set on ${TARGET_ROWS} rows; BENCH_RENDERER_ORDERS=${ORDERS} gives ${all}`)
    const context = await browser.newContext({ viewport: VIEWPORT })
    await context.addInitScript(INIT_SCRIPT)
    const page = await context.newPage()
    await page.goto(viewUrl(app.openUrl, 'orders'))
    for (let i = 0; (await inPage(page, 'total')) < all || (await inPage(page, 'load')).firstRows === null; i++) {
      if (i > 600) throw new Error(`the orders view did not show ${all} rows`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const load = await inPage(page, 'load')

    // ---- filters: each select to a value and back to "any", twice
    ctx.log('renderer: filters')
    const steps = filterValueSteps(await h['config:get']({}))
    const filterMs: number[] = []
    // A value set (new), and set back to "any" (a filter seen a moment ago: the window keeps its first page).
    const filterNewValueMs: number[] = []
    const filterBackToAnyMs: number[] = []
    const filterParts = new Parts()
    // The page's main-thread work per change (Chrome's counters read before and after it),
    // which unlike the latency does not include the wait for the next frame.
    const filterThread = { script: [] as number[], layout: [] as number[], style: [] as number[], all: [] as number[] }
    // Chrome's main-thread counters (s), read around a filter change here and around the steady scroll below.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    type Counters = Record<string, number>
    const counters = async (): Promise<Counters> =>
      Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]))
    /** Milliseconds a counter grew from a to b. */
    const spent = (a: Counters, b: Counters, name: string) => ((b[name] ?? 0) - (a[name] ?? 0)) * 1000
    for (let round2 = 0; round2 < FILTER_PASSES * ROUNDS; round2++) {
      for (const step of steps) {
        for (const s of [step, { ...step, text: 'any', value: undefined }]) {
          const filter: OrderFilter = s.value === undefined ? { type: 1 } : ({ type: 1, [s.key]: s.value } as OrderFilter)
          queryMs.length = 0
          const c0 = await counters()
          const r = await inPage(page, 'selectChange', s.label, s.value === undefined ? '' : String(s.value), filterKey(filter))
          const c1 = await counters()
          filterThread.script.push(spent(c0, c1, 'ScriptDuration'))
          filterThread.layout.push(spent(c0, c1, 'LayoutDuration'))
          filterThread.style.push(spent(c0, c1, 'RecalcStyleDuration'))
          filterThread.all.push(spent(c0, c1, 'TaskDuration'))
          filterMs.push(r.ms)
          ;(s.value === undefined ? filterBackToAnyMs : filterNewValueMs).push(r.ms)
          // The first page's query in main is the last one timed for this step.
          filterParts.add(r, queryMs[queryMs.length - 1])
        }
      }
    }

    // ---- search: real key presses, at once and at a person's pace; texts taken from rows across the table
    ctx.log('renderer: search')
    const rows = []
    for (const offset of [17, Math.floor(all / 3), Math.floor((2 * all) / 3)]) {
      const r = (await h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset, limit: 1 })).rows[0]
      if (r) rows.push(r)
    }
    const found = searchTexts(rows)
    const texts = { long: found.long.slice(0, SEARCH_TEXTS), short: found.short.slice(0, SEARCH_TEXTS) }
    const PACES = { atOnce: 0, human: HUMAN_KEY_DELAY_MS } as const
    type Pace = keyof typeof PACES
    const longMs: Record<Pace, number[]> = { atOnce: [], human: [] }
    const shortMs: Record<Pace, number[]> = { atOnce: [], human: [] }
    const clearedMs: number[] = []
    const fromQuery: number[] = []
    /** The result's query, sent to answered (main and transport). */
    const searchRpcMs: number[] = []
    const searchMainMs: number[] = []
    const searchParts = new Parts()
    const shortParts = new Parts()
    for (let r = 0; r < ROUNDS; r++) {
      for (const pace of Object.keys(PACES) as Pace[]) {
        for (const text of [...texts.long, ...texts.short]) {
          for (const typed of [text, '']) {
            queryMs.length = 0
            const res = await searchLatency(page, typed, PACES[pace])
            if (typed === '') clearedMs.push(res.fromKey)
            else (typed.length < 3 ? shortMs : longMs)[pace].push(res.fromKey)
            if (process.env.BENCH_DEBUG)
              ctx.log(`search ${JSON.stringify(typed)} (${pace}): ${res.fromKey.toFixed(1)} ms from the key, rpc ${res.rpcMs?.toFixed(1)}`)
            if (typed.length > 0) (typed.length < 3 ? shortParts : searchParts).add(res, queryMs[queryMs.length - 1])
            if (typed.length >= 3) {
              if (res.fromQuery !== null) fromQuery.push(res.fromQuery)
              if (res.rpcMs !== null) searchRpcMs.push(res.rpcMs)
              // The result's first page: the last query main answered for this search.
              if (queryMs.length > 0) searchMainMs.push(queryMs[queryMs.length - 1]!)
            }
          }
        }
      }
    }

    // ---- scrolling
    ctx.log('renderer: scrolling')
    await inPage(page, 'scrollTop')
    const idle = await inPage(page, 'scrollFrames', FRAMES.idle, 0)
    const m0 = await counters()
    const steady = await inPage(page, 'scrollFrames', FRAMES.steady, 3 * 32)
    const m1 = await counters()
    const perFrame = (name: string) => round(spent(m0, m1, name) / steady.frames.length, 2)
    const steadyBreakdown = {
      script: perFrame('ScriptDuration'),
      style: perFrame('RecalcStyleDuration'),
      layout: perFrame('LayoutDuration'),
      allTasks: perFrame('TaskDuration')
    }
    await cdp.detach()
    const fling = await inPage(page, 'scrollFrames', FRAMES.fling, 60 * 32)
    const heap = await heapMb(page)

    // ---- baseline heap: the settings view of the same app in a fresh page
    const other = await context.newPage()
    await other.goto(viewUrl(app.openUrl, 'settings'))
    await other.waitForLoadState('networkidle')
    const settingsHeap = await heapMb(other)

    const f = summary(filterMs)
    const fNew = summary(filterNewValueMs)
    const long = summary([...longMs.atOnce, ...longMs.human])
    const short = summary([...shortMs.atOnce, ...shortMs.human])
    const q = summary(fromQuery)
    const st = summary(steady.frames)
    const fl = summary(fling.frames)
    const id = summary(idle.frames)
    const met = {
      rows: all >= TARGET_ROWS,
      filterNewValue: fNew.p95 < LATENCY_TARGET_MS,
      search: long.p95 < LATENCY_TARGET_MS,
      searchShort: short.p95 < SHORT_SEARCH_TARGET_MS,
      scroll: st.p95 < FRAME_TARGET_MS,
      renderWork: summary(filterParts.renderWork).p95 < RENDER_WORK_TARGET_MS,
      mainQuery: summary(filterParts.main).p95 < MAIN_QUERY_TARGET_MS,
      bundle: bundle.js < BUNDLE_TARGET_KB
    }
    return {
      bench: 'renderer',
      what: `Chromium (${process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'}, headless, ${VIEWPORT.width}x${VIEWPORT.height}) on the browser harness as npm run web -- --orders ${ORDERS} --seed ${SEED} starts it (sandbox profile, embedded simulator generating a tick every 2 s, settings as shipped), after its start-up sync; onramp tab; ${f.n} filter changes (${fNew.n} to a new value), ${long.n} searches of 3+ characters and ${short.n} of 1-2 (${texts.long.length} and ${texts.short.length} texts, each typed at once and at ${HUMAN_KEY_DELAY_MS} ms a key), ${clearedMs.length} clearings, ${st.n} steady scroll frames (96 px), ${fl.n} flung frames (1920 px)`,
      rows: all,
      orders: ORDERS,
      startupSyncMs,
      settings:
        'as shipped (no settings file: DEFAULT_SETTINGS, fiatTypes [1], historyPollSeconds 30); SQLite as src/main/store/database.ts opens it',
      firstRowsMs: round(load.firstRows ?? NaN, 0),
      filterNewValueP95Ms: fNew.p95,
      filterNewValueP50Ms: fNew.p50,
      filterBackToAnyP95Ms: summary(filterBackToAnyMs).p95,
      filterAllP95Ms: f.p95,
      // transport = harness + wire; renderWork is the main thread's part of render.
      filterPartsP50Ms: filterParts.at('p50'),
      filterPartsP95Ms: filterParts.at('p95'),
      filterMainThreadP50Ms: {
        script: summary(filterThread.script).p50,
        style: summary(filterThread.style).p50,
        layout: summary(filterThread.layout).p50,
        allTasks: summary(filterThread.all).p50
      },
      searchP95Ms: long.p95,
      searchP50Ms: long.p50,
      searchAtOnceP95Ms: summary(longMs.atOnce).p95,
      searchHumanPaceP95Ms: summary(longMs.human).p95,
      searchShortP95Ms: short.p95,
      searchShortP50Ms: short.p50,
      searchShortAtOnceP95Ms: summary(shortMs.atOnce).p95,
      searchShortHumanPaceP95Ms: summary(shortMs.human).p95,
      searchClearedP95Ms: summary(clearedMs).p95,
      searchQueryToRowsP95Ms: q.p95,
      searchRpcP50Ms: summary(searchRpcMs).p50,
      searchRpcP95Ms: summary(searchRpcMs).p95,
      searchMainQueryP50Ms: summary(searchMainMs).p50,
      searchMainQueryP95Ms: summary(searchMainMs).p95,
      searchPartsP50Ms: searchParts.at('p50'),
      searchPartsP95Ms: searchParts.at('p95'),
      searchShortPartsP50Ms: shortParts.at('p50'),
      searchShortPartsP95Ms: shortParts.at('p95'),
      // The wire's parts (wireOf() in the page): queued, toMain, bytes, toPage.
      filterWireP95Ms: filterParts.wireAt('p95'),
      searchWireP95Ms: searchParts.wireAt('p95'),
      searchShortWireP50Ms: shortParts.wireAt('p50'),
      searchShortWireP95Ms: shortParts.wireAt('p95'),
      ipcCopyOfAnswerMs: ipcCopyMs(firstPages),
      searchTexts: texts,
      scrollFrameP50Ms: st.p50,
      scrollFrameP95Ms: st.p95,
      scrollMainThreadPerFrameMs: steadyBreakdown,
      flingFrameP95Ms: fl.p95,
      flingFramesWithLoadingRows: fling.loadingFrames,
      heapMb: heap,
      bundleGzipKb: bundle.js,
      bundleFiles: bundle.files,
      cssGzipKb: bundle.css,
      baseline: {
        target: {
          filterNewValueP95Ms: LATENCY_TARGET_MS,
          searchP95Ms: LATENCY_TARGET_MS,
          searchShortP95Ms: SHORT_SEARCH_TARGET_MS,
          scrollFrameP95Ms: FRAME_TARGET_MS,
          filterRenderWorkP95Ms: RENDER_WORK_TARGET_MS,
          filterMainQueryP95Ms: MAIN_QUERY_TARGET_MS,
          bundleGzipKb: BUNDLE_TARGET_KB
        },
        firstContentfulPaintMs: round(load.fcp ?? NaN, 0),
        searchDebounceMs: SHORT_SEARCH_PAUSE_MS,
        humanKeyDelayMs: HUMAN_KEY_DELAY_MS,
        idleFrameP95Ms: id.p95,
        settingsViewHeapMb: settingsHeap
      },
      met,
      misses: Object.entries(met)
        .filter(([, ok]) => !ok)
        .map(([k]) => k)
    }
  } finally {
    await browser.close()
    await app.close()
  }
}

export default rendererBench

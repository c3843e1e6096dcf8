// Child process of the scale benchmark. Two commands, each in a fresh process:
//   - setup: a live profile for the sandbox the parent runs (as an operator adds their
//     merchant: profiles:create, secrets:set, profiles:switch), its secret kept the way
//     the Electron shell keeps it where no keychain answers (safeStorage, here its AES-GCM
//     stand-in with a key the parent hands to both commands);
//   - measure: the main side of the app (lib/main-start.ts) started on that data
//     directory, the live profile active with N orders already synced, against the
//     parent's sandbox (generating). It times start-up to the first rows, lets the
//     start-up sync settle, then times, through invokeChannel as the renderer's IPC calls
//     it, the orders:query the orders view sends for each new filter value and each
//     search (first page of 100, newest first; with a search, the other tab's count too).
//     Each filter and search is asked once: main keeps a total until the next write, and
//     a repeat would time that cache, not the query.
// A live profile, not the sandbox profile: the app forgets the sandbox profile's orders
// whenever its embedded simulator starts (src/main/store/sandbox-run.ts), so only a live
// profile starts on N orders already stored.
import { join } from 'node:path'
import { invokeChannel } from '../src/main/handlers/invoke'
import { createServices } from '../src/main/services'
import type { ChannelInput, ChannelName, ContractHandlers, OrderFilter } from '../src/shared/ipc/contract'
import { memorySafeStorage } from '../test/support/memory-safe-storage'
import { serveWorker } from './lib/child'
import { startMainSide, type MainStartFigures } from './lib/main-start'
import { newValueFilters, searchTexts } from './lib/order-inputs'
import { peakRssSampler } from './lib/peak-rss'
import { traceSql, type TracedStatement } from './lib/trace-sql'

const loadedMs = performance.now()
const peakRss = peakRssSampler()

export type ScaleCommand =
  | { cmd: 'setup'; dataDir: string; baseUrl: string; apiKey: string; secret: string; keyHex: string }
  | { cmd: 'measure'; dataDir: string; keyHex: string }

export interface ScaleQueryFigures {
  start: MainStartFigures
  /** ms for the start-up sync of the shipped settings to settle after the first rows. */
  settleMs: number
  filterNewValueMs: number[]
  /** Blocks this process read from the disk during each filter (getrusage's inblock): pages not in memory. */
  filterFsReads: number[]
  searchMs: number[]
  /** Blocks this process read from the disk during each long search (getrusage's inblock): pages not in memory. */
  searchFsReads: number[]
  /**
   * CPU time of this process (every thread) during each long search: against its wall time,
   * how much of the wait was this process working rather than waiting for a CPU.
   */
  searchCpuMs: number[]
  /** Each long search's SQL statements: their time in all, and the slowest (its ms and the start of its text). */
  searchSql: Array<{ ms: number; statements: number; slowestMs: number; slowest: string }>
  searchShortMs: number[]
  searches: { long: string[]; short: string[] }
  /** Peak RSS of this process (the app's services on N orders). */
  peakRssMb: number
}

const shell = (keyHex: string) => ({ keychain: false as const, safeStorage: memorySafeStorage({ key: Buffer.from(keyHex, 'hex') }) })

async function call<C extends ChannelName>(h: ContractHandlers, channel: C, input: ChannelInput<C>) {
  const r = await invokeChannel(h, channel, input)
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`)
  return r.value
}

/** One search's statements: their time in all, how many, and the slowest (its ms and the start of its text). */
function sqlSummary(ran: readonly TracedStatement[]): ScaleQueryFigures['searchSql'][number] {
  const round = (ms: number): number => Math.round(ms * 100) / 100
  const slowest = ran.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, text: '', params: [] })
  return {
    ms: round(ran.reduce((n, r) => n + r.ms, 0)),
    statements: ran.length,
    slowestMs: round(slowest.ms),
    slowest: slowest.text.replace(/\s+/g, ' ').slice(0, 160)
  }
}

serveWorker<ScaleCommand>(async (m) => {
  if (m.cmd === 'setup') {
    const services = await createServices({
      dataDir: m.dataDir,
      exportDir: join(m.dataDir, 'exports'),
      version: 'bench',
      shellKind: 'electron',
      logging: false,
      ...shell(m.keyHex)
    })
    try {
      const h = services.handlers
      const p = await call(h, 'profiles:create', { name: 'Scale bench', baseUrl: m.baseUrl, apiKey: m.apiKey })
      await call(h, 'secrets:set', { profileId: p.id, secret: m.secret })
      await call(h, 'profiles:switch', { id: p.id })
      return { profileId: p.id }
    } finally {
      await services.close()
    }
  }
  const { services, figures } = await startMainSide(m.dataDir, {}, loadedMs, shell(m.keyHex))
  try {
    const h = services.handlers
    // Settled: every scope synced once since the start (the fill's own syncs do not count).
    const s0 = performance.now()
    const since = Date.now() - Math.round(figures.servicesToFirstRowsMs)
    for (let i = 0; i < 3000; i++) {
      const { states } = await h['sync:state']({})
      if (states.length > 0 && states.every((s) => s.lastSuccessAt !== null && s.lastSuccessAt >= since && !s.running)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const settleMs = Math.round(performance.now() - s0)
    const timed = async (filter: OrderFilter): Promise<number> => {
      const t0 = performance.now()
      await call(h, 'orders:query', { filter, sort: 'updatedAt:desc', offset: 0, limit: 100 })
      return performance.now() - t0
    }
    const filterNewValueMs: number[] = []
    const filterFsReads: number[] = []
    for (const f of newValueFilters(await h['config:get']({}))) {
      const reads = process.resourceUsage().fsRead
      filterNewValueMs.push(await timed(f))
      filterFsReads.push(process.resourceUsage().fsRead - reads)
    }
    const total = figures.total
    // Texts of orders from ten places in the store, newest to oldest (about fifty long
    // texts): a p95 over three orders' fifteen was nearly their slowest, and moved with one.
    const rows = []
    for (const offset of [17, ...Array.from({ length: 9 }, (_, i) => Math.floor(((i + 1) * total) / 10))]) {
      const r = (await h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset, limit: 1 })).rows[0]
      if (r) rows.push(r)
    }
    const searches = searchTexts(rows)
    const searchMs: number[] = []
    const searchFsReads: number[] = []
    const searchCpuMs: number[] = []
    const searchSql: ScaleQueryFigures['searchSql'] = []
    const traced = traceSql(services.session().store.database.sql)
    for (const text of searches.long) {
      traced.reset()
      const reads = process.resourceUsage().fsRead
      const cpu = process.cpuUsage()
      searchMs.push(await timed({ type: 1, search: text }))
      const used = process.cpuUsage(cpu)
      searchCpuMs.push(Math.round((used.user + used.system) / 10) / 100)
      searchFsReads.push(process.resourceUsage().fsRead - reads)
      searchSql.push(sqlSummary(traced.ran()))
    }
    traced.restore()
    const searchShortMs: number[] = []
    for (const text of searches.short) searchShortMs.push(await timed({ type: 1, search: text }))
    const result: ScaleQueryFigures = {
      start: figures,
      settleMs,
      filterNewValueMs,
      filterFsReads,
      searchMs,
      searchFsReads,
      searchCpuMs,
      searchSql,
      searchShortMs,
      searches,
      peakRssMb: peakRss()
    }
    return result
  } finally {
    await services.close()
  }
})

process.send?.({ ready: true })

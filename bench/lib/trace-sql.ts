// Every statement a store runs through one Sql, timed, until restored: what the benches and
// probes use to say which statement of a query took its time. The write stamp's own reads
// (Sql.writeStamp, asked before every kept total) are bookkeeping and left out.
import type { Sql } from '../../src/main/store/sql'

export interface TracedStatement {
  text: string
  params: unknown[]
  ms: number
}

const BOOKKEEPING = /^(SELECT total_changes|PRAGMA data_version)/

export function traceSql(sql: Sql): { ran: () => TracedStatement[]; reset: () => void; restore: () => void } {
  const originals = { get: sql.get, all: sql.all, value: sql.value, run: sql.run }
  let ran: TracedStatement[] = []
  for (const name of ['get', 'all', 'value', 'run'] as const) {
    const original = originals[name] as (text: string, ...params: unknown[]) => unknown
    ;(sql as unknown as Record<string, unknown>)[name] = (text: string, ...params: unknown[]) => {
      const t0 = performance.now()
      try {
        return original.call(sql, text, ...params)
      } finally {
        if (!BOOKKEEPING.test(text)) ran.push({ text, params, ms: performance.now() - t0 })
      }
    }
  }
  return {
    ran: () => ran,
    reset: () => void (ran = []),
    restore: () => void Object.assign(sql, originals)
  }
}

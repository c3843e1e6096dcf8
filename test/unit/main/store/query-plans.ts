// The query plans of what a store read asks its database: a test of a plan (an index
// sought, no sort of every match) runs the read through withPlans and looks at the plans.
import type { Sql } from '../../../../src/main/store/sql'

/**
 * What fn returns, and the query plan (EXPLAIN QUERY PLAN lines) of every statement it
 * asked `sql`: all of them in `plans`, and each statement's apart in `statements`.
 */
export function withPlans<T>(sql: Sql, fn: () => T): { value: T; plans: string[]; statements: Array<{ text: string; plan: string[] }> } {
  const ran: Array<{ text: string; params: unknown[] }> = []
  const { all, get, value } = sql
  sql.all = ((text: string, ...params: never[]) => (ran.push({ text, params }), all.call(sql, text, ...params))) as typeof sql.all
  sql.get = ((text: string, ...params: never[]) => (ran.push({ text, params }), get.call(sql, text, ...params))) as typeof sql.get
  sql.value = ((text: string, ...params: never[]) => (ran.push({ text, params }), value.call(sql, text, ...params))) as typeof sql.value
  let out: T
  try {
    out = fn()
  } finally {
    Object.assign(sql, { all, get, value })
  }
  const statements = ran.map(({ text, params }) => ({
    text,
    plan: sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, ...(params as never[])).map((p) => p.detail)
  }))
  return { value: out, plans: statements.flatMap((s) => s.plan), statements }
}

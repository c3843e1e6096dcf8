// A merchantHistory page read record by record: a record that does not match its schema is
// kept apart (raw, with the reason and whatever id and time could be read) instead of
// failing the page, so one malformed order never blocks its scope.
import { z } from 'zod'
import {
  OfframpOrder,
  OnrampOrder,
  Timestamp,
  type OfframpOrder as OfframpRecord,
  type OnrampOrder as OnrampRecord
} from '../../shared/api/schemas'
import { firstIssue, formatIssue } from './schema-issues'

/** One record of a history page that did not match its schema: kept raw, never blocking the page. */
export interface RejectedRecord {
  /** Position in the page. */
  index: number
  raw: unknown
  /** "path: message" of the first mismatch, the path inside the record. */
  reason: string
  path: string
  /** What could still be read of it. */
  orderId: number | null
  updatedAt: string | null
}

export interface HistoryPageResult<R> {
  records: R[]
  rejected: RejectedRecord[]
  /** Records in the answer, readable or not: a full page means there may be more. */
  size: number
}

/** An order id as the service may write it: an integer, or its digits in a string. */
const OrderIdOf = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
])

export function readHistoryPage(data: readonly unknown[], type: 1 | 2): HistoryPageResult<OnrampRecord | OfframpRecord> {
  const schema = type === 2 ? OfframpOrder : OnrampOrder
  const out: HistoryPageResult<OnrampRecord | OfframpRecord> = { records: [], rejected: [], size: data.length }
  data.forEach((raw, index) => {
    const r = schema.safeParse(raw)
    if (r.success) return void out.records.push(r.data)
    const o = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {}
    const id = OrderIdOf.safeParse(o.orderId)
    const at = Timestamp.safeParse(o.updatedAt)
    out.rejected.push({
      index,
      raw,
      reason: formatIssue(r.error.issues),
      path: firstIssue(r.error.issues).path,
      orderId: id.success ? id.data : null,
      updatedAt: at.success ? at.data : null
    })
  })
  return out
}

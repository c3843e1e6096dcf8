// What a webhook body says about WHICH order it is: the fields an order never changes,
// each read on its own, so that a body which is no whole record (one field failed its
// schema) still tells what it can, and the monitor can compare that with the order held
// under the body's id before it writes anything (monitor/webhook-ingest.ts).
import { Id, Timestamp, isZonelessTime } from '../../shared/api/schemas'

/** The fields an order never changes, as one webhook body gives them; absent when not given or not readable. */
export interface BodyIdentity {
  /** ISO 8601 UTC, normalised as the record schemas do. */
  createdAt?: string
  /** createdAt was written without a zone: read as UTC, though it may be the sender's local time. */
  createdAtZoneless?: boolean
  coinId?: number
  chainId?: number
  fiatType?: number
  walletAddress?: string
  merchantRecognitionId?: string
}

/** An SQL DATETIME ("2026-11-24 10:00:00"), as a writer without the ISO `T` gives it. */
const SPACED_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:)/

function text(v: unknown): string | undefined {
  const s = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : ''
  return s === '' ? undefined : s
}

function id(v: unknown): number | undefined {
  const r = Id.safeParse(v)
  return r.success ? r.data : undefined
}

/** The identity fields of a body (a raw webhook body, or a record already parsed), each one that can be read. */
export function readIdentity(body: Record<string, unknown>): BodyIdentity {
  const out: BodyIdentity = {}
  if (typeof body.createdAt === 'string') {
    const raw = body.createdAt.trim().replace(SPACED_TIME, '$1T$2')
    const t = Timestamp.safeParse(raw)
    if (t.success) {
      out.createdAt = t.data
      if (isZonelessTime(raw)) out.createdAtZoneless = true
    }
  }
  const coinId = id(body.coinId)
  const chainId = id(body.chainId)
  const fiatType = id(body.fiatType)
  const walletAddress = text(body.walletAddress)
  const merchantRecognitionId = text(body.merchantRecognitionId)
  if (coinId !== undefined) out.coinId = coinId
  if (chainId !== undefined) out.chainId = chainId
  if (fiatType !== undefined) out.fiatType = fiatType
  if (walletAddress !== undefined) out.walletAddress = walletAddress
  if (merchantRecognitionId !== undefined) out.merchantRecognitionId = merchantRecognitionId
  return out
}

/**
 * Whether a body gave a field that tells one order from another: when it was created, the
 * wallet, or the merchant's id for it. Coin, chain and fiat are shared by most of a
 * merchant's orders, so a body giving only those says nothing of which order it is.
 * (createdAt's zone is no field of its own.)
 */
export function saysIdentity(b: BodyIdentity): boolean {
  return b.createdAt !== undefined || !!b.walletAddress || !!b.merchantRecognitionId
}

// What one webhook request is worth: the verdict the inbox stores and answers with.
//
// The rule: a delivery is **verified** only when
//   1. the HMAC-SHA512 over the x-<service>-payload header, exactly as received, matches
//      the x-<service>-signature under the profile's secret (constant time);
//   2. an order record is read from the signed payload (the {timestamp, body} wrapper's
//      body, or the body-only object: senders write the payload differently, see
//      payload-form.ts); and
//   3. the JSON body equals that signed record exactly, and names no member twice (a
//      receiver's parser may keep the other value: json-members.ts). Exactly means as JSON
//      values read from the two texts, every number compared as the decimal its text
//      writes, never as a float (exact-json.ts): a body whose 1000 stands where the
//      signature covers 1000.00000000000001 would hand a receiver that reads it with a
//      decimal parser another amount than the one signed. Member order, spacing, escapes
//      and a number's spelling (1e3, 1000.0) are free;
//   4. and the payload is inside the replay window and not a repeat (replay-guard.ts).
// Anything else is refused and stored unverified with the reason, even when the signature
// itself is genuine. A genuine signature is easy to come by (an operator can have the
// service sign a dummy to any URL; the merchant's own API requests are signed with the
// same secret), so a body the signature does not cover must never pass as verified: a
// receiver that reads the JSON body (as the live notes tell receivers to) would accept a
// forged order. The team hub relays only verified deliveries, so this is also its rule.
//
// A body that is no whole order record (the live notes call its updatedAt internal and due
// to go) but names an order and a status is verified as that status alone, which the
// monitor applies only to an order not yet finished, and only when the identity fields the
// body gives (body-identity.ts) agree with the order held under its id.
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { verifySignature } from '../../shared/api/signature'
import { exactDifference, readExact, type ExactObject, type ExactValue } from '../../shared/api/exact-json'
import { Int, OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType } from '../../shared/ipc/contract'
import { contentHash } from '../store/content-hash'
import { withTimeout } from '../abort'
import type { KeptBody } from './delivery-read'
import { hasDuplicateMembers } from './json-members'
import { readPayload, type ReadPayload } from './payload-form'
import { readIdentity, type BodyIdentity } from './body-identity'
import type { ReplayGuard } from './replay-guard'

/** A verified webhook's order: the record (or its id and status alone), and what its body says about which order it is. */
export type WebhookRecord =
  | { type: 1; record: OnrampOrder; identity: BodyIdentity }
  | { type: 2; record: OfframpOrder; identity: BodyIdentity }
  /** A body that is no full record (e.g. without updatedAt): its order and status only. */
  | { type: OrderType; record: { orderId: number; status: number }; statusOnly: true; identity: BodyIdentity }

/** What happened to one request, before it is stored and answered. */
export interface Verdict {
  httpStatus: number
  verified: boolean
  reason: string
  payloadHeader: string | null
  /** How the signed payload was written; null when it was never read (signature not checked or wrong). */
  payloadForm?: string
  /** Refused as a replay (outside the window, or an exact repeat). */
  replay?: boolean
  /** A stable name for a refusal whose reason text varies (e.g. with an age): keeps its repeats on one log row. */
  refusal?: string
  /** What the operator should know about a delivery beyond its reason. */
  notes?: string[]
  webhook?: WebhookRecord
  /** The signed order record the delivery was verified against (what a relay may send on). */
  source?: Record<string, unknown>
  /** Order fields for the log, also when unverified (they are then only what the sender claimed). */
  claimed?: { type: OrderType | null; orderId: number | null; status: number | null; updatedAt: string | null }
}

export interface JudgeContext {
  serviceName: string
  getSecret: () => Promise<string | null | undefined> | string | null | undefined
  replays: ReplayGuard
}

/** The verdict on a request whose body arrived whole (`text`), within `secretBudgetMs` for reading the secret. */
export async function judge(req: IncomingMessage, text: string, ctx: JudgeContext, secretBudgetMs: number): Promise<Verdict> {
  const { serviceName } = ctx
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  const signature = headerValue(req, `x-${serviceName}-signature`)
  const base = { payloadHeader, verified: false as const }

  const contentType = (req.headers['content-type'] ?? '').toLowerCase()
  if (contentType && !/^application\/([a-z0-9.+-]+\+)?json\b/.test(contentType)) {
    return { ...base, httpStatus: 415, reason: `content type ${contentType.slice(0, 100)} is not JSON` }
  }
  // The signature first, over the header alone: nothing of the body is parsed for a sender
  // who does not hold the secret (a stranger's megabyte of nested JSON costs no CPU). What
  // the body claims is read for the log only when it is small.
  const claimed = text.length <= CLAIM_READ_LIMIT ? claimedOrder(tryParse(text)) : undefined
  if (payloadHeader === null) return { ...base, claimed, httpStatus: 401, reason: `missing header x-${serviceName}-payload` }
  if (signature === null) return { ...base, claimed, httpStatus: 401, reason: `missing header x-${serviceName}-signature` }

  let secret: string | null | undefined
  try {
    secret = await withTimeout(Promise.resolve(ctx.getSecret()), Math.max(100, secretBudgetMs), 'the secret store')
  } catch {
    return { ...base, claimed, httpStatus: 503, reason: 'the API secret could not be read in time; the sender will retry' }
  }
  if (!secret) return { ...base, claimed, httpStatus: 503, reason: 'no API secret is stored for this profile: cannot verify' }
  if (!verifySignature(payloadHeader, signature, secret)) {
    return { ...base, claimed, httpStatus: 401, reason: "signature does not match the payload under this profile's secret" }
  }
  let json: unknown
  let exact: ExactValue
  try {
    json = JSON.parse(text)
    exact = readExact(text)
  } catch {
    return { ...base, claimed, httpStatus: 400, reason: 'the body is not JSON' }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || exact.kind !== 'object') {
    return { ...base, claimed, httpStatus: 400, reason: 'the body is not a JSON object' }
  }
  if (hasDuplicateMembers(text)) {
    return {
      ...base,
      claimed: claimedOrder(json),
      httpStatus: 400,
      refusal: 'duplicate-members',
      reason: 'the body names a member twice: parsers disagree on which value counts, so it is refused'
    }
  }
  const read = readPayload(payloadHeader)
  const notes = read.note ? [read.note] : []
  const found = orderOf(read, exact)
  if (!found.ok) {
    // The signature is genuine, but it does not vouch for what this request asks us to act on.
    return {
      ...base,
      claimed: claimedOrder(json),
      httpStatus: 400,
      reason: `signature genuine, but ${found.error}: not applied`,
      refusal: found.refusal,
      payloadForm: read.form,
      notes
    }
  }
  if (read.timestamp === null) notes.push('no timestamp: replay window not applied')
  else {
    // Admitted only now, so a forged body riding on a payload cannot use the payload up.
    const admitted = ctx.replays.admit(payloadHeader, read.timestamp)
    if (!admitted.ok) {
      // Authentic bytes, but not to be acted on again: logged like any refusal (verified: false).
      return {
        ...base,
        claimed: claimedOrder(json),
        httpStatus: admitted.kind === 'repeat' ? 403 : 401,
        reason: admitted.reason,
        refusal: `replay-${admitted.kind}`,
        replay: true,
        payloadForm: read.form,
        notes
      }
    }
  }
  const v = found.value
  if (found.note) notes.push(found.note)
  return {
    payloadHeader,
    verified: true,
    httpStatus: 200,
    payloadForm: read.form,
    notes,
    reason: 'verified',
    webhook: v,
    source: found.source,
    claimed: { type: v.type, orderId: v.record.orderId, status: v.record.status, updatedAt: 'statusOnly' in v ? null : v.record.updatedAt }
  }
}

/** Bodies up to this size are read for what they claim (the log's order id and status) even when unsigned. */
const CLAIM_READ_LIMIT = 16 * 1024

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

type Found =
  | { ok: true; value: WebhookRecord; source: Record<string, unknown>; note?: string }
  | { ok: false; error: string; refusal: 'no-signed-order' | 'body-mismatch' }

/** The order of a delivery whose signature verified: read from the signed payload, and the JSON body must equal it exactly. */
function orderOf(read: ReadPayload, body: ExactObject): Found {
  if (read.signedBody === undefined || read.signedExact === undefined) {
    const what =
      read.form === 'not base64 JSON' || read.form === 'JSON, not an object' ? read.form : 'a wrapper whose body is not a JSON object'
    return {
      ok: false,
      refusal: 'no-signed-order',
      error: `the signed payload is ${what}, so it carries no order record, and the signature does not cover the JSON body`
    }
  }
  const signed = parseRecord(read.signedBody)
  if (!signed.ok) {
    // E.g. one of the merchant's own API requests, captured from the wire: signed with the same secret.
    return { ok: false, refusal: 'no-signed-order', error: `the signed payload is not an order record (${signed.error})` }
  }
  const difference = exactDifference(read.signedExact, body)
  if (difference) {
    const { path, expected, actual } = difference
    return {
      ok: false,
      refusal: 'body-mismatch',
      error: `the JSON body differs from the order record the signature covers at ${path} (the body has ${actual}, the signed record ${expected}; a body the signature does not vouch for)`
    }
  }
  return { ...signed, source: read.signedBody }
}

type ParsedRecord = { ok: true; value: WebhookRecord; note?: string } | { ok: false; error: string }

/**
 * The order a webhook body holds. Offramp bodies carry eventType "offramp"
 * (the live-service notes, Webhooks), in whatever case the sender writes it. A body whose
 * eventType says neither (absent on onramp bodies, and on offramp ones a resend or an older
 * deployment may send) is read by its fields: the onramp record when they make one, else
 * the offramp record (its expectedQuantity is in no onramp record), with a note.
 */
export function parseRecord(body: Record<string, unknown>): ParsedRecord {
  const event = typeof body.eventType === 'string' ? body.eventType.trim().toLowerCase() : undefined
  const identity = readIdentity(body)
  const offramp = (): ParsedRecord => {
    const r = OfframpOrder.safeParse(body)
    return r.success ? { ok: true, value: { type: 2, record: r.data, identity } } : { ok: false, error: issue(r.error) }
  }
  const full = ((): ParsedRecord => {
    if (event === 'offramp') return offramp()
    const r = OnrampOrder.safeParse(body)
    if (r.success) return { ok: true, value: { type: 1, record: r.data, identity } }
    if (event === 'onramp') return { ok: false, error: issue(r.error) }
    const off = offramp()
    if (!off.ok) return { ok: false, error: issue(r.error) }
    const said = event === undefined ? 'no eventType' : `eventType ${JSON.stringify(body.eventType).slice(0, 40)}`
    return { ...off, note: `${said}: read as an offramp order by its fields` }
  })()
  if (full.ok) return full
  // Not a whole record (the live notes say not to rely on the body's updatedAt): an order
  // id and a status are enough for the fast path to apply the status alone, to the order
  // held under that id when the identity fields the body gives agree with it.
  const orderId = Int.safeParse(body.orderId)
  const status = Int.safeParse(body.status)
  if (!orderId.success || !status.success) return full
  const type: OrderType = event === 'offramp' || (event !== 'onramp' && 'expectedQuantity' in body) ? 2 : 1
  return {
    ok: true,
    value: { type, record: { orderId: orderId.data, status: status.data }, statusOnly: true, identity },
    note: `not a whole order record (${full.error}): its status alone is applied`
  }
}

function issue(e: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const i = e.issues[0]
  return i ? `${i.path.map(String).join('.') || 'body'}: ${i.message}` : 'invalid'
}

/** What the body says about its order, for the log only (never trusted when unverified). */
function claimedOrder(json: unknown): Verdict['claimed'] {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined
  const o = json as Record<string, unknown>
  const int = (v: unknown): number | null => {
    const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v
    return typeof n === 'number' && Number.isSafeInteger(n) ? n : null
  }
  const offramp = typeof o.eventType === 'string' ? o.eventType.trim().toLowerCase() === 'offramp' : 'expectedQuantity' in o
  return {
    type: offramp ? 2 : 1,
    orderId: int(o.orderId),
    status: int(o.status),
    updatedAt: typeof o.updatedAt === 'string' ? o.updatedAt : null
  }
}

/** Fields the service changes from one delivery attempt to the next (it counts them). */
const DELIVERY_COUNTERS = new Set(['webhookTrials', 'trials'])

/**
 * Retries of one verified delivery collapse to one row: the same order, status and
 * updatedAt with the same content. The hash leaves out the attempt counters and the
 * payload's timestamp, both of which a retry renews, so a retry is recognised even when it
 * is signed afresh. Unverified deliveries get their own key space, so a forged copy can
 * never be counted as (or suppress) a verified one.
 */
export function dedupeKeyOf(v: Verdict, body: KeptBody): string {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex')
  if (v.verified && v.claimed && v.source) {
    const c = v.claimed
    const content = Object.fromEntries(Object.entries(v.source).filter(([k]) => !DELIVERY_COUNTERS.has(k)))
    return `v1:${c.type}:${c.orderId}:${c.status}:${c.updatedAt}:${contentHash(content)}`
  }
  const bodyHash = body.bodySha256 ?? sha(body.body)
  if (v.verified) return `v1:other:${bodyHash}`
  return `unverified:${v.httpStatus}:${sha(`${v.refusal ?? v.reason}\n${v.payloadHeader ?? ''}\n${bodyHash}`)}`
}

export function headerValue(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name]
  const s = Array.isArray(v) ? v[0] : v
  return s === undefined || s === '' ? null : s
}

// What an alert hook is sent: a Slack-compatible incoming-webhook body ({"text": ...}) in an
// operator's words, or a generic JSON body a merchant's own system reads, signed with the
// hook's secret. Bodies are written once, when the message is queued, so every attempt sends
// the same bytes; the signature is made at each attempt, over its own timestamp.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Alert, OrderRef } from '../../shared/ipc/contract'
import { orderKindLabel } from '../../shared/domain/status'

export type HookFormat = 'slack' | 'json'
export const HOOK_FORMATS: readonly HookFormat[] = ['slack', 'json']

/** What a message says of its alert: it stands now, it no longer does, or an admin's test. */
export type HookEvent = 'raised' | 'cleared' | 'test'

/** The header carrying when a JSON body was signed (epoch ms). */
export const TIMESTAMP_HEADER = 'x-rampdesk-timestamp'
/** The header carrying `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
export const SIGNATURE_HEADER = 'x-rampdesk-signature'

/**
 * What the body builder needs to know of an alert. Kinds this hub does not know yet (the
 * contract gains them) are told by their `text` and `order`, never refused.
 */
export type HookAlert = Pick<Alert, 'kind' | 'id' | 'since' | 'text'> & { order?: OrderRef; orders?: OrderRef[] }

export interface BodyContext {
  /** The coin of an order, as operators name it ("USDT"), or null when the hub does not hold it. */
  coinOf(order: OrderRef): string | null
}

/** "Order 123 (offramp · USDT)": the order an operator would look up. */
function orderWords(order: OrderRef, c: BodyContext): string {
  const coin = c.coinOf(order)
  return `Order ${order.orderId} (${orderKindLabel(order.type, 'lowercase')}${coin ? ` · ${coin}` : ''})`
}

/** The alert in one sentence: a stalled order names itself, the other kinds' text does. */
export function alertSentence(a: HookAlert, c: BodyContext): string {
  if (a.kind === 'stalled' && a.order) {
    const t = a.text.replace(/^Stalled\b/, 'stalled')
    return `${orderWords(a.order, c)} ${t}`
  }
  if (a.order) return `${orderWords(a.order, c)}: ${a.text}`
  return a.text
}

export const TEST_TEXT = 'Test from the Rampdesk team hub: alerts will arrive here.'

/** The Slack-compatible body: one line of text. */
export function slackBody(event: HookEvent, a: HookAlert | null, c: BodyContext): string {
  if (event === 'test' || !a) return JSON.stringify({ text: TEST_TEXT })
  const sentence = alertSentence(a, c)
  return JSON.stringify({ text: event === 'raised' ? `:warning: ${sentence}` : `:white_check_mark: Resolved: ${sentence}` })
}

/** The generic body: what happened, to which alert, with its order(s) and since when. */
export function jsonBody(event: HookEvent, a: HookAlert | null, c: BodyContext, at: number): string {
  if (event === 'test' || !a)
    return JSON.stringify({ event: 'test', kind: null, alertId: null, order: null, orders: [], since: null, text: TEST_TEXT, at })
  return JSON.stringify({
    event,
    kind: a.kind,
    alertId: a.id,
    order: a.order ?? null,
    orders: a.orders ?? (a.order ? [a.order] : []),
    since: a.since,
    text: event === 'raised' ? alertSentence(a, c) : `Resolved: ${alertSentence(a, c)}`,
    at
  })
}

export function hookBody(format: HookFormat, event: HookEvent, a: HookAlert | null, c: BodyContext, at: number): string {
  return format === 'slack' ? slackBody(event, a, c) : jsonBody(event, a, c, at)
}

/** The signature a JSON hook's receiver checks: HMAC-SHA256 over "<timestamp>.<body>", hex. */
export function hookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
}

/** The headers of one signed attempt. */
export function signedHeaders(secret: string, body: string, now: number): Record<string, string> {
  return { [TIMESTAMP_HEADER]: String(now), [SIGNATURE_HEADER]: `sha256=${hookSignature(secret, now, body)}` }
}

/**
 * How a receiver verifies a body (docs/hub-reference.md shows the same in a few lines): the
 * signature matches, compared in constant time, and the timestamp is within `toleranceMs` of
 * its clock (an old body replayed is refused).
 */
export function verifyHookSignature(
  o: { secret: string; body: string; timestamp: string | undefined; signature: string | undefined; now: number },
  toleranceMs = 5 * 60_000
): boolean {
  const ts = Number(o.timestamp)
  if (!o.timestamp || !Number.isSafeInteger(ts) || Math.abs(o.now - ts) > toleranceMs) return false
  const want = Buffer.from(`sha256=${hookSignature(o.secret, ts, o.body)}`)
  const got = Buffer.from(o.signature ?? '')
  return got.length === want.length && timingSafeEqual(got, want)
}

/**
 * A hook's URL as it may be shown or logged: its origin and, where the path has several
 * parts, the first (Slack's "/services/…"); the rest of the path and the query may be the
 * hook's secret and are never shown.
 */
export function hookDisplay(url: string): string {
  const u = new URL(url)
  const parts = u.pathname.split('/').filter(Boolean)
  const path = parts.length > 1 ? `/${parts[0]}/…` : parts.length === 1 || u.search ? '/…' : ''
  return `${u.protocol}//${u.host}${path}`
}

/** Refuses what is no http(s) URL, before it is kept. */
export function checkHookUrl(url: string): string | null {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'is not a URL'
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return `must be http:// or https:// (not ${u.protocol.replace(/:$/, '')})`
  if (u.username || u.password) return 'must not carry a user name or password'
  return null
}

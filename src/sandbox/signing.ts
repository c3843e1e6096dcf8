// The signature scheme of spec section 5 as the sandbox reads it, on node:crypto alone
// (independent of the client's signing module, so a misreading there is not shared):
// the signature is the hex HMAC-SHA512 of the payload header value exactly as it
// arrived, compared in constant time; the payload is base64 of JSON {timestamp, body}.
// Whatever JSON text a client signed (compact, Python's spaces, PHP's escaped slashes)
// is accepted: the HMAC covers the header bytes, and the decoded body is compared with
// the request body by value. Webhooks are signed the same way, with the payload built
// in one of the forms the webhookPayloadForm reading names.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** Lowercase hex HMAC-SHA512 of the text, keyed with the secret. */
export function hmacHex(text: string, secret: string): string {
  return createHmac('sha512', secret).update(text, 'utf8').digest('hex')
}

const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/

/** Whether signature is the HMAC of the payload header value under secret (constant time). */
export function signatureMatches(payloadHeader: string, signature: string, secret: string): boolean {
  const given = signature.trim()
  if (!HEX_SIGNATURE.test(given)) return false
  const expected = createHmac('sha512', secret).update(payloadHeader, 'utf8').digest()
  return timingSafeEqual(expected, Buffer.from(given, 'hex'))
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Decodes a request payload header to {timestamp, body}; throws an Error saying what is wrong. */
export function decodeRequestPayload(payloadHeader: string): { timestamp: number; body: unknown } {
  const text64 = payloadHeader.trim()
  if (!BASE64.test(text64)) throw new Error('the payload is not base64')
  let text: string
  try {
    text = utf8.decode(Buffer.from(text64, 'base64'))
  } catch {
    throw new Error('the payload is not base64 of UTF-8 text')
  }
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new Error('the payload is not base64 of JSON')
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('the payload is not a JSON object {timestamp, body}')
  const o = v as Record<string, unknown>
  if (typeof o.timestamp !== 'number' || !Number.isSafeInteger(o.timestamp))
    throw new Error('the payload has no integer timestamp (ms since the epoch)')
  if (!Object.hasOwn(o, 'body')) throw new Error('the payload has no body')
  return { timestamp: o.timestamp, body: o.body }
}

/** Two JSON values are equal by value: same scalars, same arrays, same object members in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => sameJson(x, b[i]))
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  const ak = Object.keys(ao)
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && sameJson(ao[k], bo[k]))
}

// ---------------------------------------------------------------- webhook payloads

export type WebhookPayloadForm = 'compact' | 'spaced' | 'slashEscaped' | 'bodyOnly'
export const WEBHOOK_PAYLOAD_FORMS: readonly WebhookPayloadForm[] = ['compact', 'spaced', 'slashEscaped', 'bodyOnly']

interface JsonStyle {
  /** Between members and items. */
  comma: string
  /** Between a key and its value. */
  colon: string
  /** Write "/" as "\/" (PHP's json_encode). */
  escapeSlash: boolean
  /** Write every non-ASCII character as \uXXXX (Python's ensure_ascii, PHP's default). */
  asciiOnly: boolean
}

const STYLES: Record<Exclude<WebhookPayloadForm, 'bodyOnly'>, JsonStyle> = {
  compact: { comma: ',', colon: ':', escapeSlash: false, asciiOnly: false },
  spaced: { comma: ', ', colon: ': ', escapeSlash: false, asciiOnly: true },
  slashEscaped: { comma: ',', colon: ':', escapeSlash: true, asciiOnly: true }
}

function jsonString(s: string, style: JsonStyle): string {
  let out = JSON.stringify(s)
  if (style.escapeSlash) out = out.replace(/\//g, '\\/')
  if (style.asciiOnly) out = out.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
  return out
}

/** JSON text in a style; numbers as JavaScript writes them (the body's numbers are JavaScript numbers). */
function writeJson(v: unknown, style: JsonStyle): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return jsonString(v, style)
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null'
  if (typeof v === 'boolean') return String(v)
  if (Array.isArray(v)) return `[${v.map((x) => writeJson(x, style)).join(style.comma)}]`
  const members = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => `${jsonString(k, style)}${style.colon}${writeJson(x, style)}`)
  return `{${members.join(style.comma)}}`
}

/** The x-{service}-payload of a webhook in one of the forms, and its signature over that very text. */
export function signWebhook(
  form: WebhookPayloadForm,
  timestamp: number,
  body: unknown,
  secret: string
): { payload: string; signature: string } {
  const text = form === 'bodyOnly' ? writeJson(body, STYLES.compact) : writeJson({ timestamp, body }, STYLES[form])
  const payload = Buffer.from(text, 'utf8').toString('base64')
  return { payload, signature: hmacHex(payload, secret) }
}

// Reads the x-<service>-payload header of a webhook whose signature already verified, the
// way the live service reads ours: tolerant of how the sender wrote it. Real senders
// serialise the signed payload differently (the live-service notes, last section): compact
// JSON, Python's default with spaces after ',' and ':', PHP escaping '/' as '\/', possibly
// the body alone without the {timestamp, body} wrapper. This module says which form
// arrived (for the delivery log), the timestamp when there is one, and the object the
// signature vouches for as the order, both as JSON.parse reads it and as its text writes it
// (exact-json.ts: numbers as decimals, which the body must match exactly). It never decides
// what to do with them: delivery-verdict.ts does.
import { readExact, type ExactObject, type ExactValue } from '../../shared/api/exact-json'

/** How the signed payload was written, as shown in the delivery log. */
export type PayloadForm =
  | `timestamp+body (${string})`
  /** A JSON object without the wrapper: the order itself, or something else signed. */
  | 'body only'
  /** JSON, but not an object (a string, number or array). */
  | 'JSON, not an object'
  | 'not base64 JSON'

export interface ReadPayload {
  form: PayloadForm
  /** The wrapper's timestamp (ms since the epoch); null when the form carries none or it is unreadable. */
  timestamp: number | null
  /**
   * What the signature vouches for as the delivery's content: the wrapper's body, or the
   * whole decoded object in the body-only form. Undefined when the payload carries no
   * JSON object at all.
   */
  signedBody: Record<string, unknown> | undefined
  /** signedBody as its text writes it: every number the exact decimal the signature covers. */
  signedExact: ExactObject | undefined
  /** Something the operator should know about the payload (e.g. an unreadable timestamp). */
  note: string | null
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Decodes and classifies a payload header value exactly as received. */
export function readPayload(header: string): ReadPayload {
  const notJson: ReadPayload = { form: 'not base64 JSON', timestamp: null, signedBody: undefined, signedExact: undefined, note: null }
  // Standard or URL-safe alphabet, padding optional: what a sender's library produces
  // varies, and the HMAC (already checked) is what authenticates it, not its spelling.
  if (!BASE64.test(header) || header.length % 4 === 1) return notJson
  let text: string
  let value: unknown
  let exact: ExactValue
  try {
    text = utf8.decode(Buffer.from(header, 'base64'))
    value = JSON.parse(text)
    // The same text read again, keeping its numbers' decimals (a member named twice keeps
    // its last value in both readings). Only a signature that verified gets this far.
    exact = readExact(text)
  } catch {
    return notJson
  }
  if (!isObject(value) || exact.kind !== 'object') {
    return { form: 'JSON, not an object', timestamp: null, signedBody: undefined, signedExact: undefined, note: null }
  }
  if (!('timestamp' in value) || !('body' in value)) {
    return { form: 'body only', timestamp: null, signedBody: value, signedExact: exact, note: null }
  }

  const timestamp = readTimestamp(value.timestamp)
  const body = value.body
  const exactBody = exact.members.get('body')
  const signed = isObject(body) && exactBody?.kind === 'object'
  return {
    form: `timestamp+body (${spelling(text)})`,
    timestamp,
    signedBody: signed ? body : undefined,
    signedExact: signed ? exactBody : undefined,
    note: timestamp === null ? `the payload's timestamp ${JSON.stringify(value.timestamp).slice(0, 40)} is not a time in ms` : null
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** Milliseconds since the epoch, as a JSON number or a string of digits (both seen from hand-written senders). */
function readTimestamp(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : null
}

/**
 * Names the serialiser's habits seen in the JSON text: whitespace between tokens
 * (Python's json.dumps default, pretty printers) and '\/' inside strings (PHP's
 * json_encode). Neither changes the value; the log shows them so an operator comparing
 * with the sender's code sees which library wrote it.
 */
export function spelling(json: string): string {
  let spaced = false
  let slashEscaped = false
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (inString) {
      if (c === 0x5c /* \ */) {
        if (json.charCodeAt(i + 1) === 0x2f /* / */) slashEscaped = true
        i++
      } else if (c === 0x22 /* " */) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) spaced = true
  }
  const habits = [spaced && 'spaced', slashEscaped && 'slash-escaped'].filter((h): h is string => typeof h === 'string')
  return habits.length ? habits.join(', ') : 'compact'
}

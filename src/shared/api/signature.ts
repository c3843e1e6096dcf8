// The service's signing scheme (spec section 5), in one place for every side that
// needs it: the client signs requests, the sandbox verifies them and signs webhooks,
// the webhook inbox and the signature checker verify webhooks.
//   payload   = base64(JSON.stringify({timestamp, body}))
//   signature = lowercase hex HMAC-SHA512(payload, apiSecret)
// Pure TypeScript (no Node crypto) so it runs in main, the sandbox and tests alike.
import { hmac } from '@noble/hashes/hmac.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { base64 } from '@scure/base'

const enc = new TextEncoder()
const dec = new TextDecoder('utf-8', { fatal: true })

export interface SignedPayload {
  timestamp: number
  body: unknown
}

/** base64 of the JSON text of {timestamp, body}. */
export function encodePayload(timestamp: number, body: unknown): string {
  return base64.encode(enc.encode(JSON.stringify({ timestamp, body })))
}

/** Decodes a payload header; throws a plain Error with a reason when it is not one. */
export function decodePayload(payload: string): SignedPayload {
  let text: string
  try {
    text = dec.decode(base64.decode(payload.trim()))
  } catch {
    throw new Error('payload is not base64 of UTF-8 text')
  }
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new Error('payload is not JSON')
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('payload is not an object')
  const o = v as Record<string, unknown>
  if (typeof o.timestamp !== 'number' || !Number.isInteger(o.timestamp)) throw new Error('payload has no integer timestamp')
  if (!('body' in o)) throw new Error('payload has no body')
  return { timestamp: o.timestamp, body: o.body }
}

/** Lowercase hex HMAC-SHA512 of the payload string keyed with the secret. */
export function signPayload(payload: string, secret: string): string {
  return bytesToHex(hmac(sha512, enc.encode(secret), enc.encode(payload)))
}

/** Compares two signatures in time independent of where they differ. */
function signaturesEqual(a: string, b: string): boolean {
  const x = enc.encode(a.toLowerCase())
  const y = enc.encode(b.toLowerCase())
  let diff = x.length ^ y.length
  const n = Math.max(x.length, y.length)
  for (let i = 0; i < n; i++) diff |= (x[i % (x.length || 1)] ?? 0) ^ (y[i % (y.length || 1)] ?? 0)
  return diff === 0
}

/** True when signature is the HMAC of payload under secret (constant-time compare). */
export function verifySignature(payload: string, signature: string, secret: string): boolean {
  return signaturesEqual(signPayload(payload, secret), signature.trim())
}

/**
 * Deep equality of two parsed JSON values (object key order ignored), as the service
 * compares a request's payload body with its JSON body, "by value, if at all". Numbers are
 * compared as the floats JSON.parse made of them, so 1000.00000000000001 equals 1000: a
 * webhook body is held to its signed record with exact-json.ts instead.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]))
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined)
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined)
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]))
}

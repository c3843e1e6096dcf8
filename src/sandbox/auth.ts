// Request authentication as the sandbox reads spec section 5: the three headers (named
// for the service), a known API key, the hex HMAC-SHA512 of the payload header value as
// received (constant-time compare, node:crypto), a payload that decodes to {timestamp,
// body} whose body equals the JSON request body by value (so any JSON serialisation a
// client signed is fine), and a timestamp inside the window: not ahead of the sandbox
// clock beyond a small tolerance ("Ahead of Time"), not older than the window (the
// live service takes timestamps "a little in the past"; 30 s old passes by default).
import type { IncomingHttpHeaders } from 'node:http'
import { SandboxError } from './errors'
import { headerNames } from './routes'
import { decodeRequestPayload, sameJson, signatureMatches } from './signing'

export interface AuthConfig {
  serviceName: string
  /** apiKey -> apiSecret */
  keys: ReadonlyMap<string, string>
  /** How far a timestamp may run ahead of the sandbox clock before "Ahead of Time". */
  aheadToleranceMs: number
  /** How old a timestamp may be. */
  maxAgeMs: number
}

export const DEFAULT_AHEAD_TOLERANCE_MS = 5_000
export const DEFAULT_MAX_AGE_MS = 60_000

const header = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

/** Returns the API key of a correctly signed request; throws SandboxError(401) otherwise. */
export function authenticate(headers: IncomingHttpHeaders, body: unknown, serverNow: number, cfg: AuthConfig): string {
  const names = headerNames(cfg.serviceName)
  const apiKey = header(headers, names.apiKey)
  const payload = header(headers, names.payload)
  const signature = header(headers, names.signature)
  const missing = [
    [names.apiKey, apiKey],
    [names.payload, payload],
    [names.signature, signature]
  ]
    .filter(([, v]) => v === undefined || v === '')
    .map(([n]) => n)
  if (missing.length > 0)
    throw new SandboxError(401, `Missing authentication header${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`)
  const secret = cfg.keys.get(apiKey as string)
  if (secret === undefined) throw new SandboxError(401, 'Invalid API key')
  if (!signatureMatches(payload as string, signature as string, secret)) throw new SandboxError(401, 'Invalid signature')
  let decoded
  try {
    decoded = decodeRequestPayload(payload as string)
  } catch (e) {
    throw new SandboxError(401, `Invalid payload: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (decoded.timestamp > serverNow + cfg.aheadToleranceMs) throw new SandboxError(401, 'Ahead of Time')
  if (decoded.timestamp < serverNow - cfg.maxAgeMs) {
    throw new SandboxError(401, `Request expired: the payload timestamp is more than ${Math.round(cfg.maxAgeMs / 1000)} s old`)
  }
  if (!sameJson(decoded.body, body)) throw new SandboxError(401, 'Payload body does not match the request body')
  return apiKey as string
}

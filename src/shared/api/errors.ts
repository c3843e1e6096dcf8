// One error taxonomy for every failure of a call to the service, whether it happened
// on the wire, at the service, in our own rate budget or in schema validation. Errors
// cross IPC as plain ApiErrorInfo objects; explainError turns one into plain words.
import { refusalSentence } from '../access-end'

export type ApiErrorKind =
  | 'network' // connection refused, reset, DNS
  | 'timeout' // connect, header or body timeout
  | 'aborted' // cancelled by the caller (profile switch, window closed)
  | 'http' // a non-2xx status without the service's error envelope
  | 'api' // the service's error envelope {status: 0, code, error}
  | 'auth' // 401/403: bad key, bad signature
  | 'rate_limited' // our budget is exhausted (origin: budget) or the service answered 429 (origin: service)
  | 'schema' // the response did not match the contract
  | 'clock_skew' // the service refused our timestamp ("Ahead of Time") even after re-estimating
  | 'too_large' // response exceeded the size cap
  | 'invalid_request' // the request failed our own validation before anything was sent
  | 'missing_secret' // no API secret is stored (or it could not be read): nothing was sent
  | 'hub_unreachable' // a Team profile's hub does not answer (the desktop reconnects by itself)
  | 'access_revoked' // a Team profile's hub refused its operator token: unknown or revoked

export interface ApiErrorInfo {
  kind: ApiErrorKind
  message: string
  endpoint?: string
  /** HTTP status, when a response arrived. */
  httpStatus?: number
  /** The service's error code from the envelope. */
  code?: number
  /** For rate_limited: where the limit came from, and when the next slot opens (epoch ms). */
  origin?: 'budget' | 'service'
  nextSlotAt?: number
  /** For schema: the JSON path of the first mismatch, e.g. "data[3].updatedAt". */
  path?: string
  /** For clock_skew: the estimated offset (server minus local, ms). */
  skewMs?: number
  /** Amounts the refusal's text names as the service's minimum or maximum (a quote out of bounds). */
  bounds?: ServiceBounds
  /** For access_revoked: the hub said the token ended or was replaced (not revoked). */
  reason?: 'expired' | 'replaced' | 'signed-out'
  /** Whether retrying later may succeed. */
  retryable: boolean
}

/** A minimum and/or maximum the service named in a refusal, as decimal text, with its unit when known. */
export interface ServiceBounds {
  minimum?: string
  maximum?: string
  unit?: string
}

export class ApiError extends Error implements ApiErrorInfo {
  readonly kind: ApiErrorKind
  readonly endpoint?: string
  readonly httpStatus?: number
  readonly code?: number
  readonly origin?: 'budget' | 'service'
  readonly nextSlotAt?: number
  readonly path?: string
  readonly skewMs?: number
  readonly bounds?: ServiceBounds
  readonly retryable: boolean

  constructor(info: Omit<ApiErrorInfo, 'retryable'> & { retryable?: boolean }, options?: { cause?: unknown }) {
    super(info.message, options)
    this.name = 'ApiError'
    this.kind = info.kind
    this.endpoint = info.endpoint
    this.httpStatus = info.httpStatus
    this.code = info.code
    this.origin = info.origin
    this.nextSlotAt = info.nextSlotAt
    this.path = info.path
    this.skewMs = info.skewMs
    this.bounds = info.bounds
    this.retryable = info.retryable ?? defaultRetryable(info)
  }

  toInfo(): ApiErrorInfo {
    const o: ApiErrorInfo = { kind: this.kind, message: this.message, retryable: this.retryable }
    if (this.endpoint !== undefined) o.endpoint = this.endpoint
    if (this.httpStatus !== undefined) o.httpStatus = this.httpStatus
    if (this.code !== undefined) o.code = this.code
    if (this.origin !== undefined) o.origin = this.origin
    if (this.nextSlotAt !== undefined) o.nextSlotAt = this.nextSlotAt
    if (this.path !== undefined) o.path = this.path
    if (this.skewMs !== undefined) o.skewMs = this.skewMs
    if (this.bounds !== undefined) o.bounds = { ...this.bounds }
    return o
  }
}

function defaultRetryable(i: Pick<ApiErrorInfo, 'kind' | 'httpStatus' | 'code'>): boolean {
  switch (i.kind) {
    case 'network':
    case 'timeout':
    case 'rate_limited':
    case 'hub_unreachable':
      return true
    case 'http':
    case 'api':
      // The envelope code can disagree with the HTTP status (a 200 carrying code 503):
      // either one saying "overloaded" or "down" makes a later retry worthwhile.
      return [i.httpStatus, i.code].some((s) => s !== undefined && (s >= 500 || s === 429))
    default:
      return false
  }
}

const KINDS: Record<ApiErrorKind, true> = {
  network: true,
  timeout: true,
  aborted: true,
  http: true,
  api: true,
  auth: true,
  rate_limited: true,
  schema: true,
  clock_skew: true,
  too_large: true,
  invalid_request: true,
  missing_secret: true,
  hub_unreachable: true,
  access_revoked: true
}

/** Any thrown value as ApiErrorInfo (unknown errors become 'network' with their message). */
export function toErrorInfo(e: unknown): ApiErrorInfo {
  if (e instanceof ApiError) return e.toInfo()
  if (e && typeof e === 'object' && 'kind' in e && 'message' in e) {
    // Only a known kind with a text message is an ApiErrorInfo; anything else would make
    // explainError fall through its switch. Info that crossed IPC without retryable gets the default.
    const o = e as ApiErrorInfo
    if (Object.hasOwn(KINDS, o.kind) && typeof o.message === 'string') {
      return typeof o.retryable === 'boolean' ? o : { ...o, retryable: defaultRetryable(o) }
    }
  }
  return { kind: 'network', message: e instanceof Error ? e.message : textOf(e), retryable: true }
}

/** String(e) throws for an object without a prototype; toErrorInfo runs inside catch blocks and must not. */
function textOf(e: unknown): string {
  try {
    return String(e)
  } catch {
    return Object.prototype.toString.call(e)
  }
}

/** Meaning of the service's error codes (the live-service notes, "Errors"). */
export const serviceErrorCodes: Record<number, string> = {
  400: 'bad request',
  401: 'bad credentials or signature',
  403: 'forbidden',
  406: 'coin not supplied or unsupported',
  409: 'wrong parameter type',
  413: 'amount out of bounds',
  416: 'insufficient balance',
  417: 'order no longer exists',
  428: 'price irregular',
  429: 'too many requests',
  500: 'server problem',
  503: 'maintenance'
}

/** The time of day of an epoch-ms instant, or undefined for none (toISOString throws on an invalid date). */
function at(ms: number | undefined): string | undefined {
  if (!ms || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined
  return new Date(ms).toISOString().slice(11, 19) + ' UTC'
}

/** " Its minimum: 100 INR; its maximum: 200000 INR." for a refusal that named them; "" otherwise. */
function boundsText(b: ServiceBounds | undefined): string {
  if (!b || (b.minimum === undefined && b.maximum === undefined)) return ''
  const u = b.unit ? ` ${b.unit}` : ''
  const parts = [b.minimum !== undefined && `minimum ${b.minimum}${u}`, b.maximum !== undefined && `maximum ${b.maximum}${u}`]
  return ` The service's ${parts.filter(Boolean).join(', ')}.`
}

/** A sentence an operator can act on. */
export function explainError(i: ApiErrorInfo): string {
  const where = i.endpoint ? ` (${i.endpoint})` : ''
  switch (i.kind) {
    case 'network':
      return `The service could not be reached${where}: ${i.message}. Check the base URL and your connection; Rampdesk retries by itself.`
    case 'timeout':
      return `The service did not answer in time${where}. It may be slow or down; Rampdesk retries by itself.`
    case 'aborted':
      return `The request was cancelled${where}.`
    case 'auth':
      return `The service refused the credentials${where}: ${i.message}. Check the API key and secret of this profile.`
    case 'rate_limited':
      return i.origin === 'budget'
        ? `Request budget exhausted${where}; next slot at ${at(i.nextSlotAt) ?? 'soon'}. Nothing was sent.`
        : `The service is rate-limiting${where}; Rampdesk backs off${at(i.nextSlotAt) ? ` until ${at(i.nextSlotAt)}` : ''}.`
    case 'schema':
      return `The service answered in a shape Rampdesk does not understand${where}${i.path ? ` at ${i.path}` : ''}: ${i.message}.`
    case 'clock_skew':
      return `This computer's clock differs from the service's${i.skewMs !== undefined && Number.isFinite(i.skewMs) ? ` by ${Math.round(i.skewMs / 1000)} s` : ''}, and the service refused the request. Set the clock to update automatically.`
    case 'too_large':
      return `The service's answer was larger than allowed${where}.`
    case 'invalid_request':
      return `The request is not valid${where}: ${i.message}.`
    case 'missing_secret':
      return `Nothing was sent${where}: ${i.message}. Add the API secret of this profile in Settings → Credentials.`
    case 'hub_unreachable':
      return `Your team's hub cannot be reached${where}: ${i.message}. Rampdesk reconnects by itself; if it stays away, ask your team's admin whether the hub is running.`
    case 'access_revoked':
      if (i.reason) return `${refusalSentence(i)}`
      return `Your access was revoked${where} — ask your team's admin for a new operator token, then store it in Settings → Credentials (${i.message}).`
    case 'api': {
      const meaning = i.code !== undefined ? serviceErrorCodes[i.code] : undefined
      return `The service refused the request${where}: ${i.message}${meaning && !i.message.toLowerCase().includes(meaning) ? ` (${meaning})` : ''}.${boundsText(i.bounds)}`
    }
    case 'http':
      return `The service answered HTTP ${i.httpStatus ?? '?'}${where}: ${i.message}.`
  }
}

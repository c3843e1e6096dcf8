// The sandbox's own reading of the request bodies of spec section 4, field by field, with
// the JSON type each table states (not the client's schemas). Where the spec and live
// practice dispute a type (a field typed string that the samples send as an integer,
// and merchantHistory type), the field is marked disputed: the paramTypes reading makes
// it lenient by default. Checking a body: a field of the wrong JSON type answers 409
// "wrong parameter type" (the live code); a missing, unknown or out-of-range one 400.
import type { EndpointName } from './routes'

export type JsonType = 'integer' | 'number' | 'string'
export type ParamMode = 'strict' | 'lenient'
export type TypeErrorText = 'named' | 'bare'

export interface FieldRule {
  /** The JSON type the spec's table gives. */
  type: JsonType
  required: boolean
  /** The spec's type and the live samples disagree (lenient unless a reading says strict). */
  disputed: boolean
  /** A value always accepted besides the type (merchantHistory type: "an empty value returns onramp transactions"). */
  orEmptyString?: boolean
  /** The rule on the value (already of the field's type); returns the complaint, or undefined when it holds. */
  check?: (v: string | number) => string | undefined
}

const oneOf =
  (values: readonly number[]) =>
  (v: string | number): string | undefined =>
    values.includes(Number(v)) ? undefined : `must be one of ${values.join(', ')}`

const wholeId = (v: string | number): string | undefined =>
  /^\d+$/.test(String(v)) ? undefined : `must be an id (a whole number), not ${JSON.stringify(v)}`

const between =
  (min: number, max?: number) =>
  (v: string | number): string | undefined =>
    Number(v) >= min && (max === undefined || Number(v) <= max)
      ? undefined
      : max === undefined
        ? `must be at least ${min}`
        : `must be between ${min} and ${max}`

const positive = (v: string | number): string | undefined => (Number(v) > 0 && Number.isFinite(Number(v)) ? undefined : 'must be above 0')
const nonEmpty = (v: string | number): string | undefined => (String(v).trim() !== '' ? undefined : 'must not be empty')

// ISO 8601 with a zone (Z or an offset), fractional seconds optional: "selects records from that time".
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/
const isoInstant = (v: string | number): string | undefined =>
  ISO_INSTANT.test(String(v)) && Number.isFinite(Date.parse(String(v)))
    ? undefined
    : `must be an ISO 8601 UTC timestamp such as 2024-05-01T12:00:00.000Z, not ${JSON.stringify(v)}`

const httpUrl = (v: string | number): string | undefined => {
  try {
    const u = new URL(String(v))
    if (u.protocol === 'http:' || u.protocol === 'https:') return undefined
  } catch {
    // not a URL at all: the same complaint
  }
  return `must be an http(s) URL, not ${JSON.stringify(v)}`
}

const f = (type: JsonType, required: boolean, check?: FieldRule['check'], disputed = false): FieldRule => ({
  type,
  required,
  disputed,
  check
})

/** Request fields per signed endpoint (GET endpoints take no body). */
export const REQUEST_FIELDS: Partial<Record<EndpointName, Readonly<Record<string, FieldRule>>>> = {
  allChainMapping: {},
  // 4.2: "string (sent as integer in the sample)".
  allCoinLimits: { fiatType: f('string', true, wholeId, true) },
  allGasFee: {},
  // 4.4
  merchantHistory: {
    // At least 1, or 0 where the service counts pages from 0 (the firstPage reading; checked with the reading).
    page: f('integer', false, between(0)),
    pageSize: f('integer', false, between(1, 500)),
    since: f('string', false, isoInstant),
    order: f('string', false, (v) => (v === 'ASC' || v === 'DESC' ? undefined : 'must be ASC or DESC')),
    // Typed integer, but "an empty value returns onramp transactions", and live clients send it either way.
    type: { ...f('integer', false, oneOf([1, 2]), true), orEmptyString: true },
    // Typed string in the table although it holds a fiat id; the samples send integers.
    fiatType: f('string', false, wholeId, true)
  },
  allConfigMapping: {},
  sendDummyWebhook: { webhookUrl: f('string', false, httpUrl) },
  // 4.7: "string (sent as integer in the sample)".
  resendWebhook: { orderId: f('string', true, wholeId, true) },
  setWebhookUrl: { webhookUrl: f('string', true, httpUrl) },
  // 4.9 and 4.10 share the path; which of these a flow requires is checked in quoteRules.
  quotes: {
    coinId: f('integer', false),
    coinCode: f('string', false, nonEmpty),
    chainId: f('integer', false),
    network: f('string', false, nonEmpty),
    fiatAmount: f('number', false, positive),
    quantity: f('number', false, positive),
    fiatType: f('integer', false),
    type: f('integer', true, oneOf([1, 2]))
  },
  // 4.11: both typed string; a live client sends integers and gets answers.
  priceTicker: { type: f('string', true, oneOf([1, 2, 3]), true), fiatType: f('string', true, wholeId, true) },
  // 4.12: "orderId (string in the sample) and type (integer)"; required flags not shown (both required here).
  orderStatus: { orderId: f('string', true, wholeId, true), type: f('integer', true, oneOf([1, 2])) },
  // 4.13: typed string.
  limits: { type: f('string', true, oneOf([1, 2, 3]), true) }
}

/** Every "endpoint.field" key the paramTypes reading can name. */
export const PARAM_FIELDS: readonly string[] = Object.entries(REQUEST_FIELDS).flatMap(([ep, fields]) =>
  Object.keys(fields ?? {}).map((name) => `${ep}.${name}`)
)

/** The default mode of a field: lenient where the spec and live practice dispute its type, strict elsewhere. */
export function defaultParamMode(key: string): ParamMode {
  const [ep, name] = key.split('.') as [EndpointName, string]
  return REQUEST_FIELDS[ep]?.[name]?.disputed ? 'lenient' : 'strict'
}

export interface RequestFailure {
  code: 400 | 409
  error: string
}

/** The JSON type of what was sent, in JSON's own words (an integer is a number). */
const jsonTypeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)

const INTEGER_TEXT = /^-?\d+$/
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/

/** The value in the field's own type, or undefined when the mode does not accept what was sent. */
function accept(rule: FieldRule, mode: ParamMode, v: unknown): string | number | undefined {
  if (rule.orEmptyString && v === '') return ''
  switch (rule.type) {
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v
      if (mode === 'lenient' && typeof v === 'string' && INTEGER_TEXT.test(v)) return Number(v)
      return undefined
    case 'number':
      if (typeof v === 'number' && Number.isFinite(v)) return v
      if (mode === 'lenient' && typeof v === 'string' && NUMBER_TEXT.test(v)) return Number(v)
      return undefined
    case 'string':
      if (typeof v === 'string') return v
      if (mode === 'lenient' && typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
      return undefined
  }
}

function expected(rule: FieldRule, mode: ParamMode): string {
  const lenient = mode === 'lenient'
  const base =
    rule.type === 'string'
      ? lenient
        ? 'string or integer'
        : 'string'
      : rule.type === 'integer'
        ? lenient
          ? 'integer or a string of digits'
          : 'integer'
        : lenient
          ? 'number or a numeric string'
          : 'number'
  return rule.orEmptyString ? `${base} or empty string` : base
}

/** Cross-field rules of the quotes body (4.9: offramp, INR only; 4.10: onramp); answers the complaint or undefined. */
function quoteRules(b: Record<string, string | number>): string | undefined {
  const complaints: string[] = []
  if (b.coinId === undefined && b.coinCode === undefined) complaints.push('a coin (coinId or coinCode) is required')
  if (b.chainId === undefined && b.network === undefined) complaints.push('a chain (chainId or network) is required')
  if (b.fiatType === undefined) complaints.push('Missing parameter: fiatType')
  if (b.type === 1) {
    if (b.fiatAmount === undefined) complaints.push('Missing parameter: fiatAmount (an onramp quote is for a fiat amount)')
    if (b.quantity !== undefined) complaints.push('Unknown parameter for an onramp quote: quantity')
  } else {
    if (b.quantity === undefined) complaints.push('Missing parameter: quantity (an offramp quote is for a crypto quantity)')
    if (b.fiatAmount !== undefined) complaints.push('Unknown parameter for an offramp quote: fiatAmount')
    if (b.fiatType !== undefined && b.fiatType !== 1) complaints.push('offramp quotes support INR (fiatType 1) only')
  }
  return complaints.length > 0 ? complaints.join('; ') : undefined
}

/**
 * Checks a signed endpoint's body against its fields under the per-field modes; returns
 * the values in each field's own type (a lenient integer sent as "5" comes back as 5, a
 * lenient string sent as 5 as "5"), or the failure to answer with.
 */
export function parseRequest(
  endpoint: EndpointName,
  body: Record<string, unknown>,
  modeOf: (key: string) => ParamMode,
  typeErrorText: TypeErrorText
): { ok: true; value: Record<string, string | number> } | { ok: false; failure: RequestFailure } {
  const fields = REQUEST_FIELDS[endpoint] ?? {}
  const wrongType: string[] = []
  const invalid: string[] = []
  const value: Record<string, string | number> = {}
  for (const [name, rule] of Object.entries(fields)) {
    if (!Object.hasOwn(body, name) || body[name] === undefined) {
      if (rule.required) invalid.push(`Missing parameter: ${name}`)
      continue
    }
    const mode = modeOf(`${endpoint}.${name}`)
    const v = accept(rule, mode, body[name])
    if (v === undefined) {
      wrongType.push(`Wrong parameter type: ${name} must be ${expected(rule, mode)}, not ${jsonTypeOf(body[name])}`)
      continue
    }
    const complaint = v === '' ? undefined : rule.check?.(v)
    if (complaint !== undefined) invalid.push(`Invalid ${name}: ${complaint}`)
    value[name] = v
  }
  if (wrongType.length > 0)
    return { ok: false, failure: { code: 409, error: typeErrorText === 'named' ? wrongType.join('; ') : 'wrong parameter type' } }
  const unknown = Object.keys(body).filter((k) => !Object.hasOwn(fields, k))
  if (unknown.length > 0) invalid.push(`Unknown parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
  if (invalid.length === 0 && endpoint === 'quotes') {
    const q = quoteRules(value)
    if (q !== undefined) invalid.push(q)
  }
  if (invalid.length > 0) return { ok: false, failure: { code: 400, error: invalid.join('; ') } }
  return { ok: true, value }
}

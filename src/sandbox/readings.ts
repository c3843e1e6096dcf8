// The readings: every choice the spec leaves open ("not shown", or ambiguous) as a switch
// of the sandbox, so a client can be tested against each way a real service might have
// read the spec. Defaults are the most likely reading (docs/spec-readings.md says why).
// Set at start (startSandbox({readings}), CLI flags) and at run time
// (control.setReadings, PUT /__sandbox/readings); validated here for all three.
import { PARAM_FIELDS, defaultParamMode, type ParamMode, type TypeErrorText } from './request-schemas'
import { ENDPOINT_NAMES, ROUTES, isEndpointName, type EndpointName } from './routes'
import { WEBHOOK_PAYLOAD_FORMS, type WebhookPayloadForm } from './signing'

export type { ParamMode, TypeErrorText } from './request-schemas'
export type { WebhookPayloadForm } from './signing'

export interface SandboxReadings {
  /** merchantHistory since: updatedAt >= since ("selects records from that time"), or > since. */
  since: 'inclusive' | 'exclusive'
  /**
   * Records sharing one updatedAt: by orderId, or by a hidden row order (a seeded permutation,
   * stable, invisible in the data), or 'limit': a hidden order that also depends on pageSize.
   */
  tieOrder: 'orderId' | 'hidden' | 'limit'
  /** Per "endpoint.field": strict takes only the spec's JSON type; lenient also the other encoding. */
  paramTypes: Record<string, ParamMode>
  /** The 409 text names the fields ("Wrong parameter type: fiatType must be string, not number") or not ("wrong parameter type"). */
  typeErrorText: TypeErrorText
  /** Per-minute limits for endpoints the spec shows none for. */
  unknownLimits: Partial<Record<EndpointName, number>>
  /** A sliding 60 s window, or fixed one-minute windows per key. */
  limiter: 'sliding' | 'fixed'
  /** priceTicker types 2 and 3: {offramp} / {onramp, offramp}, or {sell} / {buy, sell}. */
  tickerShape: 'split' | 'buySell'
  /** limits types 2 and 3: {offramp: byFiat} / {onramp, offramp}, or byFiat / {"1": byFiat, "2": byFiat}. */
  limitsShape: 'typeKeys' | 'flat'
  /** allCoinLimits: shape A, shape B, or B for the fiats flagged perCoinLimits and A for the rest. */
  coinLimitsShape: 'perFiat' | 'A' | 'B'
  /** Send a Date header (on every answer, errors included). */
  dateHeader: boolean
  /** GET currentTimestamp answers (else 404). */
  currentTimestamp: boolean
  /** Before each merchantHistory answer, this many random open orders advance one step at one shared instant. */
  churnPerHistoryRequest: number
  /** How a webhook's x-{service}-payload is built (the HMAC is always over the header value). */
  webhookPayloadForm: WebhookPayloadForm
  /** merchantHistory: the field `since` filters on ("selects records from that time"). */
  historySince: 'updatedAt' | 'createdAt'
  /** merchantHistory: the field ASC/DESC sorts by (then the tie order). */
  historyOrder: 'updatedAt' | 'createdAt'
  /** merchantHistory: the number of the first page (the spec's default 1, or a 0-based service's 0). */
  firstPage: 0 | 1
  /**
   * merchantHistory: what a request without `page` reads: the first page whatever the
   * service counts from, or the page numbered 1 (the spec's "default 1" taken literally:
   * on a 0-based service, its second page).
   */
  missingPage: 'first' | 'one'
  /** merchantHistory: the most records a page holds whatever pageSize asks (null: the spec's 500); offsets count in it. */
  pageSizeCap: number | null
  /** merchantHistory type 2: listings filtered by fiatType, or every offramp order whatever fiatType says. */
  offrampFiat: 'filter' | 'ignore'
  /** merchantHistory: `order` honoured, or newest first (DESC) whatever it asks. */
  historyDirection: 'honoured' | 'DESC'
  /** merchantHistory: a page with no records answered as an empty array, as `data: null`, or refused 404 "No transactions found". */
  emptyHistory: 'empty' | 'null' | '404'
}

/** What callers may pass: any subset; paramTypes also as one mode for every field. */
export type ReadingsInput = Partial<Omit<SandboxReadings, 'paramTypes'>> & {
  paramTypes?: ParamMode | Record<string, ParamMode>
}

export class ReadingsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReadingsError'
  }
}

function defaultParamTypes(): Record<string, ParamMode> {
  return Object.fromEntries(PARAM_FIELDS.map((k) => [k, defaultParamMode(k)]))
}

export function defaultReadings(): SandboxReadings {
  return {
    since: 'inclusive',
    tieOrder: 'orderId',
    paramTypes: defaultParamTypes(),
    typeErrorText: 'named',
    unknownLimits: {},
    limiter: 'sliding',
    tickerShape: 'split',
    limitsShape: 'typeKeys',
    coinLimitsShape: 'perFiat',
    dateHeader: true,
    currentTimestamp: true,
    churnPerHistoryRequest: 0,
    webhookPayloadForm: 'compact',
    historySince: 'updatedAt',
    historyOrder: 'updatedAt',
    firstPage: 1,
    missingPage: 'first',
    pageSizeCap: null,
    offrampFiat: 'filter',
    historyDirection: 'honoured',
    emptyHistory: 'empty'
  }
}

/** The choices of each enumerated reading, for validation, --help and the docs. */
export const CHOICES = {
  since: ['inclusive', 'exclusive'],
  tieOrder: ['orderId', 'hidden', 'limit'],
  typeErrorText: ['named', 'bare'],
  limiter: ['sliding', 'fixed'],
  tickerShape: ['split', 'buySell'],
  limitsShape: ['typeKeys', 'flat'],
  coinLimitsShape: ['perFiat', 'A', 'B'],
  webhookPayloadForm: WEBHOOK_PAYLOAD_FORMS,
  historySince: ['updatedAt', 'createdAt'],
  historyOrder: ['updatedAt', 'createdAt'],
  missingPage: ['first', 'one'],
  offrampFiat: ['filter', 'ignore'],
  historyDirection: ['honoured', 'DESC'],
  emptyHistory: ['empty', 'null', '404']
} as const satisfies Partial<Record<keyof SandboxReadings, readonly string[]>>

const MODES: readonly ParamMode[] = ['strict', 'lenient']
const KEYS = Object.keys(defaultReadings()) as (keyof SandboxReadings)[]

function choice<K extends keyof typeof CHOICES>(key: K, v: unknown): (typeof CHOICES)[K][number] {
  const allowed = CHOICES[key] as readonly string[]
  if (typeof v !== 'string' || !allowed.includes(v))
    throw new ReadingsError(`${key} must be one of ${allowed.join(', ')}, not ${JSON.stringify(v)}`)
  return v as (typeof CHOICES)[K][number]
}

function flag(key: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ReadingsError(`${key} must be true or false, not ${JSON.stringify(v)}`)
  return v
}

/** paramTypes as given (one mode, or some fields) -> every field; fields not named take their default. */
function paramTypesFrom(v: unknown): Record<string, ParamMode> {
  if (typeof v === 'string') {
    if (!(MODES as string[]).includes(v))
      throw new ReadingsError(`paramTypes must be strict, lenient or an object of them, not ${JSON.stringify(v)}`)
    return Object.fromEntries(PARAM_FIELDS.map((k) => [k, v as ParamMode]))
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ReadingsError('paramTypes must be strict, lenient, or an object of "endpoint.field": "strict" | "lenient"')
  const out = defaultParamTypes()
  for (const [k, mode] of Object.entries(v as Record<string, unknown>)) {
    if (!PARAM_FIELDS.includes(k))
      throw new ReadingsError(`paramTypes: unknown field ${JSON.stringify(k)}; fields are ${PARAM_FIELDS.join(', ')}`)
    if (typeof mode !== 'string' || !(MODES as string[]).includes(mode))
      throw new ReadingsError(`paramTypes.${k} must be strict or lenient, not ${JSON.stringify(mode)}`)
    out[k] = mode as ParamMode
  }
  return out
}

function unknownLimitsFrom(v: unknown): Partial<Record<EndpointName, number>> {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ReadingsError('unknownLimits must be an object of endpoint name -> requests per minute')
  const out: Partial<Record<EndpointName, number>> = {}
  for (const [name, n] of Object.entries(v as Record<string, unknown>)) {
    if (!isEndpointName(name))
      throw new ReadingsError(`unknownLimits: unknown endpoint ${JSON.stringify(name)}; endpoints are ${ENDPOINT_NAMES.join(', ')}`)
    if (ROUTES[name].perMinute !== null)
      throw new ReadingsError(`unknownLimits: ${name} has the documented limit of ${ROUTES[name].perMinute} per minute (spec section 8)`)
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)
      throw new ReadingsError(`unknownLimits.${name} must be a whole number of requests per minute, at least 1, not ${JSON.stringify(n)}`)
    out[name] = n
  }
  return out
}

/** base with the readings in input applied; throws ReadingsError naming what is wrong (nothing applied then). */
export function applyReadings(base: SandboxReadings, input: unknown): SandboxReadings {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ReadingsError('readings must be a JSON object')
  const given = input as Record<string, unknown>
  const unknown = Object.keys(given).filter((k) => !(KEYS as string[]).includes(k))
  if (unknown.length > 0)
    throw new ReadingsError(`unknown reading${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; readings are ${KEYS.join(', ')}`)
  const out: SandboxReadings = { ...base, paramTypes: { ...base.paramTypes }, unknownLimits: { ...base.unknownLimits } }
  for (const [k, v] of Object.entries(given)) {
    if (v === undefined) continue
    switch (k as keyof SandboxReadings) {
      case 'since':
      case 'tieOrder':
      case 'typeErrorText':
      case 'limiter':
      case 'tickerShape':
      case 'limitsShape':
      case 'coinLimitsShape':
      case 'webhookPayloadForm':
      case 'historySince':
      case 'historyOrder':
      case 'offrampFiat':
      case 'missingPage':
      case 'historyDirection':
      case 'emptyHistory':
        ;(out as unknown as Record<string, unknown>)[k] = choice(k as keyof typeof CHOICES, v)
        break
      case 'dateHeader':
      case 'currentTimestamp':
        out[k as 'dateHeader' | 'currentTimestamp'] = flag(k, v)
        break
      case 'paramTypes':
        out.paramTypes = paramTypesFrom(v)
        break
      case 'unknownLimits':
        out.unknownLimits = unknownLimitsFrom(v)
        break
      case 'firstPage':
        if (v !== 0 && v !== 1) throw new ReadingsError(`firstPage must be 1 or 0, not ${JSON.stringify(v)}`)
        out.firstPage = v
        break
      case 'pageSizeCap':
        if (v !== null && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > 500))
          throw new ReadingsError(`pageSizeCap must be null or a whole number from 1 to 500, not ${JSON.stringify(v)}`)
        out.pageSizeCap = v
        break
      case 'churnPerHistoryRequest':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
          throw new ReadingsError(`churnPerHistoryRequest must be a whole number, 0 or more, not ${JSON.stringify(v)}`)
        out.churnPerHistoryRequest = v
        break
    }
  }
  return out
}

/** A deep copy, so callers cannot change the sandbox's readings by mutating what they got. */
export function copyReadings(r: SandboxReadings): SandboxReadings {
  return { ...r, paramTypes: { ...r.paramTypes }, unknownLimits: { ...r.unknownLimits } }
}

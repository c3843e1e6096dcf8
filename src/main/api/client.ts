// ApiClient: one typed method per endpoint of the merchant API. Every call is validated
// against the endpoint's request schema, waits for the profile's rate budget, is signed
// with the service's time (see clock.ts), sent, retried where safe, and its answer is
// checked against the response schema. Failures always surface as ApiError.
import type { Dispatcher } from 'undici'
import type { z } from 'zod'
import {
  endpointPath,
  endpointNames,
  endpoints,
  OfframpHistoryResponse,
  OfframpQuoteResponse,
  OnrampHistoryResponse,
  OnrampQuoteResponse,
  type EndpointName,
  type MerchantHistoryRequest,
  type OfframpQuoteRequest,
  type OnrampQuoteRequest,
  type RequestOf
} from '../../shared/api/endpoints'
import { ApiError, serviceErrorCodes, type ApiErrorKind } from '../../shared/api/errors'
import { ErrorEnvelope } from '../../shared/api/schemas'
import { isDecimalText, toDecimalString, type DecimalString } from '../../shared/domain/money'
import { SkewClock } from './clock'
import { RateBudget, type AcquireOptions } from './rate-budget'
import { withRetry, type RetryOptions } from './retry'
import { signRequest } from './signer'
import { Transport, type HttpTransport, type TransportResponse } from './transport'

export interface ApiClientOptions {
  profileId: string
  baseUrl: string
  serviceName: string
  apiKey: string
  /** Asked once per request; the secret is never kept by the client. */
  getSecret: () => Promise<string>
  /** Default: a Transport of its own (closed by close()), on `dispatcher` when given. */
  transport?: HttpTransport
  dispatcher?: Dispatcher
  /** Share one per profile so every client of the profile counts against the same limits. */
  budget?: RateBudget
  clock?: SkewClock
  retry?: RetryOptions
}

/** priority, signal and maxWaitMs as for RateBudget.acquire; the signal also cancels the request. */
export type CallOptions = AcquireOptions

export interface RequestEvent {
  endpoint: EndpointName
  /** Absent when no answer arrived. */
  httpStatus?: number
  /** 1-based attempt of this call. */
  attempt: number
  durationMs: number
  /** Time this attempt waited for the rate budget before it was sent. */
  budgetWaitMs: number
  outcome: 'ok' | ApiErrorKind
  /** The error's message when the outcome is not 'ok'. */
  message?: string
}

type DataOf<S extends z.ZodType> = z.output<S> extends { data: infer D } ? D : never
type Data<N extends EndpointName> = DataOf<(typeof endpoints)[N]['response']>

export type OnrampQuoteInput = Omit<OnrampQuoteRequest, 'fiatAmount' | 'type'> & { fiatAmount: DecimalString }
export type OfframpQuoteInput = Omit<OfframpQuoteRequest, 'quantity' | 'type'> & { quantity: DecimalString }

/**
 * Signed timestamps trail the estimated server time by this much: the Date header only
 * has whole seconds, and the service refuses a timestamp ahead of its clock but accepts
 * one a little behind.
 */
const SIGN_LAG_MS = 1_000

/** An estimate change beyond this between signing and answer means our timestamp was wrong. */
const CLOCK_MOVED_MS = 30_000

export class ApiClient {
  readonly profileId: string
  readonly budget: RateBudget
  readonly clock: SkewClock
  private readonly transport: HttpTransport
  private readonly ownsTransport: boolean
  private readonly listeners = new Set<(e: RequestEvent) => void>()
  private readonly counts = Object.fromEntries(endpointNames.map((n) => [n, 0])) as Record<EndpointName, number>

  constructor(private readonly o: ApiClientOptions) {
    this.profileId = o.profileId
    if (o.budget && o.budget.profileId !== o.profileId)
      throw new Error(`budget belongs to profile ${o.budget.profileId}, not ${o.profileId}`)
    this.budget = o.budget ?? new RateBudget({ profileId: o.profileId })
    this.clock = o.clock ?? new SkewClock()
    this.ownsTransport = !o.transport
    this.transport = o.transport ?? new Transport({ dispatcher: o.dispatcher })
  }

  allChainMapping(opts?: CallOptions): Promise<Data<'allChainMapping'>> {
    return this.call('allChainMapping', {}, opts)
  }

  allCoinLimits(req: RequestOf<'allCoinLimits'>, opts?: CallOptions): Promise<Data<'allCoinLimits'>> {
    return this.call('allCoinLimits', req, opts)
  }

  allGasFee(opts?: CallOptions): Promise<Data<'allGasFee'>> {
    return this.call('allGasFee', {}, opts)
  }

  merchantHistory(req: MerchantHistoryRequest & { type: 1 }, opts?: CallOptions): Promise<z.output<typeof OnrampHistoryResponse>['data']>
  merchantHistory(req: MerchantHistoryRequest & { type: 2 }, opts?: CallOptions): Promise<z.output<typeof OfframpHistoryResponse>['data']>
  merchantHistory(
    req: MerchantHistoryRequest & { type: 1 | 2 },
    opts?: CallOptions
  ): Promise<z.output<typeof OnrampHistoryResponse>['data'] | z.output<typeof OfframpHistoryResponse>['data']>
  merchantHistory(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions) {
    return this.callWith('merchantHistory', req, opts, req.type === 2 ? OfframpHistoryResponse : OnrampHistoryResponse)
  }

  allConfigMapping(opts?: CallOptions): Promise<Data<'allConfigMapping'>> {
    return this.call('allConfigMapping', {}, opts)
  }

  sendDummyWebhook(req: RequestOf<'sendDummyWebhook'> = {}, opts?: CallOptions): Promise<Data<'sendDummyWebhook'>> {
    return this.call('sendDummyWebhook', req, opts)
  }

  resendWebhook(req: RequestOf<'resendWebhook'>, opts?: CallOptions): Promise<Data<'resendWebhook'>> {
    return this.call('resendWebhook', req, opts)
  }

  setWebhookUrl(req: RequestOf<'setWebhookUrl'>, opts?: CallOptions): Promise<Data<'setWebhookUrl'>> {
    return this.call('setWebhookUrl', req, opts)
  }

  async onrampQuote(req: OnrampQuoteInput, opts?: CallOptions): Promise<z.output<typeof OnrampQuoteResponse>['data']> {
    const body = { ...req, fiatAmount: jsonAmount('fiatAmount', req.fiatAmount), type: 1 }
    return this.callWith('quotes', body, opts, OnrampQuoteResponse)
  }

  async offrampQuote(req: OfframpQuoteInput, opts?: CallOptions): Promise<z.output<typeof OfframpQuoteResponse>['data']> {
    const body = { ...req, quantity: jsonAmount('quantity', req.quantity), type: 2 }
    return this.callWith('quotes', body, opts, OfframpQuoteResponse)
  }

  priceTicker(req: RequestOf<'priceTicker'>, opts?: CallOptions): Promise<Data<'priceTicker'>> {
    return this.call('priceTicker', req, opts)
  }

  orderStatus(req: RequestOf<'orderStatus'>, opts?: CallOptions): Promise<Data<'orderStatus'>> {
    return this.call('orderStatus', req, opts)
  }

  limits(req: RequestOf<'limits'>, opts?: CallOptions): Promise<Data<'limits'>> {
    return this.call('limits', req, opts)
  }

  publicAllGasFee(opts?: CallOptions): Promise<Data<'publicAllGasFee'>> {
    return this.call('publicAllGasFee', undefined, opts)
  }

  bankDetails(opts?: CallOptions): Promise<Data<'bankDetails'>> {
    return this.call('bankDetails', undefined, opts)
  }

  publicAllConfig(opts?: CallOptions): Promise<Data<'publicAllConfig'>> {
    return this.call('publicAllConfig', undefined, opts)
  }

  /** Called once per HTTP attempt; returns the unsubscribe function. */
  onRequest(listener: (e: RequestEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** HTTP requests sent per endpoint since construction (retries included). */
  stats(): Record<EndpointName, number> {
    return { ...this.counts }
  }

  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close()
  }

  private call<N extends EndpointName>(name: N, input: unknown, opts?: CallOptions): Promise<Data<N>> {
    return this.callWith(name, input, opts, endpoints[name].response as z.ZodType) as Promise<Data<N>>
  }

  private async callWith<S extends z.ZodType>(name: EndpointName, input: unknown, opts: CallOptions = {}, schema: S): Promise<DataOf<S>> {
    const def = endpoints[name]
    const checked = (def.request as z.ZodType).safeParse(input)
    if (!checked.success) {
      const { path, message } = firstIssue(checked.error.issues)
      throw new ApiError({ kind: 'invalid_request', endpoint: name, path, message: path ? `${path}: ${message}` : message })
    }
    return withRetry((attempt) => this.attempt(name, checked.data, schema, opts, attempt), def.effect, this.o.retry, opts.signal)
  }

  /** One attempt through the budget, plus one re-signed repeat if the service calls our clock ahead of its own. */
  private async attempt<S extends z.ZodType>(name: EndpointName, body: unknown, schema: S, opts: CallOptions, attempt: number) {
    let resynced = false
    for (;;) {
      const skewBefore = this.clock.skewMs
      const { res, sentAt, receivedAt, budgetWaitMs } = await this.exchange(name, body, opts, attempt)
      if (res.date !== undefined) this.clock.observe(res.date, sentAt, receivedAt)
      // The answer moved our estimate of the service's clock a long way: a refusal of this
      // request's timestamp (too old, or ahead) is worth one re-signed repeat.
      const clockMoved = Math.abs(this.clock.skewMs - skewBefore) > CLOCK_MOVED_MS
      try {
        const data = this.interpret(name, res, schema)
        this.emit({ endpoint: name, httpStatus: res.status, attempt, durationMs: receivedAt - sentAt, budgetWaitMs, outcome: 'ok' })
        return data
      } catch (e) {
        const err = e as ApiError
        this.emit({
          endpoint: name,
          httpStatus: res.status,
          attempt,
          durationMs: receivedAt - sentAt,
          budgetWaitMs,
          outcome: err.kind,
          message: err.message
        })
        if (err.kind !== 'auth') throw err
        const ahead = /ahead of time/i.test(err.message)
        if (!ahead && (!clockMoved || resynced)) throw err
        if (resynced || res.date === undefined)
          throw new ApiError({
            kind: 'clock_skew',
            endpoint: name,
            httpStatus: res.status,
            skewMs: this.clock.skewMs,
            message: `the service refused our timestamp as ahead of its clock (${err.message})`
          })
        this.clock.resync(res.date, sentAt, receivedAt)
        resynced = true
      }
    }
  }

  /** Budget, secret, signature, wire. */
  private async exchange(name: EndpointName, body: unknown, opts: CallOptions, attempt: number) {
    const def = endpoints[name]
    const waitFrom = this.clock.local()
    await this.budget.acquire(name, opts)
    const budgetWaitMs = this.clock.local() - waitFrom
    let headers: Record<string, string> = { Accept: 'application/json' }
    let bodyText: string | undefined
    if (def.auth) {
      const signed = signRequest({
        serviceName: this.o.serviceName,
        apiKey: this.o.apiKey,
        apiSecret: await this.secret(name),
        body: body as Record<string, unknown>,
        timestamp: Math.floor(this.clock.now()) - SIGN_LAG_MS
      })
      headers = signed.headers
      bodyText = signed.bodyText
    }
    const url = this.o.baseUrl.replace(/\/+$/, '') + endpointPath(this.o.serviceName, name)
    this.counts[name]++
    const sentAt = this.clock.local()
    try {
      const res = await this.transport.request({ method: def.method, url, headers, body: bodyText, signal: opts.signal, endpoint: name })
      return { res, sentAt, receivedAt: this.clock.local(), budgetWaitMs }
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError({ kind: 'network', endpoint: name, message: String(e) }, { cause: e })
      this.emit({ endpoint: name, attempt, durationMs: this.clock.local() - sentAt, budgetWaitMs, outcome: err.kind, message: err.message })
      throw err
    }
  }

  private async secret(name: EndpointName): Promise<string> {
    try {
      return await this.o.getSecret()
    } catch (e) {
      // Keep the store's own reason (no secret stored, keychain locked) when it gave one.
      const message = e instanceof ApiError && e.kind === 'missing_secret' ? e.message : 'the API secret of this profile could not be read'
      throw new ApiError({ kind: 'missing_secret', endpoint: name, message, retryable: false }, { cause: e })
    }
  }

  private interpret<S extends z.ZodType>(name: EndpointName, res: TransportResponse, schema: S): DataOf<S> {
    const httpStatus = res.status
    let json: unknown
    let isJson = true
    try {
      json = JSON.parse(res.bodyText)
    } catch {
      isJson = false
    }
    const env = isJson ? ErrorEnvelope.safeParse(json) : undefined
    const failure = env?.success ? env.data : undefined
    const code = failure?.code

    if (httpStatus === 429 || code === 429) {
      const nextSlotAt = this.budget.penalize(name)
      const message = failure ? serviceSays(failure) : 'too many requests'
      throw new ApiError({ kind: 'rate_limited', origin: 'service', endpoint: name, httpStatus, code, nextSlotAt, message })
    }
    if (failure) {
      const auth = [401, 403].includes(failure.code) || httpStatus === 401 || httpStatus === 403
      throw new ApiError({ kind: auth ? 'auth' : 'api', endpoint: name, httpStatus, code, message: serviceSays(failure) })
    }
    if (httpStatus < 200 || httpStatus > 299)
      throw new ApiError({ kind: 'http', endpoint: name, httpStatus, message: `HTTP ${httpStatus} without the service's error envelope` })
    // Not JSON at all is damage in transit (a cut or garbled body), unlike JSON of the wrong
    // shape: worth another try for a read.
    if (!isJson) throw new ApiError({ kind: 'schema', endpoint: name, httpStatus, message: 'the response is not JSON', retryable: true })
    let parsed: z.ZodSafeParseResult<z.output<S>>
    try {
      parsed = schema.safeParse(json)
    } catch (e) {
      // A transform in a schema that throws still means: a shape we do not understand.
      throw new ApiError({ kind: 'schema', endpoint: name, httpStatus, message: e instanceof Error ? e.message : String(e) }, { cause: e })
    }
    if (!parsed.success) {
      const { path, message } = firstIssue(parsed.error.issues)
      throw new ApiError({ kind: 'schema', endpoint: name, httpStatus, path, message: path ? `${path}: ${message}` : message })
    }
    return (parsed.data as { data: DataOf<S> }).data
  }

  private emit(e: RequestEvent): void {
    for (const l of this.listeners) l(e)
  }
}

function serviceSays(f: ErrorEnvelope): string {
  return f.error ?? f.message ?? serviceErrorCodes[f.code] ?? `error ${f.code}`
}

/** An amount as the JSON number the spec wants, refused when the number would not say the same thing. */
function jsonAmount(field: string, amount: DecimalString): number {
  const n = Number(amount)
  if (typeof amount !== 'string' || !isDecimalText(amount) || !Number.isFinite(n) || toDecimalString(n) !== toDecimalString(amount))
    throw new ApiError({
      kind: 'invalid_request',
      endpoint: 'quotes',
      path: field,
      message: `${field} ${JSON.stringify(amount)} cannot be sent exactly as a JSON number`
    })
  return n
}

type Issue = z.core.$ZodIssue

/** The first issue, descending into the union branch that got furthest, with its path as "data[3].updatedAt". */
function firstIssue(issues: readonly Issue[], prefix: PropertyKey[] = []): { path: string; message: string } {
  const deepest = (list: readonly Issue[], base: PropertyKey[]): { keys: PropertyKey[]; message: string } => {
    const issue = list[0]
    if (!issue) return { keys: base, message: 'invalid' }
    const keys = [...base, ...issue.path]
    if (issue.code === 'invalid_union' && issue.errors.length > 0)
      return issue.errors.map((branch) => deepest(branch, keys)).reduce((best, b) => (b.keys.length > best.keys.length ? b : best))
    return { keys, message: issue.message }
  }
  const { keys, message } = deepest(issues, prefix)
  return { path: formatPath(keys), message }
}

function formatPath(keys: PropertyKey[]): string {
  return keys.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '')
}

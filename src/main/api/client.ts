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
  OfframpQuoteResponse,
  OnrampQuoteResponse,
  type EndpointName,
  type MerchantHistoryRequest,
  type OfframpQuoteRequest,
  type OnrampQuoteRequest,
  type RequestOf
} from '../../shared/api/endpoints'
import { ApiError, serviceErrorCodes, type ApiErrorKind } from '../../shared/api/errors'
import {
  ErrorEnvelope,
  envelope,
  limitsOfType,
  type OfframpOrder as OfframpRecord,
  type OnrampOrder as OnrampRecord
} from '../../shared/api/schemas'
import type { DecimalString } from '../../shared/money'
import { SkewClock, type ClockSource } from './clock'
import { ParamEncodings, type EncodingMap } from './param-encoding'
import { jsonAmount } from './json-amount'
import { OutageGate, unreachable, type GateCall } from './outage-gate'
import { describeShape } from './response-shape'
import { RateBudget, type AcquireOptions } from './rate-budget'
import { withRetry, type RetryOptions } from './retry'
import { firstIssue } from './schema-issues'
import { signRequest } from './signer'
import { Transport, type HttpTransport, type TransportResponse } from './transport'
import { z as zod } from 'zod'
import { SHARED_READS, type SharedReads } from './shared-reads'
import { readHistoryPage, type HistoryPageResult } from './history-page'

export type { HistoryPageResult, RejectedRecord } from './history-page'

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
  /** Share one per profile (it persists what the service's parameter typing taught). */
  encodings?: ParamEncodings
  /**
   * Ask currentTimestamp for the service's time before the first signed request, every
   * 15 minutes after, and when the service refuses a timestamp. Default true; where the
   * service answers 404 the client uses Date headers (and asks again an hour later).
   */
  clockProbe?: boolean
  retry?: RetryOptions
  /** Holds requests while the service cannot be reached (outage-gate.ts). Default: one of its own. */
  gate?: OutageGate
  /** Hubs on one database: the configuration and price reads are the leader's (shared-reads.ts). */
  sharedReads?: SharedReads
}

/**
 * priority, signal and maxWaitMs as for RateBudget.acquire; the signal also cancels the
 * request. refusalExpected: the caller asks knowing the service may refuse (page 0 of
 * merchantHistory, to learn how pages are numbered), and a refusal it names is an answer to
 * it, not a failure of the service: its request event says so (`expected`), and the
 * diagnostics and the support log keep it out of their failures.
 */
export type CallOptions = AcquireOptions & { refusalExpected?: (e: ApiError) => boolean }

export interface RequestEvent {
  endpoint: EndpointName
  /** Absent when no answer arrived. */
  httpStatus?: number
  /** 1-based attempt of this call. */
  attempt: number
  /** From sending to the answer (0 when nothing was sent). */
  durationMs: number
  /** How long the request waited for the rate budget before it was sent. */
  budgetWaitMs: number
  outcome: 'ok' | ApiErrorKind
  /** The service's or the transport's words, for failures. */
  message?: string
  /** A short description of the answer's shape (e.g. "allCoinLimits shape B"), for diagnostics. */
  shape?: string
  /** A refusal the caller asked for knowing it may come (CallOptions.refusalExpected): an answer, not a failure. */
  expected?: true
}

/** One attempt of a call, as its encodings and its clock resync repeat it: everything but the body. */
interface AttemptOf<S extends z.ZodType> {
  name: EndpointName
  schema: S
  opts: CallOptions
  /** 1-based attempt of the call. */
  attempt: number
  /** The call it belongs to, for the outage gate. */
  call: GateCall
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

/** An estimate change beyond this after a refusal means our timestamp was wrong. */
const CLOCK_MOVED_MS = 30_000
/** currentTimestamp is asked again after this long. */
const CLOCK_REFRESH_MS = 15 * 60_000
/** After a 404 from currentTimestamp, it is tried again after this long. */
const CLOCK_UNAVAILABLE_RETRY_MS = 60 * 60_000

/** An empty listing may come as `data: null` or without `data` (the spec shows no empty answer): both are no records. */
const HistoryEnvelope = envelope(
  zod
    .array(zod.unknown())
    .nullish()
    .transform((d) => d ?? [])
)
/** Words of a refusal that may be about the signed timestamp rather than the key or signature. */
const TIME_REFUSAL = /expired|timestamp|too old|stale|clock|time window/i

export class ApiClient {
  readonly profileId: string
  readonly budget: RateBudget
  readonly clock: SkewClock
  readonly encodings: ParamEncodings
  readonly gate: OutageGate
  private readonly transport: HttpTransport
  private readonly ownsTransport: boolean
  private readonly listeners = new Set<(e: RequestEvent) => void>()
  private readonly counts = Object.fromEntries(endpointNames.map((n) => [n, 0])) as Record<EndpointName, number>
  /** currentTimestamp: whether it answers (null: not asked yet) and when it was last asked. */
  private serverTime: { available: boolean | null; askedAt: number | null; pending: Promise<boolean> | null } = {
    available: null,
    askedAt: null,
    pending: null
  }

  constructor(private readonly o: ApiClientOptions) {
    this.profileId = o.profileId
    if (o.budget && o.budget.profileId !== o.profileId)
      throw new Error(`budget belongs to profile ${o.budget.profileId}, not ${o.profileId}`)
    this.budget = o.budget ?? new RateBudget({ profileId: o.profileId })
    this.clock = o.clock ?? new SkewClock()
    this.encodings = o.encodings ?? new ParamEncodings()
    this.gate = o.gate ?? new OutageGate()
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

  merchantHistory(req: MerchantHistoryRequest & { type: 1 }, opts?: CallOptions): Promise<OnrampRecord[]>
  merchantHistory(req: MerchantHistoryRequest & { type: 2 }, opts?: CallOptions): Promise<OfframpRecord[]>
  merchantHistory(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions): Promise<(OnrampRecord | OfframpRecord)[]>
  /** One history page, every record valid (a record that is not fails the call as 'schema'). */
  async merchantHistory(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions) {
    const page = await this.historyPage(req, opts)
    const bad = page.rejected[0]
    if (bad) {
      const path = `data[${bad.index}]${bad.path ? `.${bad.path}` : ''}`
      throw new ApiError({
        kind: 'schema',
        endpoint: 'merchantHistory',
        path,
        message: bad.path ? `data[${bad.index}].${bad.reason}` : `data[${bad.index}]: ${bad.reason}`
      })
    }
    return page.records
  }

  historyPage(req: MerchantHistoryRequest & { type: 1 }, opts?: CallOptions): Promise<HistoryPageResult<OnrampRecord>>
  historyPage(req: MerchantHistoryRequest & { type: 2 }, opts?: CallOptions): Promise<HistoryPageResult<OfframpRecord>>
  historyPage(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions): Promise<HistoryPageResult<OnrampRecord | OfframpRecord>>
  /**
   * One history page, read record by record: a record that does not match its schema is
   * returned apart (raw, with the reason and whatever id and time could be read) instead
   * of failing the page, so one malformed order never blocks its scope.
   */
  async historyPage(req: MerchantHistoryRequest & { type: 1 | 2 }, opts?: CallOptions) {
    const data = await this.callWith('merchantHistory', req, opts, HistoryEnvelope)
    return readHistoryPage(data, req.type)
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

  async limits(req: RequestOf<'limits'>, opts?: CallOptions): Promise<Data<'limits'>> {
    return limitsOfType(await this.call('limits', req, opts), Number(req.type) as 1 | 2 | 3)
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

  /** The operator asked to try again, or the network came back: while the service could not be reached, the next request finds out at once. */
  probeNow(): void {
    this.gate.probeNow()
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
    const shared = this.o.sharedReads && SHARED_READS.has(name) ? this.o.sharedReads : null
    if (shared) {
      const answer = await shared.read(name, checked.data, opts.signal)
      if (answer !== null) return answer as DataOf<S>
    }
    // The call's attempts are one to the outage gate: its own retries are never held by it.
    const call: GateCall = {}
    let data: DataOf<S>
    try {
      data = await withRetry(
        (attempt) => this.typed(checked.data, { name, schema, opts, attempt, call }),
        def.effect,
        this.o.retry,
        opts.signal
      )
    } catch (e) {
      this.gate.settled(call, e)
      throw e
    }
    this.gate.settled(call, null)
    shared?.publish(name, checked.data, data)
    return data
  }

  /** Sends a shared read for the other hubs (the leader, asked by a follower); its answer is published. */
  async fetchShared(name: EndpointName, input: unknown): Promise<void> {
    if (!SHARED_READS.has(name)) throw new Error(`${name} is not a shared read`)
    await this.call(name, input, { priority: 'background' })
  }

  /**
   * Sends the body with its integer-valued fields in the encoding the service takes; on 409
   * "wrong parameter type" tries the other encodings (param-encoding.ts decides which) and
   * remembers the one that was answered.
   */
  private async typed<S extends z.ZodType>(body: unknown, t: AttemptOf<S>) {
    const name = t.name
    if (body === undefined || body === null || typeof body !== 'object') return this.attempt(body, t)
    const fields = body as Record<string, unknown>
    const first = this.encodings.current(name, fields)
    const tried: EncodingMap[] = []
    for (let map = first; ;) {
      tried.push(map)
      try {
        const data = await this.attempt(this.encodings.encode(fields, map), t)
        this.encodings.accepted(name, map)
        return data
      } catch (e) {
        if (!isWrongParameterType(e) || Object.keys(first).length === 0) throw e
        const next = this.encodings.next(name, first, map, e.message, tried)
        if (!next)
          throw new ApiError({
            kind: 'api',
            endpoint: name,
            httpStatus: e.httpStatus,
            code: 409,
            retryable: false,
            message: `the service refused the parameter types of ${name} in each of ${tried.length} encodings tried (${e.message})`
          })
        map = next
      }
    }
  }

  /**
   * One attempt through the budget, plus one re-signed repeat when the service refused our
   * timestamp and asking it the time corrected our estimate.
   */
  private async attempt<S extends z.ZodType>(body: unknown, { name, schema, opts, attempt, call }: AttemptOf<S>) {
    let resynced = false
    for (;;) {
      const { res, sentAt, receivedAt, waitedMs } = await this.exchange(name, body, opts, attempt, call)
      // Only successful answers speak for the service's clock: an error page may come from a
      // proxy or a maintenance host with a clock of its own.
      if (res.date !== undefined && res.status >= 200 && res.status <= 299) this.clock.observe(res.date, sentAt, receivedAt, 'date')
      const event = { endpoint: name, httpStatus: res.status, attempt, durationMs: receivedAt - sentAt, budgetWaitMs: waitedMs }
      let data: DataOf<S>
      try {
        data = this.interpret(name, res, schema)
      } catch (e) {
        const err = e as ApiError
        this.emit({
          ...event,
          outcome: err.kind,
          message: err.message,
          ...(opts.refusalExpected?.(err) ? { expected: true as const } : {})
        })
        if (err.kind !== 'auth' || !endpoints[name].auth) throw err
        const ahead = /ahead of time/i.test(err.message)
        const skew = (why: string) =>
          new ApiError({
            kind: 'clock_skew',
            endpoint: name,
            httpStatus: res.status,
            skewMs: this.clock.skewMs,
            message: `the service refused our timestamp as ahead of its clock (${err.message}), ${why}`
          })
        if (resynced) throw ahead ? skew('even after asking it the time') : err
        // A refusal of our timestamp (ahead, or in words such as "expired"): ask the time,
        // and sign again only if the answer shows our clock was off.
        if (!ahead && !TIME_REFUSAL.test(err.message)) throw err
        const before = this.clock.skewMs
        const fresh = await this.resyncClock(opts.signal)
        if (ahead && !fresh) throw skew('and its time could not be read')
        if (!ahead && Math.abs(this.clock.skewMs - before) <= CLOCK_MOVED_MS) throw err
        resynced = true
        continue
      }
      this.emit({ ...event, outcome: 'ok', shape: describeShape(name, res.bodyText) })
      return data
    }
  }

  /** Outage gate, budget, clock, secret, signature, wire. `call`: the call the attempt belongs to (null: the client's own, sent as interactive). */
  private async exchange(name: EndpointName, body: unknown, opts: CallOptions, attempt: number, call: GateCall | null) {
    const def = endpoints[name]
    const gateCall = call ?? {}
    const priority = opts.priority ?? 'background'
    await this.gate.pass(gateCall, name, priority, opts.signal)
    // A probe that would wait for its budget lane lets a request that can go find out instead.
    if (!this.budget.ready(name, priority)) this.gate.stepAside(gateCall)
    if (def.auth) await this.ensureClock(opts.signal)
    const waitStart = this.clock.local()
    await this.budget.acquire(name, opts)
    const waitedMs = this.clock.local() - waitStart
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
      this.gate.answered()
      return { res, sentAt, receivedAt: this.clock.local(), waitedMs }
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError({ kind: 'network', endpoint: name, message: String(e) }, { cause: e })
      this.emit({
        endpoint: name,
        attempt,
        durationMs: this.clock.local() - sentAt,
        budgetWaitMs: waitedMs,
        outcome: err.kind,
        message: err.message
      })
      if (unreachable(err)) this.gate.failed(call, err)
      throw err
    }
  }

  /** Before a signed request: the service's time once, and again when it is 15 minutes old (in the background). */
  private async ensureClock(signal?: AbortSignal): Promise<void> {
    if (this.o.clockProbe === false) return
    const t = this.serverTime
    if (t.askedAt === null) {
      await this.askServerTime('observe', signal)
      return
    }
    const age = this.clock.local() - t.askedAt
    if ((t.available !== false && age > CLOCK_REFRESH_MS) || (t.available === false && age > CLOCK_UNAVAILABLE_RETRY_MS))
      void this.askServerTime('observe')
  }

  /** After a refused timestamp: a fresh reading of the service's clock, from currentTimestamp or a Date header of a successful answer. */
  private async resyncClock(signal?: AbortSignal): Promise<boolean> {
    if (await this.askServerTime('resync', signal)) return true
    try {
      // No currentTimestamp: any successful unsigned answer carries a Date header.
      const { res, sentAt, receivedAt } = await this.exchange('bankDetails', undefined, { priority: 'interactive', signal }, 1, null)
      if (res.status < 200 || res.status > 299 || res.date === undefined) return false
      return this.clock.resync(res.date, sentAt, receivedAt, 'date')
    } catch {
      return false
    }
  }

  /** Asks currentTimestamp (one request at a time); false when it does not answer with a time. */
  private askServerTime(mode: 'observe' | 'resync', signal?: AbortSignal): Promise<boolean> {
    const t = this.serverTime
    if (this.o.clockProbe === false) return Promise.resolve(false)
    if (t.available === false && t.askedAt !== null && this.clock.local() - t.askedAt < CLOCK_UNAVAILABLE_RETRY_MS)
      return Promise.resolve(false)
    t.pending ??= (async () => {
      t.askedAt = this.clock.local()
      try {
        const { res, sentAt, receivedAt, waitedMs } = await this.exchange(
          'currentTimestamp',
          undefined,
          { priority: 'interactive', signal },
          1,
          null
        )
        const event = {
          endpoint: 'currentTimestamp' as const,
          httpStatus: res.status,
          attempt: 1,
          durationMs: receivedAt - sentAt,
          budgetWaitMs: waitedMs
        }
        let ms: number
        try {
          ms = this.interpret('currentTimestamp', res, endpoints.currentTimestamp.response)
        } catch (e) {
          const err = e as ApiError
          this.emit({ ...event, outcome: err.kind, message: err.message })
          // Not found, or not a time: this service has no such endpoint (it is not in the spec).
          if (err.kind === 'schema' || res.status === 404 || res.status === 405 || err.code === 404) t.available = false
          return false
        }
        this.emit({ ...event, outcome: 'ok', shape: 'server time in ms' })
        t.available = true
        const source: ClockSource = 'currentTimestamp'
        return mode === 'resync' ? this.clock.resync(ms, sentAt, receivedAt, source) : this.clock.observe(ms, sentAt, receivedAt, source)
      } catch {
        return false
      } finally {
        t.pending = null
      }
    })()
    return t.pending
  }

  /** Whether currentTimestamp answers (null: not asked yet). */
  get serverTimeAvailable(): boolean | null {
    return this.serverTime.available
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

/** The service's 409: a parameter of the wrong JSON type (live-service notes, error codes). */
function isWrongParameterType(e: unknown): e is ApiError {
  return e instanceof ApiError && e.kind === 'api' && (e.code === 409 || e.httpStatus === 409)
}

function serviceSays(f: ErrorEnvelope): string {
  return f.error ?? f.message ?? serviceErrorCodes[f.code] ?? `error ${f.code}`
}

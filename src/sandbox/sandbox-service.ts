// The simulated service behind the HTTP layer: configuration answers, quotes, orders,
// webhooks, and the control surface tests and the demo use. The HTTP router
// (http-server.ts) authenticates, rate-limits and validates, then calls handle().
// Where the spec leaves an answer open (ticker and limits shapes for types 2 and 3,
// allCoinLimits shape A or B, since, tie order, churn while paging), the readings
// decide; see readings.ts.
import { toDecimalString } from '../shared/money'
import { statusInfo } from '../shared/domain/status'
import { applyReadings, copyReadings, defaultReadings, type ReadingsInput, type SandboxReadings } from './readings'
import type { EndpointName } from './routes'
import { sampleAddress, sampleTxHash } from './sample-addresses'
import { BANK_DETAILS, COINS, FIATS, INR, findCoinByCode, findCoinById, type CoinDef } from './catalogue'
import { SandboxError, fail } from './errors'
import { FaultInjector, type FaultSpec, type FaultTarget } from './faults'
import { ChainHealth } from './chain-health'
import * as configAnswers from './config-answers'
import { OrderGenerator, generateHistoricOrders, type CreateOrderSpec, type OrderFiats, type TickResult } from './order-generator'
import { OFFRAMP, ONRAMP, pathAt } from './order-paths'
import { OrderRenderer, WalletBook } from './order-render'
import { OrderStore, reportedUpdatedAt, type IdSequence } from './order-store'
import { PriceBook } from './price-book'
import { fiatOf, quoteOfframp, quoteOnramp, resolveTarget } from './quote-engine'
import { deriveSeed, randInt, streamOf, STREAM, type Rng } from './rng'
import { WebhookDispatcher, type DeliveryRecord } from './webhook-dispatcher'

export interface ServiceOptions {
  seed: number
  serviceName: string
  apiKey: string
  apiSecret: string
  orders: number
  now: () => number
  clockOffsetMs: number
  webhookTimeoutMs: number
  webhookMaxTrials: number
  webhookBackoffMs: number
  webhookBackoffMaxMs: number
  createChance: number
  readings?: ReadingsInput
  /** One order id sequence for both types (default), or one per type. */
  orderIds?: IdSequence
  /** The fiat types orders are made in, per type (default: onramp every fiat, offramp INR). */
  orderFiats?: OrderFiats
}

export interface TruthOrder {
  orderId: number
  type: 1 | 2
  fiatType: number
  status: number
  statusLabel: string
  path: string
  createdAt: string
  /** As the API reports it (spec 4.4 cutover applied). */
  updatedAt: string
  /** The real last change. */
  lastChangeAt: string
  history: { status: number; at: string }[]
  webhookTrials: number
  /** Exactly what merchantHistory returns for this order. */
  record: Record<string, unknown>
}

export interface PriceRow {
  coinId: number
  coinCode: string
  fiatType: number
  mid: string
  buy: string
  sell: string
}

const n = (s: string): number => Number(s)

export class SandboxService {
  readonly store: OrderStore
  readonly prices: PriceBook
  readonly renderer: OrderRenderer
  readonly generator: OrderGenerator
  readonly faults: FaultInjector
  /** What a test set of chains' health over the catalogue (POST /__sandbox/chains). */
  readonly chains = new ChainHealth()
  readonly webhooks: WebhookDispatcher
  readonly keys: Map<string, string>
  clockOffsetMs: number
  private current: SandboxReadings
  private readonly churnRng: Rng
  /** Rows created with `churn: false`: the churn while paging passes them by. */
  private readonly churnless = new Set<number>()
  private dummyCount = 0

  constructor(readonly o: ServiceOptions) {
    this.current = applyReadings(defaultReadings(), o.readings ?? {})
    this.store = new OrderStore(1024, deriveSeed(o.seed, STREAM.hiddenOrder), o.orderIds ?? 'shared')
    this.churnRng = streamOf(o.seed, STREAM.churn)
    this.clockOffsetMs = o.clockOffsetMs
    this.keys = new Map([[o.apiKey, o.apiSecret]])
    const started = this.serverNow()
    this.prices = new PriceBook(o.seed, started)
    this.renderer = new OrderRenderer(o.seed, this.store, new WalletBook(o.seed))
    this.faults = new FaultInjector(o.seed)
    this.webhooks = new WebhookDispatcher({
      serviceName: o.serviceName,
      serverNow: () => this.serverNow(),
      timeoutMs: o.webhookTimeoutMs,
      maxTrials: o.webhookMaxTrials,
      backoffBaseMs: o.webhookBackoffMs,
      backoffMaxMs: o.webhookBackoffMaxMs,
      payloadForm: () => this.current.webhookPayloadForm
    })
    this.generator = new OrderGenerator(
      { store: this.store, prices: this.prices, seed: o.seed, fiats: o.orderFiats },
      {
        onTerminal: (row) => this.orderCompleted(row),
        onRecognitionId: (row, id) => this.renderer.recognitionOverrides.set(row, id)
      },
      o.createChance
    )
    generateHistoricOrders({ store: this.store, prices: this.prices, seed: o.seed, fiats: o.orderFiats }, o.orders, started)
    if (this.current.tieOrder === 'hidden') this.store.enableHiddenOrder()
  }

  /** The readings in force (a copy). */
  get readings(): SandboxReadings {
    return copyReadings(this.current)
  }

  /** Applies some readings (see readings.ts); throws ReadingsError and changes nothing when one is invalid. */
  setReadings(input: unknown): SandboxReadings {
    this.current = applyReadings(this.current, input)
    // Build the second index now rather than on the first page asked for.
    if (this.current.tieOrder === 'hidden') this.store.enableHiddenOrder()
    return this.readings
  }

  /** The readings, without copying (the router reads them on every request). */
  get r(): Readonly<SandboxReadings> {
    return this.current
  }

  /** The sandbox's own clock: the injected clock plus the configured offset. */
  serverNow(): number {
    return Math.floor(this.o.now() + this.clockOffsetMs)
  }

  // ---------------------------------------------------------------- endpoints

  /** Answers one validated request; returns the whole success envelope. */
  handle(name: EndpointName, body: Record<string, unknown>, apiKey: string | null): Promise<unknown> | unknown {
    switch (name) {
      case 'allChainMapping':
        return ok(configAnswers.chainMap())
      case 'allCoinLimits':
        return ok(configAnswers.coinLimits(Number(body.fiatType), this.current.coinLimitsShape))
      case 'allGasFee':
        return ok(configAnswers.gasFees(this.chains))
      case 'merchantHistory':
        return this.history(body)
      case 'allConfigMapping':
        return ok(configAnswers.configMapping())
      case 'sendDummyWebhook':
        return this.sendDummy(apiKey as string, body.webhookUrl as string | undefined)
      case 'resendWebhook':
        return this.resend(apiKey as string, Number(body.orderId))
      case 'setWebhookUrl':
        this.webhooks.urls.set(apiKey as string, body.webhookUrl as string)
        return ok(`Webhook URL set to ${String(body.webhookUrl)}`)
      case 'quotes':
        return ok(this.quote(body))
      case 'priceTicker':
        return ok(this.ticker(Number(body.type), Number(body.fiatType)))
      case 'orderStatus':
        return ok({ orderStatus: this.orderStatus(Number(body.orderId), Number(body.type)) })
      case 'limits':
        return ok(configAnswers.limits(Number(body.type), this.current.limitsShape))
      case 'publicAllGasFee':
        return ok({ allGasFee: configAnswers.publicGasFees(this.chains) })
      case 'bankDetails':
        return ok(BANK_DETAILS)
      case 'publicAllConfig':
        return ok(configAnswers.publicConfig(this.chains, this.prices))
      case 'currentTimestamp':
        return ok(this.serverNow())
    }
  }

  /**
   * Type 1: onramp (buy) prices by coin id (spec 4.11). Types 2 (sell, INR only) and 3
   * (both; sell empty outside INR), not shown, per tickerShape: split {offramp} and
   * {onramp, offramp}; buySell {sell} and {buy, sell}.
   */
  private ticker(type: number, fiatType: number): unknown {
    const { fiatIndex } = fiatOf(fiatType)
    if (type === 2 && fiatType !== INR) fail(406, 'Offramp prices are quoted in INR (fiatType 1) only')
    const onramp = () => Object.fromEntries(COINS.map((c, i) => [String(c.id), n(this.prices.price(i, fiatIndex, 'buy'))]))
    const offramp = () =>
      fiatType !== INR
        ? {}
        : Object.fromEntries(
            COINS.flatMap((c, i) => (c.offrampNetworks.length > 0 ? [[String(c.id), n(this.prices.price(i, 0, 'sell'))]] : []))
          )
    if (type === 1) return { onramp: onramp() }
    const [buy, sell] = this.current.tickerShape === 'buySell' ? ['buy', 'sell'] : ['onramp', 'offramp']
    return type === 2 ? { [sell]: offramp() } : { [buy]: onramp(), [sell]: offramp() }
  }

  private quote(body: Record<string, unknown>): unknown {
    const target = {
      coinId: body.coinId as number | undefined,
      coinCode: body.coinCode as string | undefined,
      chainId: body.chainId as number | undefined,
      network: body.network as string | undefined
    }
    if (body.type === 1) {
      const { fiat, fiatIndex } = fiatOf(Number(body.fiatType))
      const t = resolveTarget(target, 'onramp')
      const q = quoteOnramp(fiat, t, toDecimalString(body.fiatAmount as number), this.prices.price(t.coinIndex, fiatIndex, 'buy'))
      return {
        rate: n(q.rate),
        quantity: n(q.quantity),
        onrampFee: n(q.onrampFee),
        clientFee: n(q.clientFee),
        gatewayFee: n(q.gatewayFee),
        gasFee: n(q.gasFee)
      }
    }
    const t = resolveTarget(target, 'offramp')
    const q = quoteOfframp(t, toDecimalString(body.quantity as number), this.prices.price(t.coinIndex, 0, 'sell'))
    return {
      fiatAmount: n(q.fiatAmount),
      rate: n(q.rate),
      onrampFee: n(q.onrampFee),
      clientFee: n(q.clientFee),
      gatewayFee: n(q.gatewayFee),
      tdsFee: n(q.tdsFee)
    }
  }

  /**
   * merchantHistory (4.4) under the readings: what `since` filters on and what the order
   * sorts by (updatedAt or createdAt), inclusive or exclusive, the tie order, whether
   * pages count from 1 or 0, a pageSize capped below the one asked for (silently, with
   * offsets in the capped size), whether offramp listings filter by fiatType at all,
   * whether `order` is honoured, and whether an empty page is an empty array or a 404.
   */
  private history(body: Record<string, unknown>): unknown {
    const r = this.current
    const type = body.type === undefined || body.type === '' ? ONRAMP : Number(body.type)
    const fiatType = body.fiatType === undefined ? INR : Number(body.fiatType)
    const { fiatIndex } = fiatOf(fiatType)
    const page = body.page === undefined ? (r.missingPage === 'one' ? 1 : r.firstPage) : Number(body.page)
    if (page < r.firstPage) fail(400, `Invalid page: must be at least ${r.firstPage}`)
    const asked = Number(body.pageSize ?? 50)
    this.churn(r.churnPerHistoryRequest)
    const rows = this.store.page(type, fiatIndex, {
      since: body.since === undefined ? undefined : Date.parse(body.since as string),
      sinceExclusive: r.since === 'exclusive',
      tie: r.tieOrder,
      page: page - r.firstPage + 1,
      pageSize: r.pageSizeCap === null ? asked : Math.min(asked, r.pageSizeCap),
      order: r.historyDirection === 'DESC' ? 'DESC' : ((body.order as 'ASC' | 'DESC' | undefined) ?? 'ASC'),
      sinceField: r.historySince,
      orderBy: r.historyOrder,
      alsoFiats: type === OFFRAMP && r.offrampFiat === 'ignore' ? FIATS.map((_, i) => i) : undefined
    })
    if (rows.length === 0 && r.emptyHistory === '404') fail(404, 'No transactions found')
    const records = rows.map((row) => (type === OFFRAMP ? this.renderer.offramp(row) : this.renderer.onramp(row)))
    const data = rows.length === 0 && r.emptyHistory === 'null' ? null : records
    // The live offramp history omits code (the live-service notes); so does the sandbox.
    return type === OFFRAMP ? { status: 1, data } : { status: 1, data, code: 200 }
  }

  /**
   * Churn while paging: n open orders, drawn from a seeded stream, each advance one step,
   * all at one server instant (so they tie on updatedAt and move past a reader's cursor
   * together). Through the generator, so the ground truth and the webhooks follow.
   */
  churn(n: number): number[] {
    if (n <= 0) return []
    const pool = this.store.openRows().filter((row) => !this.churnless.has(row))
    const take = Math.min(n, pool.length)
    const now = this.serverNow()
    const moved: number[] = []
    for (let i = 0; i < take; i++) {
      const j = i + randInt(this.churnRng, pool.length - i)
      const row = pool[j] as number
      pool[j] = pool[i] as number
      pool[i] = row
      this.generator.advance(row, now)
      moved.push(this.store.idOf(row))
    }
    return moved
  }

  private orderStatus(orderId: number, type: number): number {
    const row = this.store.rowOf(orderId, type === 2 ? 2 : 1)
    if (row === undefined || this.store.type[row] !== type) {
      return fail(417, `Order ${orderId} does not exist${row !== undefined ? ` as a ${type === 1 ? 'onramp' : 'offramp'} order` : ''}`)
    }
    return this.store.status[row] ?? 0
  }

  private webhookUrlFor(apiKey: string, given?: string): string {
    const url = given ?? this.webhooks.urls.get(apiKey)
    if (url === undefined) return fail(400, 'No webhook URL: set one with setWebhookUrl (or pass webhookUrl)')
    return url
  }

  private sendDummy(apiKey: string, given?: string): unknown {
    const url = this.webhookUrlFor(apiKey, given)
    const n = ++this.dummyCount
    let trials = 0
    void this.webhooks.deliver({
      kind: 'dummy',
      orderId: null,
      url,
      secret: this.keys.get(apiKey) ?? '',
      retry: true,
      beforeAttempt: () => trials++,
      body: () => this.dummyBody(n, trials)
    })
    return ok(`Dummy webhook sent to ${url}`)
  }

  private dummyBody(n: number, trials: number): Record<string, unknown> {
    const rng = streamOf(this.o.seed, STREAM.dummy, n)
    const t = new Date(this.serverNow()).toISOString()
    return {
      orderId: 900000000 + n,
      walletAddress: sampleAddress('bep20', rng).address,
      coinId: 54,
      fiatType: 1,
      expectedPrice: 84.52,
      fiatAmount: 1000,
      expectedCryptoAmount: 11.3147,
      actualPrice: 84.52,
      actualCryptoAmount: 11.3147,
      kycNeeded: 0,
      createdAt: t,
      updatedAt: t,
      status: 4,
      referenceId: '410000000000',
      chainId: 1,
      onRampFee: 10,
      gasFee: 0.3,
      clientFee: 2.5,
      gatewayFee: 5,
      transactionHash: sampleTxHash('bep20', rng),
      merchantRecognitionId: `dummy-${n}`,
      paymentType: 1,
      webhookTrials: trials
    }
  }

  private async resend(apiKey: string, orderId: number): Promise<unknown> {
    // The delivered body is an onramp record (4.7): with one id sequence per type, the onramp order.
    const row = this.store.rowOf(orderId, 1)
    if (row === undefined) return fail(417, `Order ${orderId} does not exist`)
    const url = this.webhookUrlFor(apiKey)
    const r = await this.webhooks.deliver({
      kind: 'resend',
      orderId,
      url,
      secret: this.keys.get(apiKey) ?? '',
      retry: false,
      beforeAttempt: () => this.bumpTrials(row),
      body: () => this.renderer.webhookBody(row),
      onSuccess: () => this.markWebhookSent(row)
    })
    const said =
      r.httpStatus !== null
        ? `HTTP ${r.httpStatus}${r.response ? `: ${r.response.slice(0, 200)}` : ''}`
        : `no answer (${r.error ?? 'unknown error'})`
    return ok(
      r.httpStatus !== null
        ? `Response received from merchant's server: ${said}`
        : `Webhook for order ${orderId} sent to ${url}, but the merchant's server gave ${said}`
    )
  }

  private bumpTrials(row: number): void {
    this.store.webhookTrials[row] = Math.min(255, (this.store.webhookTrials[row] ?? 0) + 1)
  }

  /** An order reached the end of its path: webhook to the merchant, then "webhook sent" once acknowledged. */
  private orderCompleted(row: number): void {
    const apiKey = this.o.apiKey
    const url = this.webhooks.urls.get(apiKey)
    if (url === undefined) return
    const orderId = this.store.idOf(row)
    void this.webhooks.deliver({
      kind: 'order',
      orderId,
      url,
      secret: this.keys.get(apiKey) ?? '',
      retry: true,
      beforeAttempt: () => this.bumpTrials(row),
      body: () => this.renderer.webhookBody(row),
      onSuccess: () => this.markWebhookSent(row)
    })
  }

  /** A completed order whose webhook was acknowledged moves on to "webhook sent" (4 -> 5, 15 -> 16, ...). */
  private markWebhookSent(row: number): void {
    const path = pathAt(this.store.path[row] ?? 0)
    const last = path.statuses.length - 1
    if (path.webhookStatus !== undefined && this.store.step[row] === last && this.store.status[row] === path.statuses[last]) {
      this.store.setStatus(row, path.webhookStatus, last, this.serverNow())
    }
  }

  // ---------------------------------------------------------------- control

  truth(row: number): TruthOrder {
    const s = this.store
    const type = (s.type[row] ?? 1) as 1 | 2
    const status = s.status[row] ?? 0
    return {
      orderId: this.store.idOf(row),
      type,
      fiatType: FIATS[s.fiat[row] ?? 0]?.id ?? 0,
      status,
      statusLabel: statusInfo(type, status).serviceLabel ?? `unknown status ${status}`,
      path: pathAt(s.path[row] ?? 0).name,
      createdAt: new Date(s.createdAt[row] ?? 0).toISOString(),
      updatedAt: new Date(reportedUpdatedAt(s.updatedAt[row] ?? 0)).toISOString(),
      lastChangeAt: new Date(s.updatedAt[row] ?? 0).toISOString(),
      history: s.history(row).map((h) => ({ status: h.status, at: new Date(h.at).toISOString() })),
      webhookTrials: s.webhookTrials[row] ?? 0,
      record: this.renderer.record(row)
    }
  }

  groundTruth(filter: { type?: 1 | 2; fiatType?: number } = {}): TruthOrder[] {
    const out: TruthOrder[] = []
    const fiatIndex = filter.fiatType === undefined ? undefined : FIATS.findIndex((f) => f.id === filter.fiatType)
    for (let r = 0; r < this.store.size; r++) {
      if (filter.type !== undefined && this.store.type[r] !== filter.type) continue
      if (fiatIndex !== undefined && this.store.fiat[r] !== fiatIndex) continue
      out.push(this.truth(r))
    }
    return out
  }

  /** The row of an order; with one id sequence per type, `type` says which (else onramp first). */
  rowOrThrow(orderId: number, type?: 1 | 2): number {
    const row = this.store.rowOf(orderId, type)
    if (row === undefined || (type !== undefined && this.store.type[row] !== type))
      throw new SandboxError(404, `no ${type === 2 ? 'offramp ' : type === 1 ? 'onramp ' : ''}order ${orderId}`)
    return row
  }

  createOrder(spec: CreateOrderSpec = {}): TruthOrder {
    const row = this.generator.create(spec, this.serverNow())
    if (spec.churn === false) this.churnless.add(row)
    return this.truth(row)
  }

  advanceOrder(orderId: number, toStatus?: number, type?: 1 | 2): TruthOrder {
    const row = this.rowOrThrow(orderId, type)
    this.generator.advance(row, this.serverNow(), toStatus)
    return this.truth(row)
  }

  tick(): TickResult {
    return this.generator.tick(this.serverNow())
  }

  setPrice(p: { coinId?: number; coinCode?: string; fiatType?: number; price: string | number }): PriceRow {
    const coin: CoinDef | undefined =
      p.coinCode !== undefined ? findCoinByCode(p.coinCode) : p.coinId !== undefined ? findCoinById(p.coinId) : undefined
    if (!coin) throw new SandboxError(400, 'setPrice needs a known coinId or coinCode')
    const { fiatIndex } = fiatOf(p.fiatType ?? INR)
    const price = toDecimalString(p.price)
    if (!(Number(price) > 0)) throw new SandboxError(400, 'price must be positive')
    this.prices.setMid(COINS.indexOf(coin), fiatIndex, price)
    return this.priceRows().find((r) => r.coinId === coin.id && r.fiatType === (p.fiatType ?? INR)) as PriceRow
  }

  priceRows(): PriceRow[] {
    return COINS.flatMap((c, ci) =>
      FIATS.map((f, fi) => ({
        coinId: c.id,
        coinCode: c.code,
        fiatType: f.id,
        mid: this.prices.mid(ci, fi),
        buy: this.prices.price(ci, fi, 'buy'),
        sell: this.prices.price(ci, fi, 'sell')
      }))
    )
  }

  setFault(target: FaultTarget, spec: FaultSpec): void {
    this.faults.set(target, spec)
  }

  deliveries(): DeliveryRecord[] {
    return this.webhooks.list()
  }
}

function ok(data: unknown): { status: 1; code: 200; data: unknown } {
  return { status: 1, code: 200, data }
}

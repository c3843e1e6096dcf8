// Creates orders and moves them along their status paths: a bulk generator for the
// historical orders of --orders N (spread over months, some before the 4.4 cutover),
// and the live generator that, on every tick, creates new orders and advances the ones
// whose next step is due. Everything is drawn from seeded streams and the injected clock.
import { add, cmp, mul, round, toDecimalString } from '../shared/money'
import { COINS, FIATS, INR, chainIndexById, gasEntry, findCoinByCode, findCoinById, type CoinDef, type FiatDef } from './catalogue'
import { SandboxError, fail } from './errors'
import { toScaled } from './fixed-point'
import { bigText, scaledBig } from './fast-figures'
import { OFFRAMP, ONRAMP, PATHS, pathAt, pathsFor, type OrderType, type StatusPath } from './order-paths'
import type { OrderStore } from './order-store'
import { AMOUNT_DP, CUTOVER } from './order-store'
import { PRICE_DP, type PriceBook } from './price-book'
import { fiatOf, offrampBounds, onrampBounds, quoteOfframp, quoteOnramp, resolveTarget, type Target } from './quote-engine'
import { WALLETS_PER_CHAIN } from './order-render'
import { pick, pickWeighted, randInt, randRange, streamOf, STREAM, type Rng } from './rng'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

/** How popular each coin is (by code) for onramp and offramp orders. */
const ONRAMP_WEIGHT: Record<string, number> = {
  usdt: 45,
  usdc: 12,
  eth: 8,
  matic: 8,
  bnb: 6,
  sol: 6,
  btc: 5,
  busd: 3,
  neo: 1,
  rage: 2,
  gari: 2,
  tlc: 2
}
const OFFRAMP_WEIGHT: Record<string, number> = { usdt: 70, usdc: 15, busd: 5, eth: 10 }
const FIAT_WEIGHT = [75, 5, 4, 4, 3, 3, 3, 3]
const ROUND_AMOUNTS = [1, 1, 2, 3, 5, 5, 10, 10, 20, 25, 50, 100]

export interface CreateOrderSpec {
  type?: OrderType
  fiatType?: number
  coinId?: number
  coinCode?: string
  chainId?: number
  network?: string
  /** Onramp: fiat amount (decimal text or number). */
  fiatAmount?: string | number
  /** Offramp: crypto quantity. */
  quantity?: string | number
  /** Name of a status path (see PATHS), e.g. "timed out", "alternate bank". */
  path?: string
  paymentType?: number
  merchantRecognitionId?: string
  /** Keep the order where it is until advanced through the control API. */
  hold?: boolean
  /** false: the readings' churn while paging never moves it either (an order nobody touches while a client reads). */
  churn?: boolean
}

export interface TickResult {
  created: number[]
  advanced: number[]
  completed: number[]
}

/** The fiat types (ids) orders are made in, per type. Default: onramp every fiat, offramp INR only (4.9). */
export interface OrderFiats {
  onramp?: readonly number[]
  offramp?: readonly number[]
}

export interface GeneratorContext {
  store: OrderStore
  prices: PriceBook
  seed: number
  fiats?: OrderFiats
}

/** Weights of the fiats (FIAT_WEIGHT) an order type may be made in, 0 for the others; throws on an unknown id. */
function fiatWeights(ids: readonly number[] | undefined, fallback: readonly number[]): number[] {
  const allowed = ids ?? fallback
  for (const id of allowed) if (!FIATS.some((f) => f.id === id)) throw new SandboxError(400, `unknown fiat type ${id}`)
  if (allowed.length === 0) throw new SandboxError(400, 'orders need at least one fiat type')
  return FIATS.map((f, i) => (allowed.includes(f.id) ? (FIAT_WEIGHT[i] ?? 1) : 0))
}

const ALL_FIATS = FIATS.map((f) => f.id)

/** The fiat index of a new order of this type: drawn only when there is a choice, so the default streams stay as they were. */
function pickFiat(rng: Rng, weights: readonly number[]): number {
  const nonZero = weights.filter((w) => w > 0).length
  return nonZero === 1 ? weights.findIndex((w) => w > 0) : pickWeighted(rng, weights)
}

const coinIndex = (c: CoinDef): number => COINS.indexOf(c)

/** Smallest whole fiat amount that still buys at least one unit after fees and gas at up to 3x today's price. */
class AmountFloors {
  private readonly memo = new Map<number, number>()
  constructor(private readonly prices: PriceBook) {}
  get(fiat: FiatDef, fiatIndex: number, target: Target): number {
    const key = (fiatIndex * 64 + target.coinIndex) * 32 + (chainIndexById.get(target.chainId) ?? 0)
    let v = this.memo.get(key)
    if (v === undefined) {
      const min = onrampBounds(fiat, target).min
      // Enough for the network fee plus one smallest unit of the coin (a whole NEO), at up to 3x today's price.
      const unit = target.coin.tradeDp === 0 ? '1' : `0.${'0'.repeat(target.coin.tradeDp - 1)}1`
      const gasValue = mul(
        mul(
          add(gasEntry(target.coin.code, target.chainId)?.withdrawalFee ?? '0', unit),
          this.prices.price(target.coinIndex, fiatIndex, 'buy')
        ),
        '3'
      )
      const maxGateway = Object.values(fiat.gatewayFee).reduce((a, b) => (cmp(a, b) >= 0 ? a : b), '0')
      const needed = round(mul(mul(gasValue, '1.2'), '1.02'), 0, 'up')
      const floor = cmp(needed, min) > 0 ? needed : min
      v = Number(round(floor, 0, 'up')) + Number(round(maxGateway, 0, 'up'))
      this.memo.set(key, v)
    }
    return v
  }
}

const weightTables = new Map<Record<string, number>, { coins: CoinDef[]; weights: number[] }>()

function weightedCoin(rng: Rng, weights: Record<string, number>): CoinDef {
  let t = weightTables.get(weights)
  if (!t) {
    const codes = Object.keys(weights)
    t = { coins: codes.map((c) => findCoinByCode(c) as CoinDef), weights: codes.map((c) => weights[c] ?? 0) }
    weightTables.set(weights, t)
  }
  return t.coins[pickWeighted(rng, t.weights)] as CoinDef
}

function pickChain(rng: Rng, networks: readonly number[]): number {
  if (networks.length === 1 || rng() < 0.5) return networks[0] as number
  return pick(rng, networks)
}

function pickPath(rng: Rng, type: OrderType, t: number): StatusPath {
  const pool = pathsFor(type, t)
  return pool[
    pickWeighted(
      rng,
      pool.map((p) => p.weight)
    )
  ] as StatusPath
}

function onrampAmountUnits(rng: Rng, floor: number, max: number): number {
  const units = rng() < 0.65 ? floor * pick(rng, ROUND_AMOUNTS) : floor + randInt(rng, floor * 20)
  return Math.min(units, max)
}

/** A quantity to sell, as 10^-8 units: whole stablecoins, or thousandths of other coins. */
function offrampQuantity8(rng: Rng, coin: CoinDef): bigint {
  return coin.stable ? BigInt(randRange(rng, 8, 2500)) * 100_000_000n : BigInt(randRange(rng, 5, 1500)) * 100_000n
}

/** Whether quantity (10^-8) times price (10^-4) lies within the offramp bounds, in exact integers. */
function offrampInBounds(q8: bigint, price: string, bounds: { min: string; max: string }): boolean {
  const gross12 = q8 * scaledBig(price, 4)
  return gross12 >= scaled12(bounds.min) && gross12 <= scaled12(bounds.max)
}

const scaled12Memo = new Map<string, bigint>()
function scaled12(v: string): bigint {
  let s = scaled12Memo.get(v)
  if (s === undefined) {
    s = scaledBig(v, 12)
    scaled12Memo.set(v, s)
  }
  return s
}

// ---------------------------------------------------------------- historical orders

/**
 * Pre-creates n terminal (or stuck in needs-attention) orders: 10% before the spec 4.4
 * cutover, the rest over the 180 days before now, ids in creation order.
 */
export function generateHistoricOrders(ctx: GeneratorContext, n: number, now: number): void {
  if (n <= 0) return
  const { store, prices } = ctx
  const rng = streamOf(ctx.seed, STREAM.bulkOrders)
  const early = Date.parse('2022-06-01T00:00:00.000Z')
  const recentFrom = Math.max(CUTOVER + DAY, now - 180 * DAY)
  const recentTo = now - DAY
  const times = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const old = recentTo <= recentFrom || rng() < 0.1
    times[i] = Math.floor(
      old ? early + rng() * (Math.min(CUTOVER - 2 * DAY, recentTo) - early) : recentFrom + rng() * (recentTo - recentFrom)
    )
  }
  times.sort()
  const floors = new AmountFloors(prices)
  const scaledPrice = new Map<string, number>()
  const priceScaled = (p: string): number => {
    let v = scaledPrice.get(p)
    if (v === undefined) {
      v = toScaled(p, PRICE_DP)
      scaledPrice.set(p, v)
    }
    return v
  }
  const offBounds = offrampBounds()
  const onrampWeights = fiatWeights(ctx.fiats?.onramp, ALL_FIATS)
  const offrampWeights = fiatWeights(ctx.fiats?.offramp, [INR])
  store.reserve(n)
  for (let i = 0; i < n; i++) {
    const t = times[i] ?? now
    const type: OrderType = rng() < 0.7 ? ONRAMP : OFFRAMP
    const path = pickPath(rng, type, t)
    let fiatIndex = 0
    let coin: CoinDef
    let chainId: number
    let amountScaled: number
    let price: string
    if (type === ONRAMP) {
      fiatIndex = pickWeighted(rng, onrampWeights)
      coin = weightedCoin(rng, ONRAMP_WEIGHT)
      chainId = pickChain(rng, coin.networks)
      const fiat = FIATS[fiatIndex] as FiatDef
      const target = { coin, coinIndex: coinIndex(coin), chainId }
      const units = onrampAmountUnits(rng, floors.get(fiat, fiatIndex, target), Number(fiat.onramp.max))
      amountScaled = units * 100
      price = prices.historic(target.coinIndex, fiatIndex, 'buy', t)
    } else {
      fiatIndex = pickFiat(rng, offrampWeights)
      coin = weightedCoin(rng, OFFRAMP_WEIGHT)
      chainId = pickChain(rng, coin.offrampNetworks)
      price = prices.historic(coinIndex(coin), fiatIndex, 'sell', t)
      let q8 = offrampQuantity8(rng, coin)
      // The offramp bounds are INR's (the spec's one offramp pair); other fiats keep the quantity drawn.
      if (fiatIndex === 0 && !offrampInBounds(q8, price, offBounds)) q8 = coin.stable ? 100n * 100_000_000n : 5_000_000n
      amountScaled = Number(q8)
    }
    const last = path.statuses.length - 1
    const stuck = path.holdAt !== undefined && t > now - 30 * DAY && rng() < 0.6
    const step = stuck ? (path.holdAt as number) : last
    let status = path.statuses[step] as number
    if (!stuck && path.webhookStatus !== undefined && rng() < 0.65) status = path.webhookStatus
    const duration = stuck
      ? randRange(rng, 1 * MIN, 10 * MIN)
      : path.holdAt !== undefined
        ? randRange(rng, 2 * HOUR, 30 * HOUR)
        : path.outcome === 'failure'
          ? randRange(rng, 15 * MIN, 60 * MIN)
          : randRange(rng, 4 * MIN, 40 * MIN)
    store.add(
      {
        type,
        fiatIndex,
        coinIndex: coinIndex(coin),
        chainIndex: chainIndexById.get(chainId) ?? 0,
        pathId: path.id,
        step,
        status,
        paymentType: type === ONRAMP ? (fiatIndex === 0 && rng() < 0.7 ? 1 : 2) : rng() < 0.5 ? 1 : 2,
        wallet: randInt(rng, WALLETS_PER_CHAIN),
        slipBps: rng() < 0.5 ? 0 : randRange(rng, -15, 15),
        amountScaled,
        priceScaled: priceScaled(price),
        createdAt: t,
        updatedAt: Math.min(t + duration, now - MIN)
      },
      false
    )
  }
  store.rebuildIndexes()
}

// ---------------------------------------------------------------- live orders

export class OrderGenerator {
  /** Orders the generator moves on its own: row -> time its next step is due. */
  readonly inFlight = new Map<number, number>()
  private readonly rng: Rng
  private readonly floors: AmountFloors
  private readonly onrampWeights: number[]
  private readonly offrampWeights: number[]

  constructor(
    private readonly ctx: GeneratorContext,
    private readonly hooks: { onTerminal(row: number): void; onRecognitionId?(row: number, id: string): void },
    /** Chance that one tick creates an order. */
    private readonly createChance = 0.35
  ) {
    this.rng = streamOf(ctx.seed, STREAM.liveOrders)
    this.floors = new AmountFloors(ctx.prices)
    this.onrampWeights = fiatWeights(ctx.fiats?.onramp, ALL_FIATS)
    this.offrampWeights = fiatWeights(ctx.fiats?.offramp, [INR])
  }

  /** Creates one order now (status 0). Throws SandboxError for an impossible spec. */
  create(spec: CreateOrderSpec, now: number): number {
    const { store, prices } = this.ctx
    const rng = this.rng
    const type: OrderType = spec.type ?? (rng() < 0.7 ? ONRAMP : OFFRAMP)
    if (type !== ONRAMP && type !== OFFRAMP) fail(400, 'type must be 1 (onramp) or 2 (offramp)')
    const flow = type === ONRAMP ? 'onramp' : 'offramp'
    const weights = type === OFFRAMP ? this.offrampWeights : this.onrampWeights
    const fiatType =
      spec.fiatType ??
      (type === OFFRAMP ? (FIATS[pickFiat(rng, weights)] as FiatDef).id : (FIATS[pickWeighted(rng, weights)] as FiatDef).id)
    if (type === OFFRAMP && !(weights[FIATS.findIndex((f) => f.id === fiatType)] ?? 0))
      fail(
        400,
        `offramp orders are made in ${FIATS.filter((_, i) => (weights[i] ?? 0) > 0)
          .map((f) => `${f.symbol} (fiatType ${f.id})`)
          .join(', ')} only`
      )
    const { fiat, fiatIndex } = fiatOf(fiatType)
    const chosen =
      spec.coinCode !== undefined
        ? findCoinByCode(spec.coinCode)
        : spec.coinId !== undefined
          ? findCoinById(spec.coinId)
          : weightedCoin(rng, type === ONRAMP ? ONRAMP_WEIGHT : OFFRAMP_WEIGHT)
    const networks = chosen ? (type === ONRAMP ? chosen.networks : chosen.offrampNetworks) : []
    const chainId =
      spec.network === undefined && spec.chainId === undefined && networks.length > 0 ? pickChain(rng, networks) : spec.chainId
    const target = resolveTarget(
      {
        coinCode: spec.coinCode ?? (spec.coinId === undefined ? chosen?.code : undefined),
        coinId: spec.coinId,
        network: spec.network,
        chainId
      },
      flow
    )
    let path: StatusPath
    if (spec.path !== undefined) {
      const p = PATHS.find((x) => x.type === type && x.name === spec.path)
      if (!p)
        return fail(
          400,
          `no ${flow} path named "${spec.path}": use one of ${PATHS.filter((x) => x.type === type)
            .map((x) => x.name)
            .join(', ')}`
        )
      path = p
    } else path = pickPath(rng, type, now)
    let amountScaled: number
    let price: string
    if (type === ONRAMP) {
      price = prices.price(target.coinIndex, fiatIndex, 'buy')
      const amount =
        spec.fiatAmount !== undefined
          ? round(toDecimalString(spec.fiatAmount), 2)
          : String(onrampAmountUnits(rng, this.floors.get(fiat, fiatIndex, target), Number(fiat.onramp.max)))
      quoteOnramp(fiat, target, amount, price)
      amountScaled = toScaled(amount, AMOUNT_DP[1])
    } else {
      price = prices.price(target.coinIndex, fiatIndex, 'sell')
      let q: string
      if (spec.quantity !== undefined) q = toDecimalString(spec.quantity)
      else {
        let q8 = offrampQuantity8(rng, target.coin)
        if (fiatIndex === 0 && !offrampInBounds(q8, price, offrampBounds())) q8 = target.coin.stable ? 100n * 100_000_000n : 5_000_000n
        q = bigText(q8, 8)
      }
      // Offramp quotes are INR's (4.9): an order in another fiat is not checked against INR bounds.
      if (fiatIndex === 0) quoteOfframp(target, q, price)
      amountScaled = toScaled(q, AMOUNT_DP[2])
    }
    const row = store.add({
      type,
      fiatIndex,
      coinIndex: target.coinIndex,
      chainIndex: chainIndexById.get(target.chainId) ?? 0,
      pathId: path.id,
      step: 0,
      status: path.statuses[0] ?? 0,
      paymentType: spec.paymentType ?? (type === ONRAMP ? (fiatIndex === 0 && rng() < 0.7 ? 1 : 2) : rng() < 0.5 ? 1 : 2),
      wallet: randInt(rng, WALLETS_PER_CHAIN),
      slipBps: rng() < 0.5 ? 0 : randRange(rng, -15, 15),
      amountScaled,
      priceScaled: toScaled(price, PRICE_DP),
      createdAt: now,
      updatedAt: now
    })
    store.track(row)
    if (spec.merchantRecognitionId !== undefined) this.hooks.onRecognitionId?.(row, spec.merchantRecognitionId)
    if (!spec.hold) this.inFlight.set(row, now + this.dwell(path, 0))
    return row
  }

  private dwell(path: StatusPath, step: number): number {
    const rng = this.rng
    const next = path.statuses[step + 1]
    if (step === path.holdAt) return randRange(rng, 10 * MIN, 40 * MIN)
    if (next !== undefined && next < 0) return randRange(rng, 2 * MIN, 5 * MIN)
    if (step === 0) return randRange(rng, 20_000, 90_000)
    return randRange(rng, 8_000, 40_000)
  }

  /**
   * Moves an order one step along its path, or on to a given status (through the
   * statuses in between; switching to another path when only that one leads there).
   * Returns true when the order reached the end of its path.
   */
  advance(row: number, now: number, toStatus?: number): boolean {
    const { store } = this.ctx
    let path = pathAt(store.path[row] ?? 0)
    const step = store.step[row] ?? 0
    const last = path.statuses.length - 1
    const current = store.status[row] ?? 0
    const type = (store.type[row] ?? 1) as OrderType
    if (toStatus === undefined) {
      if (step >= last) throw new SandboxError(409, `order ${store.idOf(row)} is already at the end of its path (status ${current})`)
      return this.walk(row, path, step + 1, now)
    }
    if (toStatus === path.webhookStatus && step === last && current !== toStatus) {
      store.setStatus(row, toStatus, step, now)
      return false
    }
    let j = path.statuses.indexOf(toStatus, step + 1)
    if (j < 0) {
      const prefix = path.statuses.slice(0, step + 1)
      const alt = PATHS.find(
        (p) => p.type === type && prefix.every((s, i) => p.statuses[i] === s) && p.statuses.indexOf(toStatus, step + 1) > step
      )
      if (!alt) {
        const reachable = PATHS.filter((p) => p.type === type && prefix.every((s, i) => p.statuses[i] === s)).flatMap((p) =>
          p.statuses.slice(step + 1)
        )
        throw new SandboxError(
          400,
          `status ${toStatus} cannot follow status ${current} for this order; reachable: ${[...new Set(reachable)].join(', ') || 'none'}`
        )
      }
      store.setPath(row, alt.id)
      path = alt
      j = alt.statuses.indexOf(toStatus, step + 1)
    }
    return this.walk(row, path, j, now)
  }

  private walk(row: number, path: StatusPath, to: number, now: number): boolean {
    const { store } = this.ctx
    for (let s = (store.step[row] ?? 0) + 1; s <= to; s++) store.setStatus(row, path.statuses[s] as number, s, now)
    const ended = to >= path.statuses.length - 1
    if (ended) {
      this.inFlight.delete(row)
      this.hooks.onTerminal(row)
    } else if (this.inFlight.has(row)) {
      this.inFlight.set(row, now + this.dwell(path, to))
    }
    return ended
  }

  /** One generator cycle: prices move, maybe a new order, every due order moves one step. */
  tick(now: number): TickResult {
    const { store } = this.ctx
    const out: TickResult = { created: [], advanced: [], completed: [] }
    this.ctx.prices.walk()
    let createdRow = -1
    if (this.rng() < this.createChance) {
      try {
        createdRow = this.create({}, now)
        out.created.push(store.idOf(createdRow))
      } catch (e) {
        if (!(e instanceof SandboxError)) throw e
      }
    }
    const due = [...this.inFlight].filter(([, at]) => at <= now).map(([row]) => row)
    for (const row of due) {
      if (row === createdRow) continue
      const ended = this.advance(row, now)
      out.advanced.push(store.idOf(row))
      if (ended) out.completed.push(store.idOf(row))
    }
    return out
  }
}

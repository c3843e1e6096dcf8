// Prices per coin and fiat. Each coin's mid price walks randomly (one seeded step per
// generator tick) so tickers tick; buy (onramp) and sell (offramp) prices sit a spread
// either side of the mid. Orders created before the sandbox started use a weekly
// price history walked backwards from the start prices, so old orders carry old prices.
import { add, cmp, div, mul, round as roundFixed, sub, toDecimalString } from '../shared/money'
import { COINS, FIATS, RATES } from './catalogue'
import { randRange, streamOf, STREAM, type Rng } from './rng'

export const PRICE_DP = 4
const WEEK_MS = 7 * 24 * 3600 * 1000
const HISTORY_WEEKS = 320

export type Side = 'buy' | 'sell'

/** Rounds and drops trailing zeros ("80.0000" -> "80"). */
const round = (v: string, dp: number): string => toDecimalString(roundFixed(v, dp))

const bps = (k: number): string => add('1', div(String(k), '10000', 6))

export class PriceBook {
  /** [coin index][fiat index] mid price in that fiat. */
  private readonly mids: string[][]
  /** Per coin: cumulative walk factor since start (stablecoins revert towards 1). */
  private readonly level: string[]
  /** Per coin, per week back from start: factor against the start mid. */
  private readonly weekFactor: string[][]
  private readonly historicMemo = new Map<number, string>()
  private readonly rng: Rng
  private readonly buyFactor = add('1', RATES.spread)
  private readonly sellFactor = sub('1', RATES.spread)
  /** Bumped on every change, so callers can tell whether prices moved. */
  version = 0

  constructor(
    seed: number,
    private readonly startedAt: number
  ) {
    this.rng = streamOf(seed, STREAM.prices)
    this.mids = COINS.map((c) => FIATS.map((f) => round(mul(c.usd, f.perUsd), PRICE_DP)))
    this.level = COINS.map(() => '1')
    const hist = streamOf(seed, STREAM.historicPrices)
    this.weekFactor = COINS.map((c) => {
      const out = ['1']
      let f = '1'
      for (let w = 1; w <= HISTORY_WEEKS; w++) {
        const k = c.stable ? randRange(hist, -20, 20) : randRange(hist, -300, 290)
        f = round(mul(f, bps(k)), 8)
        if (c.stable && (cmp(f, '0.99') < 0 || cmp(f, '1.01') > 0)) f = '1'
        out.push(f)
      }
      return out
    })
  }

  /** One random-walk step for every coin. */
  walk(): void {
    COINS.forEach((c, ci) => {
      const lvl = this.level[ci] ?? '1'
      let k: number
      if (c.stable) {
        k =
          cmp(lvl, '1.008') > 0
            ? randRange(this.rng, -5, 0)
            : cmp(lvl, '0.992') < 0
              ? randRange(this.rng, 0, 5)
              : randRange(this.rng, -3, 3)
      } else {
        k = randRange(this.rng, -25, 25)
      }
      if (k === 0) return
      const factor = bps(k)
      this.level[ci] = round(mul(lvl, factor), 10)
      const row = this.mids[ci]
      if (!row) return
      for (let fi = 0; fi < row.length; fi++) row[fi] = round(mul(row[fi] ?? '0', factor), PRICE_DP)
    })
    this.version++
  }

  /** Sets the mid price of a coin in a fiat (the walk continues from there). */
  setMid(coinIndex: number, fiatIndex: number, price: string): void {
    const row = this.mids[coinIndex]
    if (!row || fiatIndex < 0 || fiatIndex >= row.length) throw new RangeError('unknown coin or fiat')
    row[fiatIndex] = round(price, PRICE_DP)
    this.version++
  }

  mid(coinIndex: number, fiatIndex: number): string {
    const v = this.mids[coinIndex]?.[fiatIndex]
    if (v === undefined) throw new RangeError('unknown coin or fiat')
    return v
  }

  price(coinIndex: number, fiatIndex: number, side: Side): string {
    return round(mul(this.mid(coinIndex, fiatIndex), side === 'buy' ? this.buyFactor : this.sellFactor), PRICE_DP)
  }

  /** The price an order created at time t (before the sandbox started) was quoted at. */
  historic(coinIndex: number, fiatIndex: number, side: Side, t: number): string {
    const week = Math.min(HISTORY_WEEKS, Math.max(0, Math.floor((this.startedAt - t) / WEEK_MS)))
    const key = ((coinIndex * 64 + fiatIndex) * 2 + (side === 'buy' ? 0 : 1)) * 1024 + week
    let v = this.historicMemo.get(key)
    if (v === undefined) {
      const startMid = round(mul(COINS[coinIndex]?.usd ?? '0', FIATS[fiatIndex]?.perUsd ?? '0'), PRICE_DP)
      const mid = mul(startMid, this.weekFactor[coinIndex]?.[week] ?? '1')
      v = round(mul(mid, side === 'buy' ? this.buyFactor : this.sellFactor), PRICE_DP)
      this.historicMemo.set(key, v)
    }
    return v
  }
}

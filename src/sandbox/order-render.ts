// Turns a stored order into the records the service sends: the onramp history record
// (spec 2.4), the offramp history record (2.5) and the webhook bodies (section 6, plus
// the live offramp extras). Identifiers, hashes and references are derived from the
// seed and the order id, so they are the same every time an order is rendered.
import { sampleAddress, sampleTxHash } from './sample-addresses'
import { statusInfo } from '../shared/domain/status'
import { APP_ID, CHAIN_IDS, chainSymbolOf } from './catalogue'
import { PLACES as P, bigText, fastOfframp, fastOnramp, fastOnrampQuantity, slipped } from './fast-figures'
import { OFFRAMP, pathAt } from './order-paths'
import { OrderStore, reportedUpdatedAt } from './order-store'
import { coinAt, fiatAt } from './quote-engine'
import { randInt, streamOf, STREAM } from './rng'

export const WALLETS_PER_CHAIN = 64

/** Customer wallets (onramp destinations) and the service's deposit addresses (offramp), per chain. */
export class WalletBook {
  private readonly pools = new Map<number, string[]>()
  constructor(private readonly seed: number) {}

  /** kind 0: customer wallets; 1: deposit addresses. */
  address(chainIndex: number, kind: 0 | 1, i: number): string {
    const key = chainIndex * 2 + kind
    let pool = this.pools.get(key)
    if (!pool) {
      const rng = streamOf(this.seed, STREAM.wallets, key)
      const symbol = chainSymbolOf(CHAIN_IDS[chainIndex] ?? 0)
      pool = Array.from({ length: WALLETS_PER_CHAIN }, () => sampleAddress(symbol, rng).address)
      this.pools.set(key, pool)
    }
    return pool[i % pool.length] ?? ''
  }
}

/** A scaled amount as a JSON number: the shortest double that reads back as its decimal text. */
const num = (v: bigint, dp: number): number => Number(bigText(v, dp))
const iso = (t: number): string => new Date(t).toISOString()

export class OrderRenderer {
  /** merchantRecognitionId given when an order was created through the admin API. */
  readonly recognitionOverrides = new Map<number, string>()

  constructor(
    private readonly seed: number,
    private readonly store: OrderStore,
    private readonly wallets: WalletBook
  ) {}

  private details(row: number) {
    const orderId = this.store.idOf(row)
    // Seeded by the row (the shared sequence's id), so two orders sharing an id across types differ.
    const rng = streamOf(this.seed, STREAM.orderDetail, OrderStore.orderIdOf(row))
    const userId = 20000 + randInt(rng, 80000)
    let mr = 'rd-'
    for (let i = 0; i < 10; i++) mr += '0123456789abcdefghijklmnopqrstuvwxyz'[randInt(rng, 36)]
    const utr = String(3 + randInt(rng, 5)) + String(randInt(rng, 1e6)).padStart(6, '0') + String(randInt(rng, 1e5)).padStart(5, '0')
    const chainId = CHAIN_IDS[this.store.chain[row] ?? 0] ?? 0
    const hash = sampleTxHash(chainSymbolOf(chainId), rng)
    return { orderId, userId, merchantRecognitionId: this.recognitionOverrides.get(row) ?? mr, utr, hash, chainId }
  }

  /** Onramp history record (spec 2.4). */
  onramp(row: number): Record<string, unknown> {
    const s = this.store
    const d = this.details(row)
    const path = pathAt(s.path[row] ?? 0)
    const step = s.step[row] ?? 0
    const fiat = fiatAt(s.fiat[row] ?? 0)
    const coin = coinAt(s.coin[row] ?? 0)
    const amount = BigInt(s.amount[row] ?? 0)
    const price = BigInt(s.price[row] ?? 0)
    const f = fastOnramp(fiat, coin, d.chainId, amount, price)
    const knowsActuals = step >= path.actualsAt
    const actualPrice = knowsActuals ? slipped(price, s.slip[row] ?? 0) : undefined
    const actualQty =
      actualPrice === undefined ? undefined : actualPrice === price ? f.quantity : fastOnrampQuantity(coin, f.net, actualPrice, f.gasFee)
    return {
      orderId: d.orderId,
      userId: d.userId,
      appId: APP_ID,
      walletAddress: this.wallets.address(s.chain[row] ?? 0, 0, s.wallet[row] ?? 0),
      coinId: coin.id,
      chainId: d.chainId,
      fiatType: fiat.id,
      paymentType: s.paymentType[row] ?? 1,
      fiatAmount: num(amount, P.fiat),
      expectedCryptoAmount: num(f.quantity, P.crypto),
      expectedPrice: num(price, P.price),
      actualCryptoAmount: actualQty === undefined ? null : num(actualQty, P.crypto),
      actualPrice: actualPrice === undefined ? null : num(actualPrice, P.price),
      kycNeeded: 0,
      createdAt: iso(s.createdAt[row] ?? 0),
      updatedAt: iso(reportedUpdatedAt(s.updatedAt[row] ?? 0)),
      status: s.status[row] ?? 0,
      referenceId: step >= path.referenceAt ? d.utr : null,
      transactionHash: step >= path.hashAt ? d.hash : '',
      onRampFee: num(f.onrampFee, P.fiat),
      gasFee: num(f.gasFee, P.crypto),
      clientFee: num(f.clientFee, P.fiat),
      gatewayFee: num(f.gatewayFee, P.fiat),
      merchantRecognitionId: d.merchantRecognitionId
    }
  }

  /** Offramp history record (spec 2.5). */
  offramp(row: number): Record<string, unknown> {
    const s = this.store
    const d = this.details(row)
    const path = pathAt(s.path[row] ?? 0)
    const step = s.step[row] ?? 0
    const coin = coinAt(s.coin[row] ?? 0)
    const quantity = BigInt(s.amount[row] ?? 0)
    const price = BigInt(s.price[row] ?? 0)
    const deposited = step >= path.hashAt
    // An amount-mismatch order received less than agreed (90%, at the coin's places).
    const unit = 10n ** BigInt(P.crypto - coin.tradeDp)
    const received = deposited ? (path.statuses.includes(-4) ? ((quantity * 9n) / 10n / unit) * unit : quantity) : undefined
    const sold = step >= path.actualsAt
    const actualPrice = sold ? slipped(price, s.slip[row] ?? 0) : undefined
    const f = fastOfframp(received !== undefined && sold ? received : quantity, actualPrice ?? price)
    return {
      orderId: d.orderId,
      coinId: coin.id,
      chainId: d.chainId,
      walletAddress: this.wallets.address(s.chain[row] ?? 0, 1, s.wallet[row] ?? 0),
      expectedPrice: num(price, P.price),
      expectedQuantity: num(quantity, P.crypto),
      actualPrice: actualPrice === undefined ? 0 : num(actualPrice, P.price),
      actualQuantity: received === undefined ? 0 : num(received, P.crypto),
      actualFiatAmount: sold ? num(f.fiatAmount, P.fiat) : 0,
      onrampFee: num(f.onrampFee, P.fiat),
      clientFee: num(f.clientFee, P.fiat),
      gatewayFee: num(f.gatewayFee, P.fiat),
      tdsFee: num(f.tdsFee, P.fiat),
      merchantRecognitionId: d.merchantRecognitionId,
      paymentType: s.paymentType[row] ?? 1,
      fiatType: fiatAt(s.fiat[row] ?? 0).id,
      createdAt: iso(s.createdAt[row] ?? 0),
      updatedAt: iso(reportedUpdatedAt(s.updatedAt[row] ?? 0)),
      status: s.status[row] ?? 0,
      transactionHash: deposited ? d.hash : ''
    }
  }

  record(row: number): Record<string, unknown> {
    return this.store.type[row] === OFFRAMP ? this.offramp(row) : this.onramp(row)
  }

  /** Webhook body: the onramp fields of spec section 6, or the offramp record with the live extras. */
  webhookBody(row: number): Record<string, unknown> {
    const trials = this.store.webhookTrials[row] ?? 0
    if (this.store.type[row] === OFFRAMP) {
      const r = this.offramp(row)
      const status = this.store.status[row] ?? 0
      return {
        ...r,
        eventType: 'offramp',
        coinCode: coinAt(this.store.coin[row] ?? 0).code,
        network: chainSymbolOf(r.chainId as number),
        statusDescription: statusInfo(2, status).serviceLabel ?? `unknown status ${status}`,
        webhookTrials: trials
      }
    }
    const { userId: _u, appId: _a, ...r } = this.onramp(row)
    return { ...r, webhookTrials: trials }
  }
}

// The unit of every amount an order record carries, in one table: the order's fiat, the
// order's coin, or a price in fiat per coin. The spec leaves the fees' units open ("Units
// and currency of fee fields: not shown", 2.4); what the app assumes for each, and why, is
// docs/spec-readings.md, "The units of order amounts". The order detail, the orders table,
// the CSV export and the customer text all read units from here, and add fees up only
// within one unit, on decimal strings (money.ts), never floats.
import type { OrderType } from '../ipc/contract'
import { isDecimalText, sum, toDecimalString, type DecimalString } from '../money'

/** What an amount is counted in. */
export type AmountUnit = 'fiat' | 'coin' | 'fiatPerCoin'

export interface AmountField {
  key: string
  unit: AmountUnit
  /** A fee (counted in the fees' totals), not an amount of the trade itself. */
  fee: boolean
}

const a = (key: string, unit: AmountUnit, fee = false): AmountField => ({ key, unit, fee })

/**
 * Onramp (2.4): the customer pays fiat and receives the coin. onRampFee, clientFee and
 * gatewayFee are taken from the fiat paid; gasFee is the network's fee for sending the
 * coin, so it is counted in the coin. The quote's own fees are read the same way
 * (quote.ts), so a quote and the order it became show the same units.
 */
const ONRAMP: readonly AmountField[] = [
  a('fiatAmount', 'fiat'),
  a('expectedCryptoAmount', 'coin'),
  a('actualCryptoAmount', 'coin'),
  a('expectedPrice', 'fiatPerCoin'),
  a('actualPrice', 'fiatPerCoin'),
  a('onRampFee', 'fiat', true),
  a('onrampFee', 'fiat', true),
  a('clientFee', 'fiat', true),
  a('gatewayFee', 'fiat', true),
  a('gasFee', 'coin', true)
]

/**
 * Offramp (2.5): the customer sells the coin and is paid fiat. Every fee (the platform's
 * onrampFee, clientFee, gatewayFee and tdsFee, 1% tax on the sale) is taken from the fiat
 * paid out, so all are in fiat.
 */
const OFFRAMP: readonly AmountField[] = [
  a('expectedQuantity', 'coin'),
  a('actualQuantity', 'coin'),
  a('expectedPrice', 'fiatPerCoin'),
  a('actualPrice', 'fiatPerCoin'),
  a('actualFiatAmount', 'fiat'),
  a('onrampFee', 'fiat', true),
  a('onRampFee', 'fiat', true),
  a('clientFee', 'fiat', true),
  a('gatewayFee', 'fiat', true),
  a('tdsFee', 'fiat', true)
]

const TABLE: Record<OrderType, ReadonlyMap<string, AmountField>> = {
  1: new Map(ONRAMP.map((f) => [f.key, f])),
  2: new Map(OFFRAMP.map((f) => [f.key, f]))
}

/** Every amount field of a type with its unit. */
export function amountFields(type: OrderType): readonly AmountField[] {
  return type === 1 ? ONRAMP : OFFRAMP
}

/** The unit of a field of an order record, or null when the field is not an amount. */
export function amountUnit(type: OrderType, key: string): AmountUnit | null {
  return TABLE[type].get(key)?.unit ?? null
}

/** The names an amount's unit is written with: the order's fiat and coin ("INR", "USDT"). */
export interface UnitNames {
  fiat: string
  coin: string
}

/** "INR", "USDT", "INR per USDT". */
export function unitText(unit: AmountUnit, names: UnitNames): string {
  return unit === 'fiat' ? names.fiat : unit === 'coin' ? names.coin : `${names.fiat} per ${names.coin}`
}

/** A record's value as a decimal string, or null when absent or not a number. */
export function decimalOf(v: unknown): DecimalString | null {
  if (typeof v === 'number') return Number.isFinite(v) ? toDecimalString(v) : null
  if (typeof v === 'string' && v.trim() !== '' && isDecimalText(v)) return toDecimalString(v)
  return null
}

/** The fees of a record added up per unit: what an operator or finance would add by hand. */
export interface FeeTotals {
  /** The fees in the order's fiat together, or null when the record has none. */
  fiat: DecimalString | null
  /** The fees in the order's coin together (onramp's network fee), or null when none. */
  coin: DecimalString | null
  /** How many fees went into each total. */
  fiatCount: number
  coinCount: number
}

/**
 * The fees of an order record added up per unit. A fee spelt both ways (onRampFee and
 * onrampFee) counts once: the schema keeps one of them, and a raw record the first.
 */
export function feeTotals(type: OrderType, record: Readonly<Record<string, unknown>>): FeeTotals {
  const fiat: DecimalString[] = []
  const coin: DecimalString[] = []
  let platformSeen = false
  for (const f of amountFields(type)) {
    if (!f.fee) continue
    const v = decimalOf(record[f.key])
    if (v === null) continue
    if (f.key === 'onRampFee' || f.key === 'onrampFee') {
      if (platformSeen) continue
      platformSeen = true
    }
    ;(f.unit === 'coin' ? coin : fiat).push(v)
  }
  return {
    fiat: fiat.length ? sum(fiat) : null,
    coin: coin.length ? sum(coin) : null,
    fiatCount: fiat.length,
    coinCount: coin.length
  }
}

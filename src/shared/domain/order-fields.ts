// The fields of an order record in an operator's words: what each is called, in what order
// an order's detail shows them, and what kind of value it holds (so a view shows a coin's
// name rather than its id, a time in the operator's locale, an amount with its unit). The
// meanings are the spec's (2.4, 2.5) and the live-service notes' ("Field meanings").
// Fields the service sends beyond these keep their own name, under "other fields". The
// unit of every amount and fee is order-amounts.ts's.
import type { OrderType } from '../ipc/contract'
import { amountUnit } from './order-amounts'

export type FieldKind =
  | 'id' // an identifier shown as it is
  | 'copy' // a text an operator copies (wallet, references, hash)
  | 'coin'
  | 'chain'
  | 'fiat'
  | 'payment'
  | 'status'
  | 'time'
  | 'fiatAmount' // in the order's fiat (fees taken in fiat too)
  | 'coinAmount' // in the order's coin (the onramp network fee too)
  | 'price' // fiat per coin
  | 'yesNo'
  | 'count'

export interface FieldSpec {
  key: string
  label: string
  kind: FieldKind
}

const f = (key: string, label: string, kind: FieldKind): FieldSpec => ({ key, label, kind })
/** An amount or fee: its kind from the unit order-amounts.ts gives the field. */
const money = (type: OrderType, key: string, label: string): FieldSpec => {
  const unit = amountUnit(type, key)
  if (unit === null) throw new Error(`${key} is not an amount of type ${type}`)
  return f(key, label, unit === 'fiat' ? 'fiatAmount' : unit === 'coin' ? 'coinAmount' : 'price')
}

const COMMON_HEAD: FieldSpec[] = [
  f('orderId', 'Order id', 'id'),
  f('status', 'Status', 'status'),
  f('merchantRecognitionId', 'Merchant reference', 'copy'),
  f('walletAddress', 'Wallet', 'copy'),
  f('coinId', 'Coin', 'coin'),
  f('chainId', 'Network', 'chain'),
  f('fiatType', 'Fiat', 'fiat'),
  f('paymentType', 'Payment', 'payment')
]

/** What the service quoted and filled at, and the fees both types carry. */
const PRICES = (t: OrderType): FieldSpec[] => [money(t, 'expectedPrice', 'Price quoted'), money(t, 'actualPrice', 'Price filled')]
const FEES = (t: OrderType): FieldSpec[] => [money(t, 'clientFee', 'Client fee'), money(t, 'gatewayFee', 'Gateway fee')]

const COMMON_TAIL: FieldSpec[] = [
  f('transactionHash', 'Transaction hash', 'copy'),
  f('createdAt', 'Created', 'time'),
  f('updatedAt', 'Last updated', 'time')
]

const ONRAMP: readonly FieldSpec[] = [
  ...COMMON_HEAD,
  money(1, 'fiatAmount', 'Customer pays'),
  money(1, 'expectedCryptoAmount', 'Crypto quoted'),
  money(1, 'actualCryptoAmount', 'Crypto delivered'),
  ...PRICES(1),
  money(1, 'onRampFee', 'On-ramp fee'),
  money(1, 'onrampFee', 'On-ramp fee'),
  money(1, 'gasFee', 'Network fee'),
  ...FEES(1),
  f('referenceId', 'Payment reference', 'copy'),
  f('hashId', 'Hash id', 'copy'),
  ...COMMON_TAIL,
  f('kycNeeded', 'KYC needed', 'yesNo'),
  f('userId', 'User id', 'id'),
  f('appId', 'App id', 'id'),
  f('trials', 'Attempts', 'count'),
  f('webhookTrials', 'Webhook attempts', 'count')
]

const OFFRAMP: readonly FieldSpec[] = [
  ...COMMON_HEAD,
  money(2, 'expectedQuantity', 'Crypto to sell'),
  money(2, 'actualQuantity', 'Crypto sold'),
  ...PRICES(2),
  money(2, 'actualFiatAmount', 'Fiat paid out'),
  money(2, 'onrampFee', 'Platform fee'),
  money(2, 'onRampFee', 'Platform fee'),
  ...FEES(2),
  money(2, 'tdsFee', 'TDS (1% tax on Indian sales)'),
  f('referenceId', 'Payment reference', 'copy'),
  ...COMMON_TAIL,
  f('webhookTrials', 'Webhook attempts', 'count')
]

/** The named fields of a type, in the order the detail shows them. */
export function orderFieldSpecs(type: OrderType): readonly FieldSpec[] {
  return type === 1 ? ONRAMP : OFFRAMP
}

/** The record's fields: those with a name in words (present in the record) in their order, then the rest by key. */
export function splitOrderFields(
  type: OrderType,
  record: Record<string, unknown>
): { named: Array<FieldSpec & { value: unknown }>; other: Array<{ key: string; value: unknown }> } {
  const specs = orderFieldSpecs(type)
  const known = new Set(specs.map((s) => s.key))
  return {
    named: specs.filter((s) => Object.hasOwn(record, s.key)).map((s) => ({ ...s, value: record[s.key] })),
    other: Object.keys(record)
      .filter((k) => !known.has(k))
      .sort((a, b) => a.localeCompare(b))
      .map((key) => ({ key, value: record[key] }))
  }
}

/** paymentType in words (the live-service notes): onramp 1 instant (UPI), 2 bank transfer; offramp 1 UPI, 2 IMPS. */
export function paymentTypeLabel(type: OrderType, paymentType: unknown): string {
  if (paymentType === null || paymentType === undefined || paymentType === '') return '—'
  const n = Number(paymentType)
  const words: Record<number, string> = type === 1 ? { 1: 'instant (UPI)', 2: 'bank transfer (IMPS/FAST)' } : { 1: 'UPI', 2: 'IMPS' }
  return words[n] ? `${words[n]}` : `type ${String(paymentType)}`
}

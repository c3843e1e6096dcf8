// An order as the store holds it: the row's columns mapped to and from a record of the
// service, the short summary a change notice carries, and a status transition of
// order_events. The repositories over the orders table (orders-repo.ts) share them.
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType, StatusSource } from '../../shared/ipc/contract'
import type { SqlValue } from './sql'

export type OrderRecord = OnrampOrder | OfframpOrder
export type OrderRecordOf<T extends OrderType> = T extends 1 ? OnrampOrder : OfframpOrder

/**
 * One stored order: indexed columns, every amount as a decimal string, and the full record.
 * What the renderer is shown of it is the contract's OrderRow (order-rows.ts maps one to the other).
 */
export interface StoredOrder {
  type: OrderType
  orderId: number
  status: number
  /** The record's fiatType, or the fiat type of the history scope it was synced in. */
  fiatType: number | null
  coinId: number
  chainId: number
  paymentType: number | null
  createdAt: string
  updatedAt: string
  walletAddress: string | null
  merchantRecognitionId: string | null
  referenceId: string | null
  transactionHash: string | null
  fiatAmount: string | null
  expectedCryptoAmount: string | null
  actualCryptoAmount: string | null
  expectedPrice: string | null
  actualPrice: string | null
  expectedQuantity: string | null
  actualQuantity: string | null
  actualFiatAmount: string | null
  onrampFee: string | null
  gasFee: string | null
  clientFee: string | null
  gatewayFee: string | null
  tdsFee: string | null
  /** The full normalised record as received (unknown keys included). */
  record: OrderRecord
  statusSource: StatusSource
  /** How a verified webhook that last set the status was matched to the order (null: no webhook did). */
  webhookMatch: WebhookMatch | null
  firstSeenAt: string
  lastChangedAt: string
  contentHash: string
  /** When the service last confirmed the status (a history answer, a verified webhook, orderStatus). */
  statusConfirmedAt: string | null
  statusConfirmedBy: ConfirmedBy | null
  /** When the freshness sweep last asked orderStatus, and how many of its requests failed in a row (noteStatusCheck). */
  statusCheckedAt: string | null
  statusCheckFailures: number
  /** When orderStatus answered that the service no longer has this order (no longer listed either); null otherwise. */
  goneAt: string | null
}

/**
 * How a verified webhook was matched to the order held under its id: 'whole', a whole
 * record whose identity fields all agreed; 'partial', a body that was no whole record,
 * matched on the few identity fields it gave (monitor/webhook-ingest.ts).
 */
export type WebhookMatch = 'whole' | 'partial'

/** What confirmed a status: a history answer that included the order, a verified webhook, orderStatus. */
export type ConfirmedBy = 'history' | 'webhook' | 'orderStatus'

export const confirmedByOf = (source: StatusSource): ConfirmedBy =>
  source === 'sync' ? 'history' : source === 'watch' ? 'orderStatus' : 'webhook'

/** A short description of an order, for change notifications. */
export type OrderSummary = Pick<StoredOrder, 'type' | 'orderId' | 'status' | 'fiatType' | 'coinId' | 'chainId' | 'createdAt' | 'updatedAt'>

export interface StatusChange {
  type: OrderType
  orderId: number
  old: number | null
  new: number
}

/** A row of order_events as stored (the team hubs copy them between order databases). */
export interface OrderEventDbRow {
  id: number
  type: number
  order_id: number
  at: string
  order_updated_at: string | null
  old_status: number | null
  new_status: number
  source: StatusSource
}

export interface OrderEvent {
  id: number
  type: OrderType
  orderId: number
  /** When Rampdesk observed the transition. */
  at: string
  /** The record's updatedAt when the observation carried one. */
  orderUpdatedAt: string | null
  oldStatus: number | null
  newStatus: number
  source: StatusSource
}

export interface OrderDbRow {
  type: number
  order_id: number
  status: number
  fiat_type: number | null
  coin_id: number
  chain_id: number
  payment_type: number | null
  created_at: string
  updated_at: string
  wallet_address: string | null
  merchant_recognition_id: string | null
  reference_id: string | null
  transaction_hash: string | null
  fiat_amount: string | null
  expected_crypto_amount: string | null
  actual_crypto_amount: string | null
  expected_price: string | null
  actual_price: string | null
  expected_quantity: string | null
  actual_quantity: string | null
  actual_fiat_amount: string | null
  onramp_fee: string | null
  gas_fee: string | null
  client_fee: string | null
  gateway_fee: string | null
  tds_fee: string | null
  record_json: string
  content_hash: string
  status_source: StatusSource
  webhook_match: WebhookMatch | null
  first_seen_at: string
  last_changed_at: string
  status_confirmed_at: string | null
  status_confirmed_by: ConfirmedBy | null
  status_checked_at: string | null
  status_check_failures: number | null
  gone_at: string | null
}

/** The columns written from a record, in insert order (after type and order_id). */
export const DATA_COLUMNS = [
  'status',
  'fiat_type',
  'coin_id',
  'chain_id',
  'payment_type',
  'created_at',
  'updated_at',
  'wallet_address',
  'merchant_recognition_id',
  'reference_id',
  'transaction_hash',
  'hash_id',
  'user_id',
  'app_id',
  'kyc_needed',
  'trials',
  'webhook_trials',
  'fiat_amount',
  'expected_crypto_amount',
  'actual_crypto_amount',
  'expected_price',
  'actual_price',
  'expected_quantity',
  'actual_quantity',
  'actual_fiat_amount',
  'onramp_fee',
  'gas_fee',
  'client_fee',
  'gateway_fee',
  'tds_fee',
  'sort_fiat',
  'sort_crypto',
  'record_json',
  'content_hash'
] as const

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null)
export const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null)
/** A REAL copy of a decimal string for ORDER BY only. */
const sortKey = (v: string | null): number | null => {
  if (v === null) return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}

export function columnValues(type: OrderType, record: OrderRecord, scopeFiatType: number | null, hash: string): SqlValue[] {
  const r = record as Record<string, unknown>
  const fiatAmount = type === 1 ? str(r.fiatAmount) : null
  const actualFiat = str(r.actualFiatAmount)
  const crypto =
    type === 1 ? (str(r.actualCryptoAmount) ?? str(r.expectedCryptoAmount)) : (str(r.actualQuantity) ?? str(r.expectedQuantity))
  return [
    record.status,
    int(r.fiatType) ?? scopeFiatType,
    record.coinId,
    record.chainId,
    int(r.paymentType),
    record.createdAt,
    record.updatedAt,
    str(r.walletAddress),
    str(r.merchantRecognitionId),
    str(r.referenceId),
    str(r.transactionHash),
    str(r.hashId),
    int(r.userId),
    int(r.appId),
    int(r.kycNeeded),
    int(r.trials),
    int(r.webhookTrials),
    fiatAmount,
    str(r.expectedCryptoAmount),
    str(r.actualCryptoAmount),
    str(r.expectedPrice),
    str(r.actualPrice),
    str(r.expectedQuantity),
    str(r.actualQuantity),
    actualFiat,
    str(r.onrampFee),
    str(r.gasFee),
    str(r.clientFee),
    str(r.gatewayFee),
    str(r.tdsFee),
    sortKey(type === 1 ? fiatAmount : actualFiat),
    sortKey(crypto),
    JSON.stringify(record),
    hash
  ]
}

/**
 * The columns the orders table shows of an order (order-rows.ts): a window reads only
 * these, not the record (a kilobyte or two each, parsed) nor the other amounts.
 */
export const LISTED_COLUMNS = [
  'type',
  'order_id',
  'status',
  'fiat_type',
  'coin_id',
  'chain_id',
  'created_at',
  'updated_at',
  'wallet_address',
  'merchant_recognition_id',
  'reference_id',
  'transaction_hash',
  'fiat_amount',
  'expected_crypto_amount',
  'actual_crypto_amount',
  'expected_quantity',
  'actual_quantity',
  'actual_fiat_amount',
  'first_seen_at',
  'last_changed_at',
  'status_confirmed_at',
  'status_confirmed_by',
  'status_checked_at',
  'status_check_failures',
  'gone_at'
] as const

export type ListedOrderDbRow = Pick<OrderDbRow, (typeof LISTED_COLUMNS)[number]>

/** An order as the orders table lists it. */
export type ListedOrder = Pick<
  StoredOrder,
  | 'type'
  | 'orderId'
  | 'status'
  | 'fiatType'
  | 'coinId'
  | 'chainId'
  | 'createdAt'
  | 'updatedAt'
  | 'walletAddress'
  | 'merchantRecognitionId'
  | 'referenceId'
  | 'transactionHash'
  | 'fiatAmount'
  | 'expectedCryptoAmount'
  | 'actualCryptoAmount'
  | 'expectedQuantity'
  | 'actualQuantity'
  | 'actualFiatAmount'
  | 'firstSeenAt'
  | 'lastChangedAt'
  | 'statusConfirmedAt'
  | 'statusConfirmedBy'
  | 'statusCheckedAt'
  | 'statusCheckFailures'
  | 'goneAt'
>

export function toListedOrder(r: ListedOrderDbRow): ListedOrder {
  return {
    type: r.type as OrderType,
    orderId: r.order_id,
    status: r.status,
    fiatType: r.fiat_type,
    coinId: r.coin_id,
    chainId: r.chain_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    walletAddress: r.wallet_address,
    merchantRecognitionId: r.merchant_recognition_id,
    referenceId: r.reference_id,
    transactionHash: r.transaction_hash,
    fiatAmount: r.fiat_amount,
    expectedCryptoAmount: r.expected_crypto_amount,
    actualCryptoAmount: r.actual_crypto_amount,
    expectedQuantity: r.expected_quantity,
    actualQuantity: r.actual_quantity,
    actualFiatAmount: r.actual_fiat_amount,
    firstSeenAt: r.first_seen_at,
    lastChangedAt: r.last_changed_at,
    statusConfirmedAt: r.status_confirmed_at ?? null,
    statusConfirmedBy: r.status_confirmed_by ?? null,
    statusCheckedAt: r.status_checked_at ?? null,
    statusCheckFailures: r.status_check_failures ?? 0,
    goneAt: r.gone_at ?? null
  }
}

export function toStoredOrder(r: OrderDbRow): StoredOrder {
  return {
    ...toListedOrder(r),
    paymentType: r.payment_type,
    expectedPrice: r.expected_price,
    actualPrice: r.actual_price,
    onrampFee: r.onramp_fee,
    gasFee: r.gas_fee,
    clientFee: r.client_fee,
    gatewayFee: r.gateway_fee,
    tdsFee: r.tds_fee,
    record: JSON.parse(r.record_json) as OrderRecord,
    statusSource: r.status_source,
    webhookMatch: r.webhook_match ?? null,
    contentHash: r.content_hash
  }
}

/** A row of order_events as the timeline reads it. */
export function toOrderEvent(e: OrderEventDbRow): OrderEvent {
  return {
    id: e.id,
    type: e.type as OrderType,
    orderId: e.order_id,
    at: e.at,
    orderUpdatedAt: e.order_updated_at,
    oldStatus: e.old_status,
    newStatus: e.new_status,
    source: e.source
  }
}

export function summaryOf(type: OrderType, record: OrderRecord, scopeFiatType: number | null): OrderSummary {
  const fiat = int((record as Record<string, unknown>).fiatType) ?? scopeFiatType
  return {
    type,
    orderId: record.orderId,
    status: record.status,
    fiatType: fiat,
    coinId: record.coinId,
    chainId: record.chainId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt
  }
}

export function assertType(type: number): asserts type is OrderType {
  if (type !== 1 && type !== 2) throw new RangeError(`order type must be 1 (onramp) or 2 (offramp), got ${type}`)
}

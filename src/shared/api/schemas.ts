// Zod schemas for every shape of the merchant API (the merchant API spec), tolerant of
// the live service (the live-service notes): unknown keys pass through, ids may be
// numeric strings and come out as numbers, money fields come out as decimal strings so
// nothing downstream does float arithmetic, and timestamps come out as ISO strings
// with milliseconds.
import { z } from 'zod'
import { toDecimalString } from '../money'

// ---------------------------------------------------------------- primitives

const INT_TEXT = /^-?\d+$/

/** An integer id (coin, chain, fiat type, order): a number or a numeric string, out as a number. */
export const Id = z
  .union([
    z.number().int(),
    // Beyond 2^53 Number() would silently turn the id into a different one.
    z
      .string()
      .regex(INT_TEXT, 'expected an integer id')
      .refine((s) => Number.isSafeInteger(Number(s)), 'integer id out of range')
  ])
  .transform((v) => Number(v))

/** An integer field that may arrive as a numeric string (status, paymentType...). */
export const Int = Id

const MONEY_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?$/
/**
 * JSON doubles never need an exponent beyond ±324; a text such as "1e999999999" would
 * expand to a gigabyte of zeros in the plain decimal form, so it is refused instead.
 */
const MAX_MONEY_EXPONENT = 1000

/** The text big.js can take (it refuses a leading "+"), or undefined when it is not a sane decimal. */
function moneyText(s: string): string | undefined {
  const t = s.trim()
  const m = MONEY_TEXT.exec(t)
  if (!m) return undefined
  if (m[1] !== undefined && Math.abs(Number(m[1])) > MAX_MONEY_EXPONENT) return undefined
  return t.startsWith('+') ? t.slice(1) : t
}

/** A money or quantity field: number or numeric string in, decimal string out. */
export const Money = z
  .union([
    z.number().refine(Number.isFinite, 'expected a finite number'),
    z.string().refine((s) => moneyText(s) !== undefined, 'expected a decimal')
  ])
  .transform((v, ctx) => {
    // A transform must report, never throw: a throw would escape safeParse.
    try {
      return toDecimalString(typeof v === 'number' ? v : (moneyText(v) ?? v))
    } catch {
      ctx.issues.push({ code: 'custom', message: 'expected a decimal', input: v })
      return z.NEVER
    }
  })

const NullableMoney = Money.nullable()

const ZONELESS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/
/** A time written without a zone (read as UTC here, which the writer may not have meant). */
export const isZonelessTime = (s: string): boolean => ZONELESS_TIME.test(s)
/** The service's times are UTC; Date.parse would read a zoneless one in the operator's local zone. */
const asUtc = (s: string): string => (isZonelessTime(s) ? `${s}Z` : s)

/** An ISO 8601 timestamp, normalised to YYYY-MM-DDTHH:mm:ss.sssZ (a missing zone means UTC). */
export const Timestamp = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(asUtc(s))), 'expected an ISO 8601 timestamp')
  .transform((s) => new Date(asUtc(s)).toISOString())

/** Strings the service sometimes sends as numbers (account numbers, reference ids). */
const Text = z.union([z.string(), z.number().transform((n) => String(n))])

/** A map keyed by id (JSON object keys are always strings). */
const IdMap = <T extends z.ZodType>(value: T) => z.record(z.string(), value)

// ---------------------------------------------------------------- envelopes

/** Success envelope: status 1, code 200 (code missing in some offramp history responses). */
export const envelope = <T extends z.ZodType>(data: T) =>
  z.looseObject({
    status: z.literal(1),
    code: Int.optional(),
    data
  })

/** The live error envelope: {status: 0, code, error}. */
export const ErrorEnvelope = z.looseObject({
  status: z.literal(0),
  code: Int,
  error: z.union([z.string(), z.unknown().transform((v) => JSON.stringify(v))]).optional(),
  message: z.string().optional()
})
export type ErrorEnvelope = z.output<typeof ErrorEnvelope>

// ---------------------------------------------------------------- config shapes (2.2, 2.3)

export const ChainDetail = z.looseObject({
  chainSymbol: z.string(),
  chainName: z.string().optional(),
  addressRegex: z.string().optional(),
  memoRegex: z.string().optional(),
  startingWith: z.array(z.string()).optional(),
  networkId: Int.optional(),
  nativeToken: Int.optional(),
  node: Int.optional(),
  hashLink: z.string().optional(),
  confirmations: Int.optional()
})
export type ChainDetail = z.output<typeof ChainDetail>

export const CoinConfig = z.looseObject({
  coinId: Id,
  coinName: z.string(),
  coinIcon: z.string().optional(),
  balanceFloatPlaces: Int.optional(),
  tradeFloatPlaces: Int.optional(),
  markets: z.looseObject({ decimals: z.record(z.string(), Int).optional() }).optional(),
  networks: z.array(Id).default([])
})
export type CoinConfig = z.output<typeof CoinConfig>

// ---------------------------------------------------------------- fees and limits (2.6, 2.7)

/** A coin's fee and minimum on one chain, as the gas fee tables give them. */
export const WithdrawalFeeEntry = z.looseObject({
  withdrawalFee: Money,
  minimumWithdrawal: Money,
  nodeInSync: Int,
  depositEnable: Int.optional()
})

const DepositFeeEntry = z.looseObject({
  depositFee: Money,
  minimumDeposit: Money,
  nodeInSync: Int
})

export const LimitEntry = z.looseObject({ min: Money, max: Money })
export type LimitEntry = z.output<typeof LimitEntry>

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const isLimitEntry = (v: unknown): boolean => isObject(v) && 'min' in v && 'max' in v

/**
 * {onramp?: {fiatId: {min,max}}, offramp?: {...}}. Spec 4.13 does not show the answer for
 * types 2 and 3; a service may key type 3 by the type numbers ({"1": {...}, "2": {...}}),
 * read here as onramp and offramp. (A type 2 answer keyed by fiat directly is read by
 * limitsOfType, which knows the type asked for.)
 */
export const LimitsByType = z.preprocess(
  (v) => {
    if (!isObject(v) || 'onramp' in v || 'offramp' in v) return v
    const keys = Object.keys(v)
    if (keys.length === 0 || !keys.every((k) => (k === '1' || k === '2') && isObject(v[k]) && !isLimitEntry(v[k]))) return v
    return { ...(v['1'] !== undefined ? { onramp: v['1'] } : {}), ...(v['2'] !== undefined ? { offramp: v['2'] } : {}) }
  },
  z.looseObject({
    onramp: IdMap(LimitEntry).optional(),
    offramp: IdMap(LimitEntry).optional()
  })
)
export type LimitsByType = z.output<typeof LimitsByType>

/** A limits answer for one type that came keyed by fiat directly (no onramp/offramp key): put under the type's key. */
export function limitsOfType(data: LimitsByType, type: 1 | 2 | 3): LimitsByType {
  if (type === 3 || data.onramp !== undefined || data.offramp !== undefined) return data
  const flat = IdMap(LimitEntry).safeParse(data)
  if (!flat.success || Object.keys(flat.data).length === 0) return data
  return type === 1 ? { onramp: flat.data } : { offramp: flat.data }
}

// ---------------------------------------------------------------- orders (2.4, 2.5)

/**
 * History and webhooks spell the fee onRampFee (onramp) or onrampFee (offramp), quotes
 * onrampFee (the live-service notes, Field meanings: accept both everywhere); expose onrampFee.
 */
const unifyOnrampFee = (v: unknown): unknown => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    if (o.onRampFee !== undefined) {
      const { onRampFee, ...rest } = o
      return { ...rest, onrampFee: rest.onrampFee ?? onRampFee }
    }
  }
  return v
}

const optText = Text.nullable().optional()
const optMoney = NullableMoney.optional()

export const OnrampOrder = z.preprocess(
  unifyOnrampFee,
  z.looseObject({
    orderId: Id,
    userId: Id.nullable().optional(),
    appId: Id.nullable().optional(),
    walletAddress: optText,
    coinId: Id,
    chainId: Id,
    fiatType: Id,
    paymentType: Int.nullable().optional(),
    fiatAmount: Money,
    expectedCryptoAmount: Money,
    expectedPrice: optMoney,
    actualCryptoAmount: optMoney,
    actualPrice: optMoney,
    kycNeeded: Int.nullable().optional(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: Int,
    referenceId: optText,
    hashId: optText,
    transactionHash: optText,
    onrampFee: optMoney,
    gasFee: optMoney,
    clientFee: optMoney,
    gatewayFee: optMoney,
    trials: Int.nullable().optional(),
    merchantRecognitionId: optText,
    webhookTrials: Int.nullable().optional()
  })
)
export type OnrampOrder = z.output<typeof OnrampOrder>

export const OfframpOrder = z.preprocess(
  unifyOnrampFee,
  z.looseObject({
    orderId: Id,
    coinId: Id,
    chainId: Id,
    walletAddress: optText,
    expectedPrice: optMoney,
    expectedQuantity: Money,
    actualPrice: optMoney,
    actualQuantity: optMoney,
    actualFiatAmount: optMoney,
    onrampFee: optMoney,
    clientFee: optMoney,
    gatewayFee: optMoney,
    tdsFee: optMoney,
    merchantRecognitionId: optText,
    paymentType: Int.nullable().optional(),
    fiatType: Id.optional(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: Int,
    transactionHash: optText,
    // Live extras on offramp webhook bodies.
    eventType: z.string().optional(),
    coinCode: z.string().optional(),
    network: z.string().optional(),
    statusDescription: z.string().optional()
  })
)
export type OfframpOrder = z.output<typeof OfframpOrder>

// ---------------------------------------------------------------- bank details (2.8)

export const Note = z.looseObject({ type: Int, msg: z.string() })
export type Note = z.output<typeof Note>

export const BankAccount = z.looseObject({
  name: Text.optional(),
  type: Text.optional(),
  branch: Text.optional(),
  bank: Text.optional(),
  ifsc: Text.optional(),
  ac: Text.optional(),
  accountNumber: Text.optional()
})
export type BankAccount = z.output<typeof BankAccount>

export const BankDetails = z.looseObject({
  upi: z.union([z.string(), z.looseObject({ vpa: z.string(), name: z.string().optional() })]).optional(),
  upiAct: z.string().optional(),
  upiNotes: z.array(Note).optional(),
  bankNotes: z.array(Note).optional(),
  bank: z.union([z.array(BankAccount), BankAccount]).optional()
})
export type BankDetails = z.output<typeof BankDetails>

// ---------------------------------------------------------------- response data per endpoint

/** allChainMapping: a bare chain map, or (live) {allCoinConfig, networkConfig}. */
export const ChainMappingData = z.union([
  z.looseObject({ networkConfig: IdMap(ChainDetail), allCoinConfig: z.record(z.string(), CoinConfig).optional() }),
  IdMap(ChainDetail)
])
export type ChainMappingData = z.output<typeof ChainMappingData>

/** allCoinLimits shape A ({onramp: {fiat: {min,max}}}) or shape B ({coinId: {chainId: number}}). */
export const CoinLimitsData = z.union([z.looseObject({ onramp: IdMap(LimitEntry) }), IdMap(IdMap(Money))])
export type CoinLimitsData = z.output<typeof CoinLimitsData>

export const GasFeeData = IdMap(IdMap(WithdrawalFeeEntry))
export type GasFeeData = z.output<typeof GasFeeData>

export const ConfigMappingData = z.looseObject({
  fiatSymbolMapping: z.record(z.string(), Id),
  coinSymbolMapping: z.record(z.string(), Id),
  chainSymbolMapping: z.record(z.string(), Id)
})
export type ConfigMappingData = z.output<typeof ConfigMappingData>

/** Text answers of the webhook calls; tolerate an object by keeping its JSON. */
export const TextData = z.union([z.string(), z.unknown().transform((v) => JSON.stringify(v))])

/** An onramp quote's fields (spec 4.9). */
export const OnrampQuoteFields = z.looseObject({
  rate: Money,
  quantity: Money,
  onrampFee: Money,
  clientFee: Money,
  gatewayFee: Money,
  gasFee: Money
})

/** Quote answers (spec 4.9, 4.10): the fee as onrampFee or onRampFee, out as onrampFee. */
export const OnrampQuote = z.preprocess(unifyOnrampFee, OnrampQuoteFields)
export type OnrampQuote = z.output<typeof OnrampQuote>

/** An offramp quote's fields (spec 4.10). */
export const OfframpQuoteFields = z.looseObject({
  fiatAmount: Money,
  rate: Money,
  onrampFee: Money,
  clientFee: Money,
  gatewayFee: Money,
  tdsFee: Money
})

export const OfframpQuote = z.preprocess(unifyOnrampFee, OfframpQuoteFields)
export type OfframpQuote = z.output<typeof OfframpQuote>

/**
 * priceTicker: type 1 -> onramp (buy). Spec 4.11 does not show the keys for types 2 and 3:
 * {offramp} / {onramp, offramp}, or after the table's "1 = buy, 2 = sell" {sell} / {buy,
 * sell}. Both are read as onramp (buy) and offramp (sell).
 */
export const PriceTickerData = z.preprocess(
  (v) => {
    if (!isObject(v) || 'onramp' in v || 'offramp' in v || !('buy' in v || 'sell' in v)) return v
    const { buy, sell, ...rest } = v
    return { ...rest, ...(buy !== undefined ? { onramp: buy } : {}), ...(sell !== undefined ? { offramp: sell } : {}) }
  },
  z.looseObject({
    onramp: IdMap(Money).optional(),
    offramp: IdMap(Money).optional()
  })
)
export type PriceTickerData = z.output<typeof PriceTickerData>

export const OrderStatusData = z.looseObject({ orderStatus: Int })

/** currentTimestamp: the service's time in ms since the epoch (a number, or its digits). */
export const ServerTime = Id.refine((ms) => ms > 0, 'expected a time in ms since the epoch')

export const PublicGasFeeData = z.looseObject({
  allGasFee: IdMap(IdMap(z.looseObject({ withdrawalFee: Money, minimumWithdrawal: Money, nodeInSync: Int })))
})
export type PublicGasFeeData = z.output<typeof PublicGasFeeData>

/** coinData: per coin a price, or per chain a price. */
export const CoinPrice = z.union([Money, IdMap(Money)])

export const PublicAllConfigData = z.looseObject({
  allCoinConfig: z.record(z.string(), CoinConfig).optional(),
  networkConfig: IdMap(ChainDetail).optional(),
  coinData: IdMap(CoinPrice).optional(),
  minimumBuyAmount: IdMap(IdMap(Money)).optional(),
  allGasFee: IdMap(IdMap(z.union([WithdrawalFeeEntry, DepositFeeEntry]))).optional(),
  gatewayFee: IdMap(z.record(z.string(), Money)).optional(),
  minimumSellAmount: IdMap(Money).optional()
})
export type PublicAllConfigData = z.output<typeof PublicAllConfigData>

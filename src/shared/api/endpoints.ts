// The one table of the merchant API's 15 endpoints (the merchant API spec, section 4).
// The ApiClient, the sandbox router and the docs are all driven by it: method, path
// (after /{serviceName}/api/), auth, rate limit, and the request and response schemas
// (the whole envelope).
import { z } from 'zod'
import {
  ChainMappingData,
  CoinLimitsData,
  ConfigMappingData,
  GasFeeData,
  Id,
  LimitsByType,
  OfframpOrder,
  OfframpQuote,
  OnrampOrder,
  OnrampQuote,
  OrderStatusData,
  PriceTickerData,
  PublicAllConfigData,
  PublicGasFeeData,
  ServerTime,
  BankDetails,
  TextData,
  Timestamp,
  envelope
} from './schemas'
import { httpUrl } from '../http-url'

// ---------------------------------------------------------------- request bodies

const Empty = z.object({}).strict()

/** A JSON number that is a real amount (the spec types amounts as numbers). */
const Amount = z.number().finite().positive()

const oneOf = <T extends number>(values: readonly T[], what: string) =>
  Id.refine((v) => (values as readonly number[]).includes(v), `${what} must be one of ${values.join(', ')}`)

const webhookUrl = httpUrl('webhookUrl must be an http(s) URL')

export const MerchantHistoryRequest = z
  .object({
    // The spec's pages start at 1; 0 is sent only to a service found to count from 0
    // (monitor/history-probes.ts), or to find out whether it does.
    page: z.number().int().min(0).optional(),
    pageSize: z.number().int().min(1).max(500).optional(),
    since: Timestamp.optional(),
    order: z.enum(['ASC', 'DESC']).optional(),
    type: z.union([z.literal(''), oneOf([1, 2] as const, 'type')]).optional(),
    fiatType: Id.optional()
  })
  .strict()
export type MerchantHistoryRequest = z.input<typeof MerchantHistoryRequest>

const quoteTarget = {
  coinId: z.number().int().optional(),
  coinCode: z.string().min(1).optional(),
  chainId: z.number().int().optional(),
  network: z.string().min(1).optional()
}
const hasCoinAndChain = (b: { coinId?: number; coinCode?: string; chainId?: number; network?: string }) =>
  (b.coinId !== undefined || b.coinCode !== undefined) && (b.chainId !== undefined || b.network !== undefined)

export const OnrampQuoteRequest = z
  .object({ ...quoteTarget, fiatAmount: Amount, fiatType: z.number().int(), type: z.literal(1) })
  .strict()
  .refine(hasCoinAndChain, 'a coin (coinId or coinCode) and a chain (chainId or network) are required')
export const OfframpQuoteRequest = z
  .object({ ...quoteTarget, quantity: Amount, fiatType: z.literal(1, 'offramp quotes support INR (fiatType 1) only'), type: z.literal(2) })
  .strict()
  .refine(hasCoinAndChain, 'a coin (coinId or coinCode) and a chain (chainId or network) are required')
const QuoteRequest = z.discriminatedUnion('type', [OnrampQuoteRequest, OfframpQuoteRequest])
export type OnrampQuoteRequest = z.input<typeof OnrampQuoteRequest>
export type OfframpQuoteRequest = z.input<typeof OfframpQuoteRequest>

// ---------------------------------------------------------------- response envelopes

export const OnrampHistoryResponse = envelope(z.array(OnrampOrder))
export const OfframpHistoryResponse = envelope(z.array(OfframpOrder))
export const OnrampQuoteResponse = envelope(OnrampQuote)
export const OfframpQuoteResponse = envelope(OfframpQuote)

// ---------------------------------------------------------------- the table

type HttpMethod = 'GET' | 'POST'

/** How an integer-valued request field travels: a JSON number, or a JSON string of its digits. */
export type IdEncoding = 'integer' | 'string'

export interface EndpointDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  method: HttpMethod
  /** Path after /{serviceName}/api/ */
  path: string
  /** Signed with the three X-SERVICE-* headers. */
  auth: boolean
  /** Documented limit (spec section 8); null where the spec shows none (the budget learns one on a 429). */
  rateLimitPerMinute: number | null
  /**
   * The integer-valued body fields and the JSON type each is sent as by default: the type
   * the spec's table states ('string': a string of digits), except where the spec says
   * "string (sent as integer in the sample)", which goes as the integer of the sample. The
   * live service's reading is not proven for every field (live-service notes, parameter
   * types): on 409 "wrong parameter type" the client tries the other encoding and keeps
   * what the service took (param-encoding.ts).
   */
  idParams: Readonly<Record<string, IdEncoding>>
  /**
   * read: safe to retry on network errors, timeouts, 5xx and 429.
   * write: changes state at the service (the webhook calls); never retried blindly.
   */
  effect: 'read' | 'write'
  request: Req
  response: Res
  summary: string
}

const def = <Req extends z.ZodType, Res extends z.ZodType>(d: EndpointDef<Req, Res>) => d

export const endpoints = {
  allChainMapping: def({
    method: 'POST',
    path: 'v2/common/transaction/allChainMapping',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: {},
    effect: 'read',
    request: Empty,
    response: envelope(ChainMappingData),
    summary: 'Chain details keyed by chain id'
  }),
  allCoinLimits: def({
    method: 'POST',
    path: 'v2/common/transaction/allCoinLimits',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: { fiatType: 'integer' },
    effect: 'read',
    request: z.object({ fiatType: Id }).strict(),
    response: envelope(CoinLimitsData),
    summary: 'Transaction limits (shape A: per fiat; shape B: per coin and chain)'
  }),
  allGasFee: def({
    method: 'POST',
    path: 'v2/common/transaction/allGasFee',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: {},
    effect: 'read',
    request: Empty,
    response: envelope(GasFeeData),
    summary: 'Withdrawal fees per coin and chain'
  }),
  merchantHistory: def({
    method: 'POST',
    path: 'v1/transaction/merchantHistory',
    auth: true,
    rateLimitPerMinute: null,
    idParams: { page: 'integer', pageSize: 'integer', type: 'integer', fiatType: 'string' },
    effect: 'read',
    request: MerchantHistoryRequest,
    response: z.union([OnrampHistoryResponse, OfframpHistoryResponse]),
    summary: "The merchant's onramp or offramp orders, paged"
  }),
  allConfigMapping: def({
    method: 'POST',
    path: 'v2/common/transaction/allConfigMapping',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: {},
    effect: 'read',
    request: Empty,
    response: envelope(ConfigMappingData),
    summary: 'Fiat, coin and chain symbol-to-id mappings'
  }),
  sendDummyWebhook: def({
    method: 'POST',
    path: 'v1/merchant/sendDummyWebhook',
    auth: true,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'write',
    request: z.object({ webhookUrl: webhookUrl.optional() }).strict(),
    response: envelope(TextData),
    summary: 'Send a dummy order webhook to a URL (or the one set)'
  }),
  resendWebhook: def({
    method: 'POST',
    path: 'v1/merchant/resendWebhook',
    auth: true,
    rateLimitPerMinute: null,
    idParams: { orderId: 'integer' },
    effect: 'write',
    request: z.object({ orderId: Id }).strict(),
    response: envelope(TextData),
    summary: "Send one order's webhook again"
  }),
  setWebhookUrl: def({
    method: 'POST',
    path: 'v1/merchant/setWebhookUrl',
    auth: true,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'write',
    request: z.object({ webhookUrl }).strict(),
    response: envelope(TextData),
    summary: "Set the merchant's webhook URL"
  }),
  quotes: def({
    method: 'POST',
    path: 'v2/common/transaction/quotes',
    auth: true,
    rateLimitPerMinute: null,
    idParams: { coinId: 'integer', chainId: 'integer', fiatType: 'integer', type: 'integer' },
    effect: 'read',
    request: QuoteRequest,
    response: z.union([OnrampQuoteResponse, OfframpQuoteResponse]),
    summary: 'Onramp (type 1) or offramp (type 2) quote'
  }),
  priceTicker: def({
    method: 'POST',
    path: 'v2/common/transaction/priceTicker',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: { type: 'string', fiatType: 'string' },
    effect: 'read',
    request: z.object({ type: oneOf([1, 2, 3] as const, 'type'), fiatType: Id }).strict(),
    response: envelope(PriceTickerData),
    summary: 'Buy (1), sell (2) or both (3) prices per coin'
  }),
  orderStatus: def({
    method: 'POST',
    path: 'v2/common/transaction/orderStatus',
    auth: true,
    rateLimitPerMinute: null,
    idParams: { orderId: 'string', type: 'integer' },
    effect: 'read',
    request: z.object({ orderId: Id, type: oneOf([1, 2] as const, 'type') }).strict(),
    response: envelope(OrderStatusData),
    summary: 'Status of one order'
  }),
  limits: def({
    method: 'POST',
    path: 'v2/common/transaction/limits',
    auth: true,
    rateLimitPerMinute: 10,
    idParams: { type: 'string' },
    effect: 'read',
    request: z.object({ type: oneOf([1, 2, 3] as const, 'type') }).strict(),
    response: envelope(LimitsByType),
    summary: 'Min and max per fiat for onramp (1), offramp (2) or both (3)'
  }),
  publicAllGasFee: def({
    method: 'GET',
    path: 'v1/public/allGasFee',
    auth: false,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'read',
    request: z.undefined(),
    response: envelope(PublicGasFeeData),
    summary: 'Public withdrawal fees (numbers; "native" for a coin\'s own chain)'
  }),
  bankDetails: def({
    method: 'GET',
    path: 'v1/transaction/bankDetails',
    auth: false,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'read',
    request: z.undefined(),
    response: envelope(BankDetails),
    summary: 'UPI and bank account details with notes'
  }),
  currentTimestamp: def({
    method: 'GET',
    path: 'v2/common/public/currentTimestamp',
    auth: false,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'read',
    request: z.undefined(),
    response: envelope(ServerTime),
    summary: "The service's clock in ms (live-service notes; not in the spec: may answer 404)"
  }),
  publicAllConfig: def({
    method: 'GET',
    path: 'v2/sell/public/allConfig',
    auth: false,
    rateLimitPerMinute: null,
    idParams: {},
    effect: 'read',
    request: z.undefined(),
    response: envelope(PublicAllConfigData),
    summary: 'Coins, networks, prices, fees, minimums'
  })
} as const

type Endpoints = typeof endpoints
export type EndpointName = keyof Endpoints
export const endpointNames = Object.keys(endpoints) as EndpointName[]
export type RequestOf<N extends EndpointName> = z.input<Endpoints[N]['request']>

/** The endpoints with a documented per-minute limit (spec section 8). */
export const limitedEndpoints = endpointNames.filter((n) => endpoints[n].rateLimitPerMinute !== null)

/** Full URL path of an endpoint for a service name: /{serviceName}/api/{path}. */
export function endpointPath(serviceName: string, name: EndpointName): string {
  return `/${serviceName}/api/${endpoints[name].path}`
}

/** Names of the three headers for a service name (docs/architecture.md: the middle word is the service name). */
export function authHeaderNames(serviceName: string) {
  const up = serviceName.toUpperCase()
  return {
    apiKey: `X-${up}-APIKEY`,
    payload: `X-${up}-PAYLOAD`,
    signature: `X-${up}-SIGNATURE`,
    webhookPayload: `x-${serviceName.toLowerCase()}-payload`,
    webhookSignature: `x-${serviceName.toLowerCase()}-signature`
  }
}

// The sandbox's own route table, transcribed from spec section 4 (and the live notes for
// currentTimestamp), independent of the client's endpoint table: name, method, path
// after /{service}/api/, whether the request is signed (section 5), and the per-minute
// limit section 8 documents (null where the spec shows none). Also the names of the
// signature headers, which carry the service's name (never a fixed word).

export interface Route {
  method: 'GET' | 'POST'
  /** Path after /{serviceName}/api/ */
  path: string
  /** Carries the three X-{SERVICE}-* headers of spec section 5. */
  signed: boolean
  /** The documented limit per minute (spec section 8); null where the spec shows none. */
  perMinute: number | null
  /** Where the spec (or the live notes) describes it. */
  source: string
}

const post = (path: string, perMinute: number | null, source: string): Route => ({ method: 'POST', path, signed: true, perMinute, source })
const get = (path: string, source: string): Route => ({ method: 'GET', path, signed: false, perMinute: null, source })

export const ROUTES = {
  allChainMapping: post('v2/common/transaction/allChainMapping', 10, 'spec 4.1'),
  allCoinLimits: post('v2/common/transaction/allCoinLimits', 10, 'spec 4.2'),
  allGasFee: post('v2/common/transaction/allGasFee', 10, 'spec 4.3'),
  merchantHistory: post('v1/transaction/merchantHistory', null, 'spec 4.4'),
  allConfigMapping: post('v2/common/transaction/allConfigMapping', 10, 'spec 4.5'),
  sendDummyWebhook: post('v1/merchant/sendDummyWebhook', null, 'spec 4.6'),
  resendWebhook: post('v1/merchant/resendWebhook', null, 'spec 4.7'),
  setWebhookUrl: post('v1/merchant/setWebhookUrl', null, 'spec 4.8'),
  quotes: post('v2/common/transaction/quotes', null, 'spec 4.9, 4.10'),
  priceTicker: post('v2/common/transaction/priceTicker', 10, 'spec 4.11'),
  orderStatus: post('v2/common/transaction/orderStatus', null, 'spec 4.12'),
  limits: post('v2/common/transaction/limits', 10, 'spec 4.13'),
  publicAllGasFee: get('v1/public/allGasFee', 'spec 4.14'),
  bankDetails: get('v1/transaction/bankDetails', 'spec 4.15'),
  publicAllConfig: get('v2/sell/public/allConfig', 'spec 4.16'),
  currentTimestamp: get('v2/common/public/currentTimestamp', 'live notes, last section')
} as const satisfies Record<string, Route>

export type EndpointName = keyof typeof ROUTES
export const ENDPOINT_NAMES = Object.keys(ROUTES) as EndpointName[]

export const isEndpointName = (v: unknown): v is EndpointName => typeof v === 'string' && Object.hasOwn(ROUTES, v)

/** The endpoints whose per-minute limit the spec does not show. */
export const UNLIMITED_ENDPOINTS = ENDPOINT_NAMES.filter((n) => ROUTES[n].perMinute === null)

/** /{serviceName}/api/{path} */
export function routePath(serviceName: string, name: EndpointName): string {
  return `/${serviceName}/api/${ROUTES[name].path}`
}

/** The header names of a deployment: the middle word is the service's name (white-label deployments change it). */
export function headerNames(serviceName: string): {
  apiKey: string
  payload: string
  signature: string
  webhookPayload: string
  webhookSignature: string
} {
  const up = serviceName.toUpperCase()
  const low = serviceName.toLowerCase()
  return {
    apiKey: `X-${up}-APIKEY`,
    payload: `X-${up}-PAYLOAD`,
    signature: `X-${up}-SIGNATURE`,
    webhookPayload: `x-${low}-payload`,
    webhookSignature: `x-${low}-signature`
  }
}

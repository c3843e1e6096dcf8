// A scripted stand-in for the merchant API on an undici MockAgent, for the client's
// unit tests. By default it behaves like the service: it checks the API key, the
// signature and that the signed body equals the body sent, refuses timestamps ahead of
// its own clock with "Ahead of Time", and answers each endpoint with valid data.
// Tests queue replies per endpoint to provoke every kind of failure.
import { MockAgent } from 'undici'
import { ApiClient, type ApiClientOptions } from '../../../../src/main/api/client'
import { authHeaderNames, endpointNames, endpointPath, endpoints, type EndpointName } from '../../../../src/shared/api/endpoints'
import { decodePayload, jsonEqual, verifySignature } from '../../../../src/shared/api/signature'

export const ORIGIN = 'https://merchant.test'
export const SERVICE = 'service'
export const API_KEY = 'key-123'
export const API_SECRET = 'secret-Ω-never-shown'

export interface Received {
  endpoint?: EndpointName
  method: string
  path: string
  headers: Record<string, string>
  bodyText: string
  /** Local time the request arrived. */
  at: number
  /** The signed timestamp, for authenticated calls. */
  timestamp?: number
  /** Answered 429 by a hidden limit. */
  refused?: boolean
}

/** A scripted reply: an HTTP answer, or an Error thrown as the transport failure. */
export type Reply = { status: number; json?: unknown; text?: string; headers?: Record<string, string> } | Error

const order = {
  orderId: 101,
  walletAddress: '0xabc',
  coinId: 54,
  chainId: 3,
  fiatType: 1,
  paymentType: 1,
  fiatAmount: 1000,
  expectedCryptoAmount: 10.930000000000001,
  expectedPrice: 91.5,
  actualCryptoAmount: null,
  actualPrice: null,
  kycNeeded: 0,
  createdAt: '2024-01-02T03:04:05.000Z',
  updatedAt: '2024-01-02T03:05:05.000Z',
  status: 0,
  referenceId: null,
  onRampFee: 2.5,
  gasFee: 0.2,
  clientFee: 0,
  gatewayFee: 1,
  merchantRecognitionId: 'm-1'
}
const offrampOrder = {
  orderId: 202,
  coinId: 54,
  chainId: 3,
  expectedQuantity: '12.5',
  createdAt: '2024-01-02T03:04:05.000Z',
  updatedAt: '2024-01-02T03:04:06Z',
  status: 4
}

/** Valid data for every endpoint (the envelope's `data`). */
export function fixtureData(endpoint: EndpointName, body: Record<string, unknown>, serverOffsetMs = 0): unknown {
  switch (endpoint) {
    case 'allChainMapping':
      return { '0': { chainSymbol: 'erc20', chainName: 'Ethereum' }, '3': { chainSymbol: 'matic20' } }
    case 'allCoinLimits':
    case 'limits':
      return { onramp: { '1': { min: 100, max: 50000 } } }
    case 'allGasFee':
      return { '54': { '3': { withdrawalFee: '0.5', minimumWithdrawal: '1', nodeInSync: 1, depositEnable: 1 } } }
    case 'merchantHistory':
      return body.type === 2 ? [offrampOrder] : [order]
    case 'allConfigMapping':
      return { fiatSymbolMapping: { INR: 1 }, coinSymbolMapping: { usdt: '54', eth: 1 }, chainSymbolMapping: { matic20: 3 } }
    case 'sendDummyWebhook':
      return 'Webhook sent'
    case 'resendWebhook':
      return 'Response received from merchant server'
    case 'setWebhookUrl':
      return `Webhook url set to ${String(body.webhookUrl)}`
    case 'quotes':
      return body.type === 2
        ? { fiatAmount: 905.1, rate: 90.51, onrampFee: 1, clientFee: 0, gatewayFee: 0, tdsFee: 9.05 }
        : { rate: 91.5, quantity: 10.930000000000001, onrampFee: 2.5, clientFee: 0, gatewayFee: 1, gasFee: 0.2 }
    case 'priceTicker':
      return { onramp: { '54': 91.2 } }
    case 'orderStatus':
      return { orderStatus: 4 }
    case 'publicAllGasFee':
      return { allGasFee: { '54': { native: { withdrawalFee: 0.1, minimumWithdrawal: 1, nodeInSync: 1 } } } }
    case 'bankDetails':
      return { upi: 'merchant@upi', bankNotes: [{ type: 1, msg: 'IMPS only' }] }
    case 'publicAllConfig':
      return { coinData: { '54': 91.2 } }
    case 'currentTimestamp':
      return Date.now() + serverOffsetMs
  }
}

export interface MockServiceOptions {
  /** Server clock minus local clock, ms. */
  serverOffsetMs?: number
  /**
   * A service that holds fields to one JSON type ("endpoint.field" -> the type it takes):
   * anything else answers 409, naming the field unless bareTypeErrors.
   */
  strictTypes?: Record<string, 'integer' | 'string'>
  bareTypeErrors?: boolean
  /** Limits the spec does not show, per endpoint per minute, counted in fixed minutes or a sliding 60 s. */
  hiddenLimits?: Partial<Record<EndpointName, number>>
  hiddenLimitWindow?: 'fixed' | 'sliding'
  /** Refuse requests beyond this many per sliding 60 s window per endpoint with 429. */
  enforceLimits?: boolean
}

export function mockService(o: MockServiceOptions = {}) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const received: Received[] = []
  const scripts = new Map<EndpointName, Reply[]>()
  const byPath = new Map(endpointNames.map((n) => [endpointPath(SERVICE, n), n]))
  const names = authHeaderNames(SERVICE)
  const state = { serverOffsetMs: o.serverOffsetMs ?? 0 }

  const answer = (r: Exclude<Reply, Error>) => {
    const serverNow = Date.now() + state.serverOffsetMs
    return {
      statusCode: r.status,
      data: r.text ?? JSON.stringify(r.json),
      responseOptions: { headers: { 'content-type': 'application/json', date: new Date(serverNow).toUTCString(), ...r.headers } }
    }
  }
  const fail = (status: number, error: string) => answer({ status, json: { status: 0, code: status, error } })

  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((req) => {
      const headers = Object.fromEntries(
        Object.entries((req.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)])
      )
      const endpoint = byPath.get(req.path)
      const bodyText = typeof req.body === 'string' ? req.body : ''
      const rec: Received = { endpoint, method: req.method, path: req.path, headers, bodyText, at: Date.now() }
      received.push(rec)
      if (!endpoint) return fail(404, 'not found')
      const scripted = scripts.get(endpoint)?.shift()
      if (scripted instanceof Error) throw scripted
      if (scripted) return answer(scripted)

      let body: Record<string, unknown> = {}
      if (endpoints[endpoint].auth) {
        const payload = headers[names.payload.toLowerCase()] ?? ''
        if (headers[names.apiKey.toLowerCase()] !== API_KEY) return fail(401, 'Invalid API key')
        if (!verifySignature(payload, headers[names.signature.toLowerCase()] ?? '', API_SECRET)) return fail(401, 'Invalid signature')
        const signed = decodePayload(payload)
        rec.timestamp = signed.timestamp
        body = JSON.parse(bodyText) as Record<string, unknown>
        if (!jsonEqual(signed.body, body)) return fail(401, 'Payload body does not match request body')
        if (signed.timestamp > Date.now() + state.serverOffsetMs) return fail(401, 'Ahead of Time')
      }
      const wrong = Object.entries(o.strictTypes ?? {}).filter(([key, want]) => {
        const [ep, field] = key.split('.') as [string, string]
        if (ep !== endpoint || !(field in body)) return false
        return want === 'integer' ? typeof body[field] !== 'number' : typeof body[field] !== 'string'
      })
      if (wrong.length > 0)
        return fail(
          409,
          o.bareTypeErrors
            ? 'wrong parameter type'
            : `Wrong parameter type: ${wrong.map(([k, t]) => `${k.split('.')[1]} must be ${t}`).join(', ')}`
        )
      const limit = endpoints[endpoint].rateLimitPerMinute
      if (o.enforceLimits && limit !== null) {
        const recent = received.filter((r) => r.endpoint === endpoint && r.at > rec.at - 60_000)
        if (recent.length > limit) return fail(429, 'Too many requests')
      }
      const hidden = o.hiddenLimits?.[endpoint]
      if (hidden !== undefined) {
        const from = o.hiddenLimitWindow === 'fixed' ? rec.at - (rec.at % 60_000) : rec.at - 60_000 + 1
        // A refused request does not count against the window (the service did not serve it).
        const served = received.filter((r) => r !== rec && r.endpoint === endpoint && r.at >= from && !r.refused)
        if (served.length >= hidden) {
          rec.refused = true
          return fail(429, 'Too many requests')
        }
      }
      return answer({ status: 200, json: { status: 1, code: 200, data: fixtureData(endpoint, body, state.serverOffsetMs) } })
    })
    .persist()

  return {
    agent,
    received,
    state,
    /** Queue replies for the next requests to an endpoint; afterwards it behaves normally again. */
    script(endpoint: EndpointName, ...replies: Reply[]) {
      scripts.set(endpoint, [...(scripts.get(endpoint) ?? []), ...replies])
    },
    client(extra: Partial<ApiClientOptions> = {}) {
      return new ApiClient({
        profileId: 'p1',
        baseUrl: ORIGIN,
        serviceName: SERVICE,
        apiKey: API_KEY,
        getSecret: async () => API_SECRET,
        dispatcher: agent,
        retry: { random: () => 0 },
        // The clock probe (currentTimestamp before the first signed call) has tests of its
        // own; elsewhere it would only add a request to every count.
        clockProbe: false,
        ...extra
      })
    },
    sent(endpoint: EndpointName) {
      return received.filter((r) => r.endpoint === endpoint)
    }
  }
}

/** A socket-level failure with an errno code, as Node reports it. */
export function sysError(code: string): Error {
  return Object.assign(new Error(`${code.toLowerCase()} (simulated)`), { code })
}

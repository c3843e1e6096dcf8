// The embedded simulator of the whole merchant service. startSandbox() runs it on
// node:http (127.0.0.1, a random port by default) with seeded data, an injectable
// clock and a control surface (SandboxControl in process, /__sandbox/ over HTTP).
// It is an independent reading of the spec (its own routes, request fields and
// signature checks; nothing of the client's), and every choice the spec leaves open is
// a reading a test can switch (readings.ts, docs/spec-readings.md).
// The app starts it for the sandbox profile; tests, benchmarks and the demo use it;
// src/sandbox/cli.ts runs it standalone (npm run sandbox).
import type { ChainHealthRow, ChainHealthSpec } from './chain-health'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { EndpointName } from './routes'
import type { ReadingsInput, SandboxReadings } from './readings'
import { DEFAULT_AHEAD_TOLERANCE_MS, DEFAULT_MAX_AGE_MS } from './auth'
import type { FaultSpec, FaultTarget } from './faults'
import { createSandboxServer } from './http-server'
import { isControlToken, ownHosts } from './admin-api'
import type { CreateOrderSpec, OrderFiats, TickResult } from './order-generator'
import type { IdSequence } from './order-store'
import { SandboxService, type PriceRow, type TruthOrder } from './sandbox-service'
import type { DeliveryRecord } from './webhook-dispatcher'

const DEFAULT_API_KEY = 'rampdesk-sandbox-key'
const DEFAULT_API_SECRET = 'rampdesk-sandbox-secret-not-for-production'
const DEFAULT_SERVICE_NAME = 'service'
const DEFAULT_ORDERS = 500

export interface StartSandboxOptions {
  host?: string
  /** 0 (default) picks a free port. */
  port?: number
  seed?: number
  apiKey?: string
  apiSecret?: string
  /** Historical orders to pre-create (default 500). */
  orders?: number
  serviceName?: string
  /** The clock (ms since epoch); the sandbox clock is now() + clockOffsetMs. */
  now?: () => number
  /** Run the generator on a timer (default true). Tests pass false and call control.tick(). */
  autoGenerate?: boolean
  /** Generator period (default 2000 ms). */
  tickMs?: number
  /** Chance that one tick creates an order (default 0.35). */
  createChance?: number
  /** How far ahead of the sandbox clock a signed timestamp may be (default 5000 ms). */
  timestampToleranceMs?: number
  /** How old a signed timestamp may be (default 60000 ms). */
  timestampWindowMs?: number
  clockOffsetMs?: number
  /** Faults in force from the start, by endpoint name or "*". */
  faults?: Partial<Record<FaultTarget, FaultSpec>>
  /** Webhook: answer deadline (default 5000 ms), attempts (default 10), first retry delay (default 2000 ms, doubling, capped at webhookBackoffMaxMs, default 300000). */
  webhookTimeoutMs?: number
  webhookMaxTrials?: number
  webhookBackoffMs?: number
  webhookBackoffMaxMs?: number
  /** The readings of the spec's open choices (readings.ts); every one not given takes its default. */
  readings?: ReadingsInput
  /** The control API's token (X-Sandbox-Token); default a new random one per start. */
  controlToken?: string
  /** One order id sequence for both types ('shared', default) or one per type ('perType': an onramp and an offramp order may share an id). */
  orderIds?: IdSequence
  /** The fiat types (ids) orders are made in, per type. Default: onramp every fiat, offramp INR only. */
  orderFiats?: OrderFiats
}

/** The in-process form of the control API. */
export interface SandboxControl {
  /** Creates an order now (status 0); see CreateOrderSpec. */
  createOrder(spec?: CreateOrderSpec): TruthOrder
  /** Moves an order one step along its path, or on to the given status (type: which order, when ids are per type; default onramp first). */
  advanceOrder(orderId: number, toStatus?: number, type?: 1 | 2): TruthOrder
  /** Sets the mid price of a coin in a fiat (default INR); buy and sell sit a 1.5% spread either side. */
  setPrice(p: { coinId?: number; coinCode?: string; fiatType?: number; price: string | number }): PriceRow
  prices(): PriceRow[]
  /** Reports one coin's chain with its node out of sync or deposits closed (0), or recovered (1), from the next request on. */
  setChainHealth(spec: ChainHealthSpec): ChainHealthRow
  setFault(endpoint: EndpointName | '*', spec: FaultSpec): void
  clearFaults(endpoint?: EndpointName | '*'): void
  faults(): Record<string, FaultSpec>
  /** Shifts the sandbox clock against the injected one (simulates server clock skew). */
  setClockOffset(ms: number): void
  /** The sandbox clock, ms since the epoch. */
  serverNow(): number
  /** Switches some readings (the others stay); throws ReadingsError, changing nothing, when one is invalid. */
  setReadings(partial: ReadingsInput): SandboxReadings
  /** The readings in force (every paramTypes field spelled out). */
  readings(): SandboxReadings
  /** Every webhook attempt so far, oldest first. */
  listDeliveries(): DeliveryRecord[]
  /** Resolves when no webhook delivery is in flight or waiting to retry. */
  deliveriesIdle(): Promise<void>
  /** All orders with their full status histories and the exact records the API serves. */
  groundTruth(filter?: { type?: 1 | 2; fiatType?: number }): TruthOrder[]
  /** One order (type: which, when ids are per type; default onramp first). */
  order(orderId: number, type?: 1 | 2): TruthOrder | undefined
  /** One generator cycle at the sandbox clock: prices walk, maybe a new order, due orders advance. */
  tick(): TickResult
  /** n generator cycles. */
  step(n?: number): TickResult
  /** The webhook URL set for an API key (default: the sandbox's own). */
  webhookUrl(apiKey?: string): string | undefined
  startGenerator(): void
  stopGenerator(): void
}

export interface Sandbox {
  /** http://host:port */
  url: string
  host: string
  port: number
  apiKey: string
  apiSecret: string
  serviceName: string
  /** What the control API (/__sandbox/) wants in its X-Sandbox-Token header. */
  controlToken: string
  control: SandboxControl
  close(): Promise<void>
}

export async function startSandbox(opts: StartSandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1'
  const serviceName = opts.serviceName ?? DEFAULT_SERVICE_NAME
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY
  const apiSecret = opts.apiSecret ?? DEFAULT_API_SECRET
  if (!/^[A-Za-z0-9_-]+$/.test(serviceName))
    throw new Error(`invalid service name ${JSON.stringify(serviceName)}: letters, digits, - and _ only`)
  const service = new SandboxService({
    seed: opts.seed ?? 1,
    serviceName,
    apiKey,
    apiSecret,
    orders: opts.orders ?? DEFAULT_ORDERS,
    now: opts.now ?? Date.now,
    clockOffsetMs: opts.clockOffsetMs ?? 0,
    webhookTimeoutMs: opts.webhookTimeoutMs ?? 5_000,
    webhookMaxTrials: opts.webhookMaxTrials ?? 10,
    webhookBackoffMs: opts.webhookBackoffMs ?? 2_000,
    webhookBackoffMaxMs: opts.webhookBackoffMaxMs ?? 300_000,
    createChance: opts.createChance ?? 0.35,
    readings: opts.readings,
    orderIds: opts.orderIds,
    orderFiats: opts.orderFiats
  })
  for (const [target, spec] of Object.entries(opts.faults ?? {})) if (spec) service.setFault(target as FaultTarget, spec)

  let url = ''
  let hosts: ReadonlySet<string> = new Set()
  const controlToken = opts.controlToken ?? randomBytes(24).toString('base64url')
  if (!isControlToken(controlToken)) throw new Error('the control token must be 16-256 printable ASCII characters')
  const server = createSandboxServer(service, {
    serviceName,
    aheadToleranceMs: opts.timestampToleranceMs ?? DEFAULT_AHEAD_TOLERANCE_MS,
    maxAgeMs: opts.timestampWindowMs ?? DEFAULT_MAX_AGE_MS,
    url: () => url,
    control: { token: controlToken, hosts: () => hosts }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  hosts = ownHosts(host, port)

  let timer: NodeJS.Timeout | undefined
  const tickMs = opts.tickMs ?? 2_000
  const startGenerator = (): void => {
    if (timer) return
    timer = setInterval(() => {
      try {
        service.tick()
      } catch (e) {
        console.error('sandbox generator:', e)
      }
    }, tickMs)
    timer.unref()
  }
  const stopGenerator = (): void => {
    if (timer) clearInterval(timer)
    timer = undefined
  }
  if (opts.autoGenerate ?? true) startGenerator()

  const merge = (rs: TickResult[]): TickResult => ({
    created: rs.flatMap((r) => r.created),
    advanced: rs.flatMap((r) => r.advanced),
    completed: rs.flatMap((r) => r.completed)
  })

  const control: SandboxControl = {
    createOrder: (spec) => service.createOrder(spec),
    advanceOrder: (orderId, toStatus, type) => service.advanceOrder(orderId, toStatus, type),
    setPrice: (p) => service.setPrice(p),
    prices: () => service.priceRows(),
    setChainHealth: (spec) => service.chains.set(spec),
    setFault: (endpoint, spec) => service.setFault(endpoint, spec),
    clearFaults: (endpoint) => service.faults.clear(endpoint),
    faults: () => service.faults.list(),
    setClockOffset: (ms) => {
      service.clockOffsetMs = ms
    },
    serverNow: () => service.serverNow(),
    setReadings: (partial) => service.setReadings(partial),
    readings: () => service.readings,
    listDeliveries: () => service.deliveries(),
    deliveriesIdle: () => service.webhooks.idle(),
    groundTruth: (filter) => service.groundTruth(filter),
    order: (orderId, type) => {
      const row = service.store.rowOf(orderId, type)
      return row === undefined || (type !== undefined && service.store.type[row] !== type) ? undefined : service.truth(row)
    },
    tick: () => service.tick(),
    step: (n = 1) => merge(Array.from({ length: n }, () => service.tick())),
    webhookUrl: (key = apiKey) => service.webhooks.urls.get(key),
    startGenerator,
    stopGenerator
  }

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      stopGenerator()
      service.webhooks.close()
      server.close(() => resolve())
      server.closeAllConnections()
    })
    return closing
  }

  return { url, host, port, apiKey, apiSecret, serviceName, controlToken, control, close }
}

export type { CreateOrderSpec, OrderFiats, TickResult } from './order-generator'
export type { IdSequence } from './order-store'
export type { FaultSpec, FaultTarget } from './faults'
export type { TruthOrder, PriceRow } from './sandbox-service'
export type { DeliveryRecord } from './webhook-dispatcher'
export type { EndpointName } from './routes'
export type { ReadingsInput, SandboxReadings, ParamMode, TypeErrorText, WebhookPayloadForm } from './readings'
export { ReadingsError, defaultReadings } from './readings'
export { ENDPOINT_NAMES, ROUTES, routePath, headerNames } from './routes'
export { CONTROL_TOKEN_HEADER } from './admin-api'
export { CUTOVER } from './order-store'
export { PATHS } from './order-paths'

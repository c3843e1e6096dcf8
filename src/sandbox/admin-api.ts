// The control API under /__sandbox/: create and advance orders, set prices, inject
// faults, shift the clock, switch the readings, step the generator, and read the ground
// truth (with the API secret) and the webhook deliveries. It is the HTTP form of
// SandboxControl, for the CLI sandbox, the demo and out-of-process tests.
//
// It can rewrite the service, so only its operator may reach it: loopback sockets only
// (http-server.ts), the per-launch token in X-Sandbox-Token, a Host that names this
// listener (a DNS-rebinding page sends its own name), no Origin header at all (browsers
// send one on every cross-origin call, and no tool of ours does), and JSON bodies only
// under a JSON content type (an HTML form cannot send one without a CORS preflight).
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SandboxError } from './errors'
import type { FaultSpec, FaultTarget } from './faults'
import type { CreateOrderSpec } from './order-generator'
import { ReadingsError } from './readings'
import { ENDPOINT_NAMES, isEndpointName } from './routes'
import type { SandboxService } from './sandbox-service'

/** The header that carries the control token (printed at start, `Sandbox.controlToken`). */
export const CONTROL_TOKEN_HEADER = 'x-sandbox-token'

interface AdminCtx {
  url: string
  send(res: ServerResponse, status: number, body: unknown): void
}

export interface ControlGuard {
  token: string
  /** The Host header values that name this listener (host:port). */
  hosts(): ReadonlySet<string>
}

/** The Host values a listener bound to `host` on `port` answers to: its own name, and for loopback or every interface, the loopback names. */
export function ownHosts(host: string, port: number): Set<string> {
  const bare = host.replace(/^\[|\]$/g, '')
  const named = (h: string): string => `${h.includes(':') ? `[${h}]` : h}:${port}`
  const out = new Set([named(bare)])
  const wildcard = bare === '0.0.0.0' || bare === '::'
  if (wildcard || bare.startsWith('127.') || bare === 'localhost') out.add(named('localhost')).add(named('127.0.0.1'))
  if (wildcard || bare === '::1' || bare === 'localhost') out.add(named('localhost')).add(named('::1'))
  return out
}

/** A token a header can carry and nobody guesses: 16-256 printable ASCII characters. */
export const isControlToken = (t: string): boolean => /^[\x21-\x7e]{16,256}$/.test(t)

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Why a request may not use the control API (status and reason), or null when it may. */
export function refuseControlRequest(req: IncomingMessage, guard: ControlGuard): { status: number; error: string } | null {
  const host = (req.headers.host ?? '').toLowerCase()
  if (!guard.hosts().has(host))
    return { status: 403, error: `the control API answers only to its own host names, not ${JSON.stringify(host)}` }
  if (req.headers.origin !== undefined) return { status: 403, error: 'the control API refuses requests from web pages (an Origin header)' }
  const given = req.headers[CONTROL_TOKEN_HEADER]
  if (typeof given !== 'string' || !sameToken(given, guard.token))
    return {
      status: 401,
      error: `the control API needs the ${CONTROL_TOKEN_HEADER} header with the control token the sandbox printed at start`
    }
  return null
}

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return {}
  if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
    throw new SandboxError(415, 'the control API reads a body only as JSON: send it with Content-Type: application/json')
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new SandboxError(400, 'malformed JSON body')
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new SandboxError(400, 'the body must be a JSON object')
  return v as Record<string, unknown>
}

export function faultTarget(v: unknown): FaultTarget {
  if (v === undefined || v === '*') return '*'
  if (isEndpointName(v)) return v
  throw new SandboxError(400, `unknown endpoint ${JSON.stringify(v)}: use "*" or one of ${ENDPOINT_NAMES.join(', ')}`)
}

const FAULT_KEYS = [
  'latencyMs',
  'errorRate',
  'errorStatus',
  'rateLimitStorm',
  'malformedJsonRate',
  'truncateRate',
  'dropRate',
  'remaining'
] as const

export function faultSpec(b: Record<string, unknown>): FaultSpec {
  const spec: Record<string, unknown> = {}
  for (const k of FAULT_KEYS) {
    const v = b[k]
    if (v === undefined) continue
    if (k === 'rateLimitStorm' ? typeof v !== 'boolean' : typeof v !== 'number' || !Number.isFinite(v))
      throw new SandboxError(400, `${k} must be a ${k === 'rateLimitStorm' ? 'boolean' : 'number'}`)
    spec[k] = v
  }
  return spec as FaultSpec
}

const num = (v: unknown, what: string): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new SandboxError(400, `${what} must be a number`)
  return n
}

/** Which order an id names when ids are per type: ?type=1|2 (or the body's type); none: onramp first. */
const orderType = (v: string | null): 1 | 2 | undefined => {
  if (v === null) return undefined
  if (v === '1' || v === '2') return Number(v) as 1 | 2
  throw new SandboxError(400, 'type must be 1 (onramp) or 2 (offramp)')
}

export async function handleAdmin(
  service: SandboxService,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: AdminCtx
): Promise<void> {
  const method = req.method ?? 'GET'
  const parts = url.pathname.split('/').filter(Boolean).slice(1)
  const route = `${method} /${parts.map((p) => (/^\d+$/.test(p) ? ':id' : p)).join('/')}`
  const id = parts.find((p) => /^\d+$/.test(p))
  const q = url.searchParams
  const reply = (body: unknown, status = 200): void => ctx.send(res, status, body)
  try {
    switch (route) {
      case 'GET /info':
      case 'GET /':
        return reply({
          url: ctx.url,
          serviceName: service.o.serviceName,
          apiKey: service.o.apiKey,
          apiSecret: service.o.apiSecret,
          serverNow: new Date(service.serverNow()).toISOString(),
          clockOffsetMs: service.clockOffsetMs,
          orders: service.store.size,
          faults: service.faults.list(),
          readings: service.readings
        })
      case 'GET /readings':
        return reply(service.readings)
      case 'PUT /readings':
        try {
          return reply(service.setReadings(await jsonBody(req)))
        } catch (e) {
          if (e instanceof ReadingsError) throw new SandboxError(400, e.message)
          throw e
        }
      case 'GET /truth': {
        const type = q.get('type')
        const fiat = q.get('fiatType')
        const all = service.groundTruth({
          type: type ? (num(type, 'type') as 1 | 2) : undefined,
          fiatType: fiat ? num(fiat, 'fiatType') : undefined
        })
        const limit = q.get('limit')
        return reply({ count: all.length, orders: limit ? all.slice(0, num(limit, 'limit')) : all })
      }
      case 'GET /orders/:id':
        return reply(service.truth(service.rowOrThrow(Number(id), orderType(q.get('type')))))
      case 'POST /orders':
        return reply(service.createOrder((await jsonBody(req)) as CreateOrderSpec), 201)
      case 'POST /orders/:id/advance': {
        const b = await jsonBody(req)
        return reply(
          service.advanceOrder(
            Number(id),
            b.status === undefined ? undefined : num(b.status, 'status'),
            orderType(b.type === undefined ? null : String(b.type))
          )
        )
      }
      case 'GET /prices':
        return reply({ prices: service.priceRows() })
      case 'POST /prices': {
        const b = await jsonBody(req)
        return reply(
          service.setPrice({
            coinId: b.coinId === undefined ? undefined : num(b.coinId, 'coinId'),
            coinCode: typeof b.coinCode === 'string' ? b.coinCode : undefined,
            fiatType: b.fiatType === undefined ? undefined : num(b.fiatType, 'fiatType'),
            price:
              typeof b.price === 'string' || typeof b.price === 'number'
                ? b.price
                : (() => {
                    throw new SandboxError(400, 'price is required')
                  })()
          })
        )
      }
      case 'GET /chains':
        return reply({ chains: service.chains.list() })
      case 'POST /chains': {
        const b = await jsonBody(req)
        const flag = (v: unknown, name: string): 0 | 1 | undefined => {
          if (v === undefined) return undefined
          if (v === 0 || v === 1) return v
          throw new SandboxError(400, `${name} must be 0 or 1`)
        }
        return reply(
          service.chains.set({
            coinId: b.coinId === undefined ? undefined : num(b.coinId, 'coinId'),
            coinCode: typeof b.coinCode === 'string' ? b.coinCode : undefined,
            chainId: num(b.chainId, 'chainId'),
            nodeInSync: flag(b.nodeInSync, 'nodeInSync'),
            depositEnable: flag(b.depositEnable, 'depositEnable')
          })
        )
      }
      case 'GET /faults':
        return reply({ faults: service.faults.list() })
      case 'POST /faults': {
        const b = await jsonBody(req)
        service.setFault(faultTarget(b.endpoint), faultSpec(b))
        return reply({ faults: service.faults.list() })
      }
      case 'DELETE /faults':
        service.faults.clear(q.get('endpoint') ? faultTarget(q.get('endpoint')) : undefined)
        return reply({ faults: service.faults.list() })
      case 'POST /clock': {
        const b = await jsonBody(req)
        service.clockOffsetMs = num(b.offsetMs, 'offsetMs')
        return reply({ clockOffsetMs: service.clockOffsetMs, serverNow: new Date(service.serverNow()).toISOString() })
      }
      case 'POST /tick': {
        const b = await jsonBody(req)
        const count = b.count === undefined ? 1 : num(b.count, 'count')
        const out = { created: [] as number[], advanced: [] as number[], completed: [] as number[] }
        for (let i = 0; i < count; i++) {
          const r = service.tick()
          out.created.push(...r.created)
          out.advanced.push(...r.advanced)
          out.completed.push(...r.completed)
        }
        return reply(out)
      }
      case 'GET /deliveries':
        return reply({ deliveries: service.deliveries() })
      default:
        return reply({ error: `no control route ${route}` }, 404)
    }
  } catch (e) {
    if (e instanceof SandboxError) return reply({ error: e.message }, e.code === 417 ? 404 : e.code)
    throw e
  }
}

// The control API under /__sandbox/ (loopback only; http-server.ts checks the socket):
// create and advance orders, set prices, inject faults, shift the clock, switch the
// readings, step the generator, and read the ground truth and the webhook deliveries.
// It is the HTTP form of SandboxControl, for the CLI sandbox, the demo and
// out-of-process tests.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SandboxError } from './errors'
import type { FaultSpec, FaultTarget } from './faults'
import type { CreateOrderSpec } from './order-generator'
import { ReadingsError } from './readings'
import { ENDPOINT_NAMES, isEndpointName } from './routes'
import type { SandboxService } from './sandbox-service'

interface AdminCtx {
  url: string
  send(res: ServerResponse, status: number, body: unknown): void
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return {}
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
        return reply(service.truth(service.rowOrThrow(Number(id))))
      case 'POST /orders':
        return reply(service.createOrder((await jsonBody(req)) as CreateOrderSpec), 201)
      case 'POST /orders/:id/advance': {
        const b = await jsonBody(req)
        return reply(service.advanceOrder(Number(id), b.status === undefined ? undefined : num(b.status, 'status')))
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

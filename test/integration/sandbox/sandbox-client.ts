// A small raw client for the sandbox tests: signs requests as spec section 5 says, with
// node:crypto written out here (neither the client's signing module nor the sandbox's),
// and returns status, headers and parsed body, so tests can also send deliberately
// broken requests or sign the JSON text another client would have written.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request, type Dispatcher } from 'undici'
import { ROUTES, headerNames, routePath, type EndpointName, type Sandbox } from '../../../src/sandbox'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: unknown
}

export interface CallOptions {
  body?: unknown
  /** Override the payload body (to make it differ from the request body). */
  payloadBody?: unknown
  /** Sign this exact JSON text instead of JSON.stringify({timestamp, body}). */
  payloadText?: string
  timestamp?: number
  apiKey?: string
  apiSecret?: string
  /** Replace or drop (undefined) headers after signing. */
  headers?: Record<string, string | undefined>
  method?: string
  rawBody?: string
}

/** Lowercase hex HMAC-SHA512 of the text, keyed with the secret. */
export const hmacHex = (text: string, secret: string): string => createHmac('sha512', secret).update(text, 'utf8').digest('hex')

/** base64 of the JSON text {timestamp, body}. */
export const payloadOf = (timestamp: number, body: unknown): string =>
  Buffer.from(JSON.stringify({ timestamp, body }), 'utf8').toString('base64')

/** Status, headers, body text and the body as JSON (undefined when it is not JSON). */
async function readResponse(res: Dispatcher.ResponseData): Promise<RawResponse> {
  const text = await res.body.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: res.headers, text, json }
}

export async function raw(sb: Sandbox, path: string, o: CallOptions = {}): Promise<RawResponse> {
  const res = await request(sb.url + path, {
    method: (o.method ?? 'POST') as 'POST',
    headers: o.headers as Record<string, string>,
    body: o.rawBody
  })
  return readResponse(res)
}

/** Calls an endpoint, signed unless it is public. */
export async function call(sb: Sandbox, name: EndpointName, o: CallOptions = {}): Promise<RawResponse> {
  const route = ROUTES[name]
  const method = o.method ?? route.method
  const headers: Record<string, string> = { accept: 'application/json' }
  let rawBody: string | undefined = o.rawBody
  if (route.signed) {
    const body = o.body ?? {}
    const names = headerNames(sb.serviceName)
    const timestamp = o.timestamp ?? sb.control.serverNow()
    const payload =
      o.payloadText !== undefined ? Buffer.from(o.payloadText, 'utf8').toString('base64') : payloadOf(timestamp, o.payloadBody ?? body)
    headers['content-type'] = 'application/json;charset=UTF-8'
    headers[names.apiKey] = o.apiKey ?? sb.apiKey
    headers[names.payload] = payload
    headers[names.signature] = hmacHex(payload, o.apiSecret ?? sb.apiSecret)
    rawBody ??= JSON.stringify(body)
  }
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    const key = Object.keys(headers).find((h) => h.toLowerCase() === k.toLowerCase()) ?? k
    if (v === undefined) delete headers[key]
    else headers[key] = v
  }
  const res = await request(sb.url + routePath(sb.serviceName, name), {
    method: method as 'POST',
    headers,
    body: method === 'GET' ? undefined : rawBody
  })
  return readResponse(res)
}

/** Calls an endpoint and returns data, failing loudly on anything but status 1. */
export async function data<T = unknown>(sb: Sandbox, name: EndpointName, body?: unknown): Promise<T> {
  const r = await call(sb, name, { body })
  const j = r.json as { status?: number; data?: T; error?: string }
  if (r.status !== 200 || j?.status !== 1) throw new Error(`${name} answered ${r.status}: ${r.text.slice(0, 300)}`)
  return j.data as T
}

/** The answer's error text, failing loudly unless it is the error envelope with this code. */
export function errorOf(r: RawResponse, code: number): string {
  if (r.status !== code) throw new Error(`expected HTTP ${code}, got ${r.status}: ${r.text.slice(0, 300)}`)
  const j = r.json as { status?: unknown; code?: unknown; error?: unknown }
  if (j?.status !== 0 || j.code !== code || typeof j.error !== 'string') throw new Error(`not the error envelope: ${r.text.slice(0, 300)}`)
  return j.error
}

/** Every page of merchantHistory for a body, in order, until a short page. */
export async function allPages<T = unknown>(sb: Sandbox, body: Record<string, unknown>, pageSize: number): Promise<T[]> {
  const out: T[] = []
  for (let page = 1; ; page++) {
    const d = await data<T[]>(sb, 'merchantHistory', { ...body, page, pageSize })
    out.push(...d)
    if (d.length < pageSize) return out
  }
}

/** A webhook receiver on loopback: hands each request's headers and body text to onRequest, which answers. */
export async function startReceiver(
  onRequest: (headers: IncomingHttpHeaders, text: string, res: ServerResponse) => void
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => onRequest(req.headers, Buffer.concat(chunks).toString('utf8'), res))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}

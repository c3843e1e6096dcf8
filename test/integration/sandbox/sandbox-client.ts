// A small raw client for the sandbox tests: signs requests exactly as spec section 5
// says (with src/shared/api/signature.ts) and returns status, headers and parsed body,
// so tests can also send deliberately broken requests.
import { request, type Dispatcher } from 'undici'
import { authHeaderNames, endpointPath, endpoints, type EndpointName } from '../../../src/shared/api/endpoints'
import { encodePayload, signPayload } from '../../../src/shared/api/signature'
import type { Sandbox } from '../../../src/sandbox'

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
  timestamp?: number
  apiKey?: string
  apiSecret?: string
  /** Replace or drop (undefined) headers after signing. */
  headers?: Record<string, string | undefined>
  method?: string
  rawBody?: string
}

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
  const ep = endpoints[name]
  const method = o.method ?? ep.method
  const headers: Record<string, string> = { accept: 'application/json' }
  let rawBody: string | undefined = o.rawBody
  if (ep.method === 'POST') {
    const body = o.body ?? {}
    const names = authHeaderNames(sb.serviceName)
    const payload = encodePayload(o.timestamp ?? sb.control.serverNow(), o.payloadBody ?? body)
    headers['content-type'] = 'application/json;charset=UTF-8'
    headers[names.apiKey] = o.apiKey ?? sb.apiKey
    headers[names.payload] = payload
    headers[names.signature] = signPayload(payload, o.apiSecret ?? sb.apiSecret)
    rawBody ??= JSON.stringify(body)
  }
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    const key = Object.keys(headers).find((h) => h.toLowerCase() === k.toLowerCase()) ?? k
    if (v === undefined) delete headers[key]
    else headers[key] = v
  }
  const res = await request(sb.url + endpointPath(sb.serviceName, name), {
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

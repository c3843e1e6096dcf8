// The optional local webhook inbox: a small node:http receiver the service (or the
// sandbox) POSTs order webhooks to. Every POST is stored in the profile's delivery log,
// verified or not, with the reason; only deliveries whose signature verifies over the
// payload header AND whose payload body equals the JSON body are handed on (to the
// monitor's fast path). Loopback only unless the operator asks otherwise, and then
// with a warning the UI shows. Every request is answered within 5 s: the service
// counts a slower answer as a failed delivery and retries it.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodePayload, jsonEqual, verifySignature } from '../../shared/api/signature'
import { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { WebhookDelivery as ContractDelivery, OrderType } from '../../shared/ipc/contract'
import { contentHash } from '../store/content-hash'
import type { WebhookDeliveriesRepo, WebhookDeliveryInput, WebhookDelivery as StoredDelivery } from '../store/webhook-deliveries-repo'

export const MAX_BODY_BYTES = 1024 * 1024
/** Headers and body must both have arrived by then; the rest of the 5 s is for answering. */
export const DEFAULT_RECEIVE_TIMEOUT_MS = 4_000
/** Stored text of a body refused for its size: enough to recognise it, not a megabyte of junk per request. */
const STORED_BODY_LIMIT = 4096

export type WebhookRecord = { type: 1; record: OnrampOrder } | { type: 2; record: OfframpOrder }

export interface InboxOptions {
  /** The service name of the profile: the middle word of x-<service>-payload / -signature. Default 'service'. */
  serviceName?: string
  /** Default 127.0.0.1. Anything not loopback starts anyway, with a warning in the result. */
  host?: string
  /** Default 0: a random free port. */
  port?: number
  /** The profile's API secret, asked for each delivery; never logged, never stored. Null when none is set. */
  getSecret: () => Promise<string | null | undefined> | string | null | undefined
  deliveries: Pick<WebhookDeliveriesRepo, 'insert'>
  /** Verified order records only (the monitor's fast path). Errors it throws are reported to onError, not to the sender. */
  onVerified?: (webhook: WebhookRecord, delivery: ContractDelivery) => unknown
  /** Every stored delivery, verified or not (the 'webhook:delivery' event). */
  onDelivery?: (delivery: ContractDelivery) => void
  onError?: (error: unknown) => void
  maxBodyBytes?: number
  /** Headers plus body must arrive within this (408 otherwise). Default 4000 ms. */
  receiveTimeoutMs?: number
  now?: () => number
}

export interface RunningInbox {
  /** Where to point setWebhookUrl, e.g. http://127.0.0.1:43121/webhook */
  url: string
  host: string
  port: number
  /** Non-null when bound beyond loopback: say so to the operator. */
  warning: string | null
  close(): Promise<void>
}

/** What happened to one request, before it is stored and answered. */
interface Verdict {
  httpStatus: number
  verified: boolean
  reason: string
  payloadHeader: string | null
  body: string
  webhook?: WebhookRecord
  /** Order fields for the log, also when unverified (they are then only what the sender claimed). */
  claimed?: { type: OrderType | null; orderId: number | null; status: number | null; updatedAt: string | null }
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1'])

export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
  return LOOPBACK.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

export function bindWarning(host: string): string | null {
  if (isLoopbackHost(host)) return null
  return `The webhook inbox listens on ${host}, beyond this computer: other machines on the network can reach it. Deliveries are still verified with the API secret, but prefer 127.0.0.1 behind a tunnel or reverse proxy you control.`
}

/** Starts the receiver; resolves once it listens. */
export async function startInbox(opts: InboxOptions): Promise<RunningInbox> {
  const host = opts.host?.trim() || '127.0.0.1'
  const port = opts.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`inbox port must be 0..65535, got ${port}`)
  const receiveTimeoutMs = opts.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS
  const server = createServer({
    // Slow senders: Node answers 408 itself when headers (or the whole request) are late.
    headersTimeout: receiveTimeoutMs,
    requestTimeout: receiveTimeoutMs + 250,
    connectionsCheckingInterval: 250,
    keepAliveTimeout: 2_000,
    // The payload header is base64 of the whole body: a body near the 1 MiB cap needs a
    // header near 1.4 MiB, far beyond Node's default 16 KiB.
    maxHeaderSize: Math.ceil(((opts.maxBodyBytes ?? MAX_BODY_BYTES) * 4) / 3) + 64 * 1024
  })
  server.on('request', inboxRequestListener(opts))
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e)
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  const addr = server.address() as AddressInfo
  const urlHost = addr.family === 'IPv6' || host.includes(':') ? `[${addr.address}]` : host
  return {
    url: `http://${urlHost}:${addr.port}/webhook`,
    host,
    port: addr.port,
    warning: bindWarning(host),
    close: () => closeServer(server)
  }
}

/**
 * The receiver's request handling on its own, for a server that serves more than the
 * inbox (the team hub's POST /webhook): read, verify, store, answer, hand on. The server
 * should set the header size and timeouts startInbox sets.
 */
export function inboxRequestListener(opts: InboxOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const receiveTimeoutMs = opts.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS
  return (req, res) => {
    handle(req, res, opts, receiveTimeoutMs).catch((e) => {
      opts.onError?.(e)
      if (!res.headersSent) respond(res, 500, 'internal error')
    })
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

function respond(res: ServerResponse, status: number, reason: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) return
  const text = JSON.stringify({ ok: status >= 200 && status < 300, reason })
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...extra })
  res.end(text)
}

async function handle(req: IncomingMessage, res: ServerResponse, o: InboxOptions, receiveTimeoutMs: number): Promise<void> {
  if (req.method !== 'POST') {
    req.resume()
    respond(res, 405, 'only POST is accepted', { allow: 'POST' })
    return
  }
  const startedAt = Date.now()
  const receivedAt = (o.now ?? Date.now)()
  const serviceName = (o.serviceName ?? 'service').toLowerCase()
  const maxBytes = o.maxBodyBytes ?? MAX_BODY_BYTES
  const read = await readBody(req, maxBytes, receiveTimeoutMs)
  const headers = keptHeaders(req, serviceName)
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  let verdict: Verdict
  if (read.kind === 'ok') {
    verdict = await judge(req, read.text, serviceName, o, startedAt + receiveTimeoutMs + 500 - Date.now())
  } else {
    const refusal = {
      too_large: { httpStatus: 413, reason: `body larger than ${maxBytes} bytes: refused unread` },
      timeout: { httpStatus: 408, reason: `body not received within ${receiveTimeoutMs} ms` },
      aborted: { httpStatus: 400, reason: 'the sender closed the connection before the body was complete' }
    }[read.kind]
    verdict = { ...refusal, verified: false, payloadHeader, body: read.head.slice(0, STORED_BODY_LIMIT) }
  }

  const dedupeKey = dedupeKeyOf(verdict)
  const input: WebhookDeliveryInput = {
    receivedAt: new Date(receivedAt).toISOString(),
    headers,
    payloadHeader: verdict.payloadHeader,
    body: verdict.body,
    verified: verdict.verified,
    reason: verdict.reason,
    orderType: verdict.claimed?.type ?? null,
    orderId: verdict.claimed?.orderId ?? null,
    orderStatus: verdict.claimed?.status ?? null,
    dedupeKey
  }
  let stored: { id: number; inserted: boolean }
  try {
    stored = o.deliveries.insert(input)
  } catch (e) {
    // Not stored means not handled: let the sender retry.
    o.onError?.(e)
    respond(res, 500, 'could not store the delivery', { connection: 'close' })
    return
  }
  const duplicate = !stored.inserted
  const reason = duplicate && verdict.verified ? `${verdict.reason} (duplicate: already received)` : verdict.reason
  // A duplicate of a verified delivery is answered 200 so the sender stops retrying.
  const status = duplicate && verdict.verified ? 200 : verdict.httpStatus
  respond(res, status, reason, status === 413 || status === 408 ? { connection: 'close' } : {})
  if (status === 413 || status === 408) res.once('finish', () => req.socket.destroy())

  const delivery: ContractDelivery = {
    id: stored.id,
    receivedAt,
    source: headers[':remote'] ?? 'unknown',
    verified: verdict.verified,
    reason,
    orderId: verdict.claimed?.orderId ?? null,
    orderType: verdict.claimed?.type ?? null,
    status: verdict.claimed?.status ?? null,
    duplicate,
    payload: verdict.payloadHeader ?? '',
    body: verdict.body
  }
  try {
    o.onDelivery?.(delivery)
  } catch (e) {
    o.onError?.(e)
  }
  if (verdict.verified && verdict.webhook && !duplicate && o.onVerified) {
    try {
      await o.onVerified(verdict.webhook, delivery)
    } catch (e) {
      o.onError?.(e)
    }
  }
}

type BodyRead = { kind: 'ok'; text: string } | { kind: 'too_large' | 'timeout' | 'aborted'; head: string }

/** Reads the body up to maxBytes; stops reading (and refuses) as soon as it is known to be larger. */
function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.pause()
      resolve({ kind: 'too_large', head: '' })
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (r: BodyRead) => {
      if (done) return
      done = true
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('aborted', onAborted)
      req.off('error', onAborted)
      if (r.kind !== 'ok') req.pause()
      resolve(r)
    }
    const head = () => Buffer.concat(chunks).subarray(0, STORED_BODY_LIMIT).toString('utf8')
    const onData = (c: Buffer) => {
      size += c.length
      if (size > maxBytes) return finish({ kind: 'too_large', head: head() })
      chunks.push(c)
    }
    const onEnd = () => finish({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') })
    const onAborted = () => finish({ kind: 'aborted', head: head() })
    const timer = setTimeout(() => finish({ kind: 'timeout', head: head() }), timeoutMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('aborted', onAborted)
    req.on('error', onAborted)
  })
}

async function judge(req: IncomingMessage, text: string, serviceName: string, o: InboxOptions, secretBudgetMs: number): Promise<Verdict> {
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  const signature = headerValue(req, `x-${serviceName}-signature`)
  const base = { payloadHeader, body: text, verified: false as const }

  const contentType = (req.headers['content-type'] ?? '').toLowerCase()
  if (contentType && !/^application\/([a-z0-9.+-]+\+)?json\b/.test(contentType)) {
    return { ...base, httpStatus: 415, reason: `content type ${contentType.slice(0, 100)} is not JSON` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ...base, httpStatus: 400, reason: 'the body is not JSON' }
  }
  const claimed = claimedOrder(json)
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ...base, claimed, httpStatus: 400, reason: 'the body is not a JSON object' }
  }
  if (payloadHeader === null) return { ...base, claimed, httpStatus: 401, reason: `missing header x-${serviceName}-payload` }
  if (signature === null) return { ...base, claimed, httpStatus: 401, reason: `missing header x-${serviceName}-signature` }

  let secret: string | null | undefined
  try {
    secret = await withDeadline(Promise.resolve(o.getSecret()), Math.max(100, secretBudgetMs))
  } catch {
    return { ...base, claimed, httpStatus: 503, reason: 'the API secret could not be read in time; the sender will retry' }
  }
  if (!secret) return { ...base, claimed, httpStatus: 503, reason: 'no API secret is stored for this profile: cannot verify' }
  if (!verifySignature(payloadHeader, signature, secret)) {
    return { ...base, claimed, httpStatus: 401, reason: "signature does not match the payload under this profile's secret" }
  }
  let decoded: unknown
  try {
    decoded = decodePayload(payloadHeader).body
  } catch (e) {
    return { ...base, claimed, httpStatus: 400, reason: `signed payload is malformed: ${(e as Error).message}` }
  }
  if (!jsonEqual(decoded, json)) {
    return { ...base, claimed, httpStatus: 400, reason: 'the signed payload body does not equal the JSON body' }
  }
  const webhook = parseRecord(json as Record<string, unknown>)
  if (!webhook.ok) {
    // Authentic, but not an order we understand: stored for the operator, acknowledged so it is not retried.
    return {
      payloadHeader,
      body: text,
      verified: true,
      claimed,
      httpStatus: 200,
      reason: `verified, but not an order record: ${webhook.error}`
    }
  }
  const r = webhook.value.record
  return {
    payloadHeader,
    body: text,
    verified: true,
    httpStatus: 200,
    reason: 'verified',
    webhook: webhook.value,
    claimed: { type: webhook.value.type, orderId: r.orderId, status: r.status, updatedAt: r.updatedAt }
  }
}

/** Offramp bodies carry eventType 'offramp' (live-service-notes.md, Webhooks); everything else is an onramp record. */
export function parseRecord(body: Record<string, unknown>): { ok: true; value: WebhookRecord } | { ok: false; error: string } {
  if (body.eventType === 'offramp') {
    const r = OfframpOrder.safeParse(body)
    return r.success ? { ok: true, value: { type: 2, record: r.data } } : { ok: false, error: issue(r.error) }
  }
  const r = OnrampOrder.safeParse(body)
  return r.success ? { ok: true, value: { type: 1, record: r.data } } : { ok: false, error: issue(r.error) }
}

function issue(e: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const i = e.issues[0]
  return i ? `${i.path.map(String).join('.') || 'body'}: ${i.message}` : 'invalid'
}

/** What the body says about its order, for the log only (never trusted when unverified). */
function claimedOrder(json: unknown): Verdict['claimed'] {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined
  const o = json as Record<string, unknown>
  const int = (v: unknown): number | null => {
    const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v
    return typeof n === 'number' && Number.isSafeInteger(n) ? n : null
  }
  return {
    type: o.eventType === 'offramp' ? 2 : 1,
    orderId: int(o.orderId),
    status: int(o.status),
    updatedAt: typeof o.updatedAt === 'string' ? o.updatedAt : null
  }
}

/** Fields the service changes from one delivery attempt to the next (it counts them). */
const DELIVERY_COUNTERS = new Set(['webhookTrials', 'trials'])

/**
 * Retries of one verified delivery collapse to one row: the same order, status and
 * updatedAt with the same content. The hash leaves out the attempt counters and the
 * payload's timestamp, both of which a retry renews, so a retry is recognised even when it
 * is signed afresh. Unverified deliveries get their own key space, so a forged copy can
 * never be counted as (or suppress) a verified one.
 */
function dedupeKeyOf(v: Verdict): string {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex')
  if (v.verified && v.claimed && v.webhook) {
    const c = v.claimed
    const body = JSON.parse(v.body) as Record<string, unknown>
    const content = Object.fromEntries(Object.entries(body).filter(([k]) => !DELIVERY_COUNTERS.has(k)))
    return `v1:${c.type}:${c.orderId}:${c.status}:${c.updatedAt}:${contentHash(content)}`
  }
  if (v.verified) return `v1:other:${sha(v.body)}`
  return `unverified:${v.httpStatus}:${sha(`${v.reason}\n${v.payloadHeader ?? ''}\n${v.body}`)}`
}

function headerValue(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name]
  const s = Array.isArray(v) ? v[0] : v
  return s === undefined || s === '' ? null : s
}

/** Headers worth keeping in the log; the sender's address under the pseudo-header ':remote'. */
function keptHeaders(req: IncomingMessage, serviceName: string): Record<string, string> {
  const keep = ['content-type', 'content-length', 'user-agent', `x-${serviceName}-signature`]
  const out: Record<string, string> = {}
  for (const k of keep) {
    const v = req.headers[k]
    if (typeof v === 'string') out[k] = v.slice(0, 1024)
  }
  out[':remote'] = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`
  return out
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('deadline')), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(t)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    )
  })
}

/** A stored delivery in the contract's shape (webhooks:deliveries). */
export function toContractDelivery(d: StoredDelivery): ContractDelivery {
  return {
    id: d.id,
    receivedAt: Date.parse(d.receivedAt),
    source: d.headers[':remote'] ?? 'inbox',
    verified: d.verified,
    reason: d.timesReceived > 1 ? `${d.reason ?? ''} (received ${d.timesReceived} times)`.trim() : (d.reason ?? ''),
    orderId: d.orderId,
    orderType: d.orderType,
    status: d.orderStatus,
    duplicate: d.timesReceived > 1,
    payload: d.payloadHeader ?? '',
    body: d.body
  }
}

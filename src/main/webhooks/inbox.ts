// The optional local webhook inbox: a small node:http receiver the service (or the
// sandbox) POSTs order webhooks to. Every POST is stored in the profile's delivery log,
// verified or not, with the reason; only verified order records are handed on (to the
// monitor's fast path). Loopback only unless the operator asks otherwise, and then with a
// warning the UI shows. Every request is answered within 5 s: the service counts a
// slower answer as a failed delivery and retries it.
//
// Tolerant like the service (the live-service notes, Webhooks and the last section):
// the HMAC-SHA512 is checked over the x-<service>-payload header value exactly as
// received, in constant time, and only then is anything read. Senders write the signed
// payload differently (compact, Python's spaced default, PHP's '\/', or the body alone),
// so the payload is not required to be {timestamp, body} nor its body to equal the JSON
// body; the log records which form arrived (payload-form.ts). Where the order comes from:
//   - the signed payload, whenever it carries an order record (the wrapper's body, or the
//     body-only object). The signature vouches for the payload, not for the JSON body,
//     so when the two differ the payload wins and the log says so;
//   - the JSON body, only when the payload does not decode to a JSON object at all
//     ('not base64 JSON'): the sender signed something we cannot read, and the JSON
//     body is all there is. The log notes that the signature did not cover it;
//   - nowhere, when the payload decodes to an object that is not an order: the JSON body
//     is then NOT used even if it holds an order. The merchant's own API requests are
//     signed with the same secret ({timestamp, body: request parameters}); one captured
//     from the wire must not turn into a webhook with a body of the captor's choosing.
// A body that is no whole order record (the live notes call its updatedAt internal and
// due to go) but names an order and a status is handed on as that status alone, which
// the monitor applies only to an order not yet finished.
//
// Replays (replay-guard.ts): a verified payload with a timestamp more than 5 min from the
// service's clock is refused (401), and an exact repeat of a payload already accepted
// inside the window is refused (403); both are logged as replays. A payload without a
// timestamp (the body-only form, or one we cannot decode) cannot be dated: it is accepted
// as verified with the note "no timestamp: replay window not applied". Refusing it would
// refuse every delivery of a sender that signs that way, while the live notes say such
// senders exist and the service answers them; and replaying one gains little: the inbox
// applies each delivery once (dedupe key), the monitor never moves an order back to an
// older updatedAt, and the next history sync corrects anything from the service's truth.
// Nor is the exact-repeat cache applied to them: with no timestamp, the service's own
// retry of an unchanged body is byte-identical, and refusing it would fail the delivery.
//
// Under abuse (issue 11, item 5), cheapest refusal first: a source over its socket cap is
// answered 503 at connect; over its request rate, 429; a request carrying an Origin (or
// Sec-Fetch-Site) header comes from a web page in a browser, never from the service, and
// is refused 403 before its body is read. None of these is stored (a flood must not turn
// into database writes); they are counted for the Webhooks view. Deliveries that fail
// verification are stored as the first 2 KiB of the body plus its SHA-256 and length,
// never the whole body, and the 'webhook:delivery' event carries no more than the row.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { jsonEqual, verifySignature } from '../../shared/api/signature'
import { Int, OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { WebhookDelivery as ContractDelivery, OrderType } from '../../shared/ipc/contract'
import type { OrderMonitor } from '../monitor/order-monitor'
import { contentHash } from '../store/content-hash'
import type { WebhookDeliveriesRepo, WebhookDeliveryInput, WebhookDelivery as StoredDelivery } from '../store/webhook-deliveries-repo'
import { readPayload, type ReadPayload } from './payload-form'
import { REPLAY_WINDOW_MS, ReplayGuard } from './replay-guard'
import { SourceLimits, sourceOf, type SourceLimitsOptions } from './source-limits'
import { isLoopbackHost as sharedIsLoopback } from '../../shared/loopback'

export const MAX_BODY_BYTES = 1024 * 1024
/** Headers and body must both have arrived by then; the rest of the 5 s is for answering. */
export const DEFAULT_RECEIVE_TIMEOUT_MS = 4_000
/**
 * What is kept of a delivery that did not verify (and of its payload header): enough to
 * recognise it, never a megabyte of junk per request. Its SHA-256 and length are kept too.
 */
export const UNVERIFIED_HEAD_BYTES = 2048
/** Connections the inbox holds at once from all sources together (Node drops the rest). */
const MAX_CONNECTIONS = 512

export type WebhookRecord =
  | { type: 1; record: OnrampOrder }
  | { type: 2; record: OfframpOrder }
  /** A body that is no full record (e.g. without updatedAt): its order and status only. */
  | { type: OrderType; record: { orderId: number; status: number }; statusOnly: true }

/** Hands a verified webhook to the monitor's fast path: the whole record, or its status alone. */
export function ingestInto(monitor: Pick<OrderMonitor, 'ingestWebhook' | 'ingestWebhookStatus'>, w: WebhookRecord): string {
  if ('statusOnly' in w) return monitor.ingestWebhookStatus(w.type, w.record.orderId, w.record.status)
  return w.type === 1 ? monitor.ingestWebhook(1, w.record) : monitor.ingestWebhook(2, w.record)
}

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
  /** Every stored delivery, verified or not (the 'webhook:delivery' event), with the request it came in (the team hub relays its headers). */
  onDelivery?: (delivery: ContractDelivery, req: IncomingMessage) => void
  onError?: (error: unknown) => void
  maxBodyBytes?: number
  /** Headers plus body must arrive within this (408 otherwise). Default 4000 ms. */
  receiveTimeoutMs?: number
  /** The local clock, for receivedAt. */
  now?: () => number
  /**
   * The service's clock, skew-corrected (the profile's ApiClient clock): what payload
   * timestamps are checked against. Default: the local clock.
   */
  serviceNow?: () => number
  /** How far a payload's timestamp may be from serviceNow(), either way. Default 5 min. */
  replayWindowMs?: number
  /** Request rate and open sockets per source address (defaults in source-limits.ts). */
  limits?: SourceLimitsOptions
}

/** Requests refused before they were read, and so not in the delivery log. */
export interface InboxRefusals {
  /** Over the per-source request rate (429). */
  rate: number
  /** Over the per-source open socket cap (503 at connect). */
  connections: number
  /** Carrying an Origin or Sec-Fetch-Site header: a browser (403). */
  origin: number
}

export interface RunningInbox {
  /** Where to point setWebhookUrl, e.g. http://127.0.0.1:43121/webhook */
  url: string
  host: string
  port: number
  /** Non-null when bound beyond loopback: say so to the operator. */
  warning: string | null
  /** Counts of requests refused unread since the inbox started. */
  refusals(): InboxRefusals
  close(): Promise<void>
}

/** What happened to one request, before it is stored and answered. */
interface Verdict {
  httpStatus: number
  verified: boolean
  reason: string
  payloadHeader: string | null
  /** How the signed payload was written; null when it was never read (signature not checked or wrong). */
  payloadForm?: string
  /** Refused as a replay (outside the window, or an exact repeat). */
  replay?: boolean
  /** A stable name for a refusal whose reason text varies (e.g. with an age): keeps its repeats on one log row. */
  refusal?: string
  /** What the operator should know about a delivery beyond its reason. */
  notes?: string[]
  webhook?: WebhookRecord
  /** The object the order was read from (the signed payload's body, or the JSON body). */
  source?: Record<string, unknown>
  /** Order fields for the log, also when unverified (they are then only what the sender claimed). */
  claimed?: { type: OrderType | null; orderId: number | null; status: number | null; updatedAt: string | null }
}

/** A bind address on this computer: loopback (shared/loopback.ts), also written IPv4-mapped. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase()
  return sharedIsLoopback(h) || sharedIsLoopback(h.replace(/^\[?::ffff:(\d+\.\d+\.\d+\.\d+)\]?$/, '$1'))
}

export function bindWarning(host: string): string | null {
  if (isLoopbackHost(host)) return null
  return `The webhook inbox listens on ${host}, beyond this computer: other machines on the network can reach it. Deliveries are still verified with the API secret, but prefer 127.0.0.1 behind a tunnel or reverse proxy you control.`
}

/** One running inbox's options and state, shared by its requests. */
interface Ctx {
  o: InboxOptions
  serviceName: string
  receiveTimeoutMs: number
  replays: ReplayGuard
  limits: SourceLimits
  refused: InboxRefusals
  /** Sockets answered 503 at connect: any request parsed from them is ignored. */
  refusedSockets: WeakSet<Socket>
}

/** Starts the receiver; resolves once it listens. */
export async function startInbox(opts: InboxOptions): Promise<RunningInbox> {
  const host = opts.host?.trim() || '127.0.0.1'
  const port = opts.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`inbox port must be 0..65535, got ${port}`)
  const receiveTimeoutMs = opts.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS
  const ctx = inboxContext(opts)
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
  server.maxConnections = MAX_CONNECTIONS
  server.on('connection', (socket: Socket) => admitSocket(socket, ctx))
  server.on('request', listenerFor(ctx))
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
    refusals: () => ({ ...ctx.refused }),
    close: () => closeServer(server)
  }
}

/**
 * The receiver's request handling on its own, for a server that serves more than the
 * inbox (the team hub's POST /webhook): read, verify, store, answer, hand on, with the
 * inbox's per-source request rate and browser refusal (the per-source socket cap needs
 * the server's connections, so it stays with startInbox). The server should set the
 * header size and timeouts startInbox sets.
 */
export function inboxRequestListener(opts: InboxOptions): InboxListener {
  const ctx = inboxContext(opts)
  return Object.assign(listenerFor(ctx), { refusals: () => ({ ...ctx.refused }) })
}

/** A request listener that keeps one inbox's replay window and rate limits across requests. */
export type InboxListener = ((req: IncomingMessage, res: ServerResponse) => void) & { refusals(): InboxRefusals }

function inboxContext(opts: InboxOptions): Ctx {
  return {
    o: opts,
    serviceName: (opts.serviceName ?? 'service').toLowerCase(),
    receiveTimeoutMs: opts.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS,
    replays: new ReplayGuard({ serviceNow: opts.serviceNow ?? opts.now ?? Date.now, windowMs: opts.replayWindowMs ?? REPLAY_WINDOW_MS }),
    limits: new SourceLimits(opts.limits),
    refused: { rate: 0, connections: 0, origin: 0 },
    refusedSockets: new WeakSet()
  }
}

function listenerFor(ctx: Ctx): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res, ctx).catch((e) => {
      ctx.o.onError?.(e)
      if (!res.headersSent) respond(res, 500, 'internal error')
    })
  }
}

/** Counts the socket against its source's cap, or answers 503 and closes it before anything is read. */
function admitSocket(socket: Socket, ctx: Ctx): void {
  const source = sourceOf(socket.remoteAddress)
  if (ctx.limits.openSocket(source)) {
    socket.once('close', () => ctx.limits.closeSocket(source))
    return
  }
  ctx.refused.connections++
  ctx.refusedSockets.add(socket)
  const text = JSON.stringify({ ok: false, reason: `more than ${ctx.limits.maxSockets} open connections from this address` })
  socket.on('error', () => undefined)
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
      `connection: close\r\nretry-after: 5\r\n\r\n${text}`
  )
  // The sender may still be writing its request: give the answer a moment to reach it, then drop the socket.
  setTimeout(() => socket.destroy(), 1_000).unref()
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

/** Answers and closes the connection without reading the request's body. */
function refuseUnread(req: IncomingMessage, res: ServerResponse, status: number, reason: string, extra: Record<string, string> = {}): void {
  respond(res, status, reason, { connection: 'close', ...extra })
  res.once('finish', () => req.socket.destroy())
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: Ctx): Promise<void> {
  const { o, serviceName, receiveTimeoutMs } = ctx
  if (ctx.refusedSockets.has(req.socket)) return
  const token = ctx.limits.take(sourceOf(req.socket.remoteAddress))
  if (!token.ok) {
    ctx.refused.rate++
    refuseUnread(req, res, 429, 'too many requests from this address', { 'retry-after': String(token.retryAfterSeconds) })
    return
  }
  if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) {
    ctx.refused.origin++
    refuseUnread(req, res, 403, 'a request from a web page (it carries an Origin header): webhook senders send none')
    return
  }
  if (req.method !== 'POST') {
    req.resume()
    respond(res, 405, 'only POST is accepted', { allow: 'POST' })
    return
  }
  const startedAt = Date.now()
  const receivedAt = (o.now ?? Date.now)()
  const maxBytes = o.maxBodyBytes ?? MAX_BODY_BYTES
  const read = await readBody(req, maxBytes, receiveTimeoutMs)
  const headers = keptHeaders(req, serviceName)
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  let verdict: Verdict
  if (read.kind === 'ok') {
    verdict = await judge(req, read.bytes.toString('utf8'), ctx, startedAt + receiveTimeoutMs + 500 - Date.now())
  } else {
    const refusal = {
      too_large: { httpStatus: 413, reason: `body larger than ${maxBytes} bytes: refused unread` },
      timeout: { httpStatus: 408, reason: `body not received within ${receiveTimeoutMs} ms` },
      aborted: { httpStatus: 400, reason: 'the sender closed the connection before the body was complete' }
    }[read.kind]
    verdict = { ...refusal, verified: false, payloadHeader }
  }
  const body = keptBody(verdict.verified, read)

  const dedupeKey = dedupeKeyOf(verdict, body)
  const input: WebhookDeliveryInput = {
    receivedAt: new Date(receivedAt).toISOString(),
    headers,
    payloadHeader: keptPayload(verdict),
    ...body,
    verified: verdict.verified,
    reason: verdict.reason,
    orderType: verdict.claimed?.type ?? null,
    orderId: verdict.claimed?.orderId ?? null,
    orderStatus: verdict.claimed?.status ?? null,
    payloadForm: verdict.payloadForm ?? null,
    replay: verdict.replay ?? false,
    notes: verdict.notes ?? [],
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
    payload: input.payloadHeader ?? '',
    ...body,
    payloadForm: verdict.payloadForm ?? null,
    replay: verdict.replay ?? false,
    notes: verdict.notes ?? []
  }
  try {
    o.onDelivery?.(delivery, req)
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

type BodyRead =
  | { kind: 'ok'; bytes: Buffer }
  /** head: what arrived, at most UNVERIFIED_HEAD_BYTES; size: bytes seen (or declared, when refused unread). */
  | { kind: 'too_large' | 'timeout' | 'aborted'; head: Buffer; size: number }

interface KeptBody {
  body: string
  bodyBytes: number
  bodySha256: string | null
  bodyTruncated: boolean
}

/** The whole body of a verified delivery; of any other, its first 2 KiB, with the whole body's hash and length. */
function keptBody(verified: boolean, read: BodyRead): KeptBody {
  if (read.kind !== 'ok') {
    const head = utf8Head(read.head, UNVERIFIED_HEAD_BYTES)
    return { body: head, bodyBytes: read.size, bodySha256: null, bodyTruncated: Buffer.byteLength(head) < read.size }
  }
  const sha = createHash('sha256').update(read.bytes).digest('hex')
  const body = verified ? read.bytes.toString('utf8') : utf8Head(read.bytes, UNVERIFIED_HEAD_BYTES)
  return { body, bodyBytes: read.bytes.length, bodySha256: sha, bodyTruncated: Buffer.byteLength(body) < read.bytes.length }
}

/** A delivery that did not verify keeps only the head of its payload header: anyone can send 1.4 MB of it. */
function keptPayload(v: Verdict): string | null {
  if (v.verified || v.payloadHeader === null) return v.payloadHeader
  return v.payloadHeader.slice(0, UNVERIFIED_HEAD_BYTES)
}

/** At most `max` bytes of UTF-8, cut before a character rather than through it. */
function utf8Head(bytes: Buffer, max: number): string {
  if (bytes.length <= max) return bytes.toString('utf8')
  let end = max
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8')
}

/** Reads the body up to maxBytes; stops reading (and refuses) as soon as it is known to be larger. */
function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.pause()
      resolve({ kind: 'too_large', head: Buffer.alloc(0), size: declared })
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
    const head = () => Buffer.concat(chunks).subarray(0, UNVERIFIED_HEAD_BYTES + 4)
    const onData = (c: Buffer) => {
      size += c.length
      if (size > maxBytes) return finish({ kind: 'too_large', head: head(), size })
      chunks.push(c)
    }
    const onEnd = () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) })
    const onAborted = () => finish({ kind: 'aborted', head: head(), size })
    const timer = setTimeout(() => finish({ kind: 'timeout', head: head(), size }), timeoutMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('aborted', onAborted)
    req.on('error', onAborted)
  })
}

async function judge(req: IncomingMessage, text: string, ctx: Ctx, secretBudgetMs: number): Promise<Verdict> {
  const { o, serviceName } = ctx
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  const signature = headerValue(req, `x-${serviceName}-signature`)
  const base = { payloadHeader, verified: false as const }

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
  const read = readPayload(payloadHeader)
  const notes = read.note ? [read.note] : []
  if (read.timestamp === null) notes.push('no timestamp: replay window not applied')
  else {
    const admitted = ctx.replays.admit(payloadHeader, read.timestamp)
    if (!admitted.ok) {
      // Authentic bytes, but not to be acted on again: logged like any refusal (verified: false).
      return {
        ...base,
        claimed,
        httpStatus: admitted.kind === 'repeat' ? 403 : 401,
        reason: admitted.reason,
        refusal: `replay-${admitted.kind}`,
        replay: true,
        payloadForm: read.form,
        notes
      }
    }
  }
  const found = orderOf(read, json as Record<string, unknown>, notes)
  const signed = { payloadHeader, verified: true as const, httpStatus: 200, payloadForm: read.form, notes }
  if (!found.ok) {
    // Authentic, but not an order we understand: stored for the operator, acknowledged so it is not retried.
    return { ...signed, claimed, reason: `verified, but not an order record: ${found.error}` }
  }
  const v = found.value
  return {
    ...signed,
    reason: 'verified',
    webhook: v,
    source: found.source,
    claimed: { type: v.type, orderId: v.record.orderId, status: v.record.status, updatedAt: 'statusOnly' in v ? null : v.record.updatedAt }
  }
}

/**
 * Where the order of a verified delivery is read from (the rule in this module's header):
 * the signed payload when it carries an order, the JSON body only when the payload does
 * not decode to a JSON object at all. Notes what the operator should know.
 */
function orderOf(
  read: ReadPayload,
  json: Record<string, unknown>,
  notes: string[]
): { ok: true; value: WebhookRecord; source: Record<string, unknown> } | { ok: false; error: string } {
  if (read.form === 'not base64 JSON' || read.form === 'JSON, not an object') {
    const fromBody = parseRecord(json)
    if (!fromBody.ok) return fromBody
    notes.push(`the signed payload is ${read.form}: the order was read from the JSON body, which the signature does not cover`)
    if (fromBody.note) notes.push(fromBody.note)
    return { ...fromBody, source: json }
  }
  if (read.signedBody === undefined) return { ok: false, error: "the signed payload's body is not a JSON object" }
  const signed = parseRecord(read.signedBody)
  if (!signed.ok) {
    if (parseRecord(json).ok)
      notes.push(
        'the JSON body holds an order, but the signed payload does not: not applied, since the signature does not cover the JSON body'
      )
    return signed
  }
  if (signed.note) notes.push(signed.note)
  if (!jsonEqual(read.signedBody, json)) {
    notes.push("the JSON body differs from the signed payload's body: the order was read from the signed payload")
  }
  return { ...signed, source: read.signedBody }
}

type ParsedRecord = { ok: true; value: WebhookRecord; note?: string } | { ok: false; error: string }

/**
 * The order a webhook body holds. Offramp bodies carry eventType "offramp"
 * (the live-service notes, Webhooks), in whatever case the sender writes it. A body whose
 * eventType says neither (absent on onramp bodies, and on offramp ones a resend or an older
 * deployment may send) is read by its fields: the onramp record when they make one, else
 * the offramp record (its expectedQuantity is in no onramp record), with a note.
 */
export function parseRecord(body: Record<string, unknown>): ParsedRecord {
  const event = typeof body.eventType === 'string' ? body.eventType.trim().toLowerCase() : undefined
  const offramp = (): ParsedRecord => {
    const r = OfframpOrder.safeParse(body)
    return r.success ? { ok: true, value: { type: 2, record: r.data } } : { ok: false, error: issue(r.error) }
  }
  const full = ((): ParsedRecord => {
    if (event === 'offramp') return offramp()
    const r = OnrampOrder.safeParse(body)
    if (r.success) return { ok: true, value: { type: 1, record: r.data } }
    if (event === 'onramp') return { ok: false, error: issue(r.error) }
    const off = offramp()
    if (!off.ok) return { ok: false, error: issue(r.error) }
    const said = event === undefined ? 'no eventType' : `eventType ${JSON.stringify(body.eventType).slice(0, 40)}`
    return { ...off, note: `${said}: read as an offramp order by its fields` }
  })()
  if (full.ok) return full
  // Not a whole record (the live notes say not to rely on the body's updatedAt): an order
  // id and a status are enough for the fast path to apply the status alone.
  const orderId = Int.safeParse(body.orderId)
  const status = Int.safeParse(body.status)
  if (!orderId.success || !status.success) return full
  const type: OrderType = event === 'offramp' || (event !== 'onramp' && 'expectedQuantity' in body) ? 2 : 1
  return {
    ok: true,
    value: { type, record: { orderId: orderId.data, status: status.data }, statusOnly: true },
    note: `not a whole order record (${full.error}): its status alone is applied`
  }
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
  const offramp = typeof o.eventType === 'string' ? o.eventType.trim().toLowerCase() === 'offramp' : 'expectedQuantity' in o
  return {
    type: offramp ? 2 : 1,
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
function dedupeKeyOf(v: Verdict, body: KeptBody): string {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex')
  if (v.verified && v.claimed && v.source) {
    const c = v.claimed
    const content = Object.fromEntries(Object.entries(v.source).filter(([k]) => !DELIVERY_COUNTERS.has(k)))
    return `v1:${c.type}:${c.orderId}:${c.status}:${c.updatedAt}:${contentHash(content)}`
  }
  const bodyHash = body.bodySha256 ?? sha(body.body)
  if (v.verified) return `v1:other:${bodyHash}`
  return `unverified:${v.httpStatus}:${sha(`${v.refusal ?? v.reason}\n${v.payloadHeader ?? ''}\n${bodyHash}`)}`
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
    body: d.body,
    bodyBytes: d.bodyBytes,
    bodySha256: d.bodySha256,
    bodyTruncated: d.bodyTruncated,
    payloadForm: d.payloadForm,
    replay: d.replay,
    notes: d.notes
  }
}

// The optional local webhook inbox: a small node:http receiver the service (or the
// sandbox) POSTs order webhooks to. Every POST is stored in the profile's delivery log,
// verified or not, with the reason; only verified order records are handed on (to the
// monitor's fast path). Loopback only unless the operator asks otherwise, and then with a
// warning the UI shows. Every request is answered within 5 s: the service counts a
// slower answer as a failed delivery and retries it.
//
// What counts as verified, and where the order is read from, is delivery-verdict.ts: the
// HMAC over the x-<service>-payload header exactly as received (senders write the signed
// payload differently: payload-form.ts), an order record read from that signed payload,
// and the JSON body equal to it by value. A genuine signature over anything else (a
// payload with no order, a captured API request, a body that differs) is refused and
// stored unverified with the reason.
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
// Under abuse, cheapest refusal first: a source over its socket cap is
// answered 503 at connect; over its request rate, 429; a request carrying an Origin (or
// Sec-Fetch-Site) header comes from a web page in a browser, never from the service, and
// is refused 403 before its body is read. None of these is stored (a flood must not turn
// into database writes); they are counted for the Webhooks view. Deliveries that fail
// verification are stored as the first 2 KiB of the body plus its SHA-256 and length,
// never the whole body, and the 'webhook:delivery' event carries no more than the row.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { WebhookDelivery as ContractDelivery } from '../../shared/ipc/contract'
import type { WebhookDeliveriesRepo, WebhookDeliveryInput, StoredWebhookDelivery } from '../store/webhook-deliveries-repo'
import { keptBody, keptPayload, readBody } from './delivery-read'
import { dedupeKeyOf, headerValue, judge, type Verdict, type WebhookRecord } from './delivery-verdict'
import { REPLAY_WINDOW_MS, ReplayGuard } from './replay-guard'
import { SourceLimits, sourceOf, type SourceLimitsOptions } from './source-limits'
import type { VerifiedOrders } from './verified-orders'
import { isLoopbackHost as sharedIsLoopback } from '../../shared/loopback'

export { UNVERIFIED_HEAD_BYTES } from './delivery-read'
export { parseRecord, type WebhookRecord } from './delivery-verdict'

export const MAX_BODY_BYTES = 1024 * 1024
/** Headers and body must both have arrived by then; the rest of the 5 s is for answering. */
export const DEFAULT_RECEIVE_TIMEOUT_MS = 4_000
/** Connections the inbox holds at once from all sources together (Node drops the rest). */
const MAX_CONNECTIONS = 512

/**
 * Hands a verified webhook to the monitor's fast path (`orders`): the whole record, or its status
 * alone, with what its body says about which order it is. A body that is not the order
 * held under its id, or says nothing of which order it is, is said in the log (nothing is
 * written over the order; its scopes are synced soon, or its status asked of the service).
 */
export function ingestInto(
  orders: VerifiedOrders,
  w: WebhookRecord,
  log?: { warn(message: string, fields?: Record<string, unknown>): void }
): string {
  const outcome =
    'statusOnly' in w
      ? orders.ingestWebhookStatus(w.type, w.record.orderId, w.record.status, w.identity)
      : w.type === 1
        ? orders.ingestWebhook(1, w.record, w.identity)
        : orders.ingestWebhook(2, w.record, w.identity)
  const fields = { type: w.type, orderId: w.record.orderId }
  if (outcome === 'mismatch')
    log?.warn('a verified webhook names an order held under its id but is another order (a dummy, or the other type): not applied', fields)
  if (outcome === 'checking')
    log?.warn(
      'a verified webhook that is no whole record says nothing of which order it is (no createdAt, coin, chain, fiat, wallet or merchant id could be read): its status is not applied; the service is asked for the status of the order',
      fields
    )
  return outcome
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
  /**
   * Makes a verified delivery durable before it is answered 2xx (the team hub keeps it in its
   * store or its spool, and relays it from there). Called for every verified delivery, repeats
   * included (keeping is idempotent). When it throws, the delivery is answered 503 and not
   * handled at all, so the sender tries again; its signed payload is not counted as used.
   */
  keep?: (k: KeepRequest) => Promise<unknown>
  /** Verified order records only (the monitor's fast path), with what keep() answered. Errors it throws are reported to onError, not to the sender. */
  onVerified?: (webhook: WebhookRecord, delivery: ContractDelivery, kept: unknown) => unknown
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
  /** A request's source for the per-source rate (default: the peer address; the team hub names the client behind a trusted proxy). */
  sourceOf?: (req: IncomingMessage) => string
}

/** A verified delivery to keep: what the log stores of it, and the request as it came. */
export interface KeepRequest {
  input: WebhookDeliveryInput
  /** The body exactly as received. */
  bytes: Buffer
  req: IncomingMessage
  webhook: WebhookRecord
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

const sourceOfPeer = (req: IncomingMessage) => sourceOf(req.socket.remoteAddress)

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
  const token = ctx.limits.take(o.sourceOf ? o.sourceOf(req) : sourceOf(req.socket.remoteAddress))
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
  const headers = keptHeaders(req, serviceName, o.sourceOf)
  const payloadHeader = headerValue(req, `x-${serviceName}-payload`)
  let verdict: Verdict
  if (read.kind === 'ok') {
    verdict = await judge(
      req,
      read.bytes.toString('utf8'),
      { serviceName, getSecret: o.getSecret, replays: ctx.replays },
      startedAt + receiveTimeoutMs + 500 - Date.now()
    )
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
    payloadHeader: keptPayload(verdict.verified, verdict.payloadHeader),
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
  let kept: unknown
  if (verdict.verified && verdict.webhook && o.keep && read.kind === 'ok') {
    try {
      kept = await o.keep({ input, bytes: read.bytes, req, webhook: verdict.webhook })
    } catch (e) {
      // Not kept means not accepted: the sender must send it again, and its signed payload
      // must pass the replay check when it does.
      if (verdict.payloadHeader !== null) ctx.replays.release(verdict.payloadHeader)
      o.onError?.(e)
      respond(res, 503, 'the delivery could not be kept; send it again later', { 'retry-after': '5' })
      return
    }
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
      await o.onVerified(verdict.webhook, delivery, kept)
    } catch (e) {
      o.onError?.(e)
    }
  }
}

/** Headers worth keeping in the log; the sender's address under the pseudo-header ':remote' (behind a trusted proxy, the client it names, via the proxy). */
function keptHeaders(req: IncomingMessage, serviceName: string, sourceOf?: (req: IncomingMessage) => string): Record<string, string> {
  const keep = ['content-type', 'content-length', 'user-agent', `x-${serviceName}-signature`]
  const out: Record<string, string> = {}
  for (const k of keep) {
    const v = req.headers[k]
    if (typeof v === 'string') out[k] = v.slice(0, 1024)
  }
  const peer = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`
  const client = sourceOf?.(req)
  out[':remote'] = client && client !== sourceOfPeer(req) ? `${client} (via ${peer})` : peer
  return out
}
/** A stored delivery in the contract's shape (webhooks:deliveries). */
export function toContractDelivery(d: StoredWebhookDelivery): ContractDelivery {
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

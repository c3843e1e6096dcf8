// --forward-to: every verified delivery the hub receives is relayed to the merchant's
// existing receiver, so the hub can stand in front of a production receiver without
// replacing it. What goes on is only what the signature covers (issue 22, item 1):
//   - the body is the verified order record (the JSON body, which equals the signed record
//     by value, written out again: duplicate keys or odd spellings a receiver's parser
//     might read differently do not survive);
//   - the headers are an allowlist: a JSON content type, the user agent and the service's
//     payload and signature headers. Anything else the sender added (Authorization, Cookie,
//     X-Forwarded-For, ...) stays behind;
//   - credentials in the URL (https://user:password@host/path) are sent as HTTP Basic
//     authentication and never appear in a log line; the hub's log names the receiver by its
//     origin and path only.
// The hub answers the service first (it must within 5 s) and relays after; a receiver that
// fails or does not answer is tried again twice, and every outcome is logged with the
// receiver's answer.
import type { IncomingHttpHeaders } from 'node:http'
import { request, type Dispatcher } from 'undici'
import type { HubLog } from './hub-log'

export interface RelayOptions {
  /** The merchant's receiver, possibly with user:password@ for Basic authentication. */
  target: string
  /** The service name: the middle word of the payload and signature headers. */
  serviceName: string
  log: HubLog
  /** Per attempt. Default 10 s. */
  timeoutMs?: number
  /** Default 3. */
  attempts?: number
  /** Wait before the second attempt; doubles. Default 1 s. */
  backoffMs?: number
  dispatcher?: Dispatcher
}

export interface RelayOutcome {
  ok: boolean
  attempts: number
  status: number | null
  answer: string
}

export interface WebhookRelay {
  /** The receiver as it may be shown: origin and path, no credentials, no query. */
  readonly target: string
  relay(headers: IncomingHttpHeaders, body: string, label: string): Promise<RelayOutcome>
  /** Resolves when no relay is in flight. */
  idle(): Promise<void>
  close(): Promise<void>
}

/** The receiver's URL without credentials, its Basic authorization, and how to name it in a log. */
export function relayTarget(target: string): { url: string; authorization: string | null; display: string } {
  const u = new URL(target)
  const authorization =
    u.username || u.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : null
  u.username = ''
  u.password = ''
  const display = `${u.origin}${u.pathname}${u.search ? '?…' : ''}${authorization ? ' (with Basic authentication)' : ''}`
  return { url: u.toString(), authorization, display }
}

/**
 * The headers relayed: the service's payload and signature headers as received, the sender's
 * user agent (clipped), and a JSON content type of our own (the body is written out by us);
 * nothing else the sender added.
 */
export function relayedHeaders(headers: IncomingHttpHeaders, serviceName: string): Record<string, string> {
  const name = serviceName.toLowerCase()
  const out: Record<string, string> = { 'content-type': 'application/json' }
  for (const k of ['user-agent', `x-${name}-payload`, `x-${name}-signature`]) {
    const v = headers[k]
    const one = Array.isArray(v) ? v[0] : v
    if (one !== undefined) out[k] = k === 'user-agent' ? one.slice(0, 200) : one
  }
  return out
}

export function createWebhookRelay(o: RelayOptions): WebhookRelay {
  const inflight = new Set<Promise<RelayOutcome>>()
  const controller = new AbortController()
  const attempts = o.attempts ?? 3
  const timeoutMs = o.timeoutMs ?? 10_000
  const target = relayTarget(o.target)

  async function once(headers: Record<string, string>, body: string): Promise<{ status: number | null; answer: string }> {
    try {
      const r = await request(target.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: o.dispatcher,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)])
      })
      const text = await r.body.text()
      return { status: r.statusCode, answer: text.slice(0, 200) }
    } catch (e) {
      return { status: null, answer: e instanceof Error ? e.message : String(e) }
    }
  }

  async function run(headers: IncomingHttpHeaders, body: string, label: string): Promise<RelayOutcome> {
    const h = relayedHeaders(headers, o.serviceName)
    if (target.authorization) h.authorization = target.authorization
    const started = Date.now()
    let last = { status: null as number | null, answer: '' }
    for (let n = 1; n <= attempts; n++) {
      last = await once(h, body)
      const ok = last.status !== null && last.status >= 200 && last.status < 300
      const retryable = last.status === null || last.status >= 500 || last.status === 408 || last.status === 429
      if (ok || !retryable || n === attempts || controller.signal.aborted) {
        const what =
          last.status === null ? `no answer (${last.answer})` : `HTTP ${last.status}: ${JSON.stringify(last.answer.slice(0, 120))}`
        const ms = Date.now() - started
        const line = `webhook relay of ${label} to ${target.display}: ${what} after ${n} attempt${n > 1 ? 's' : ''}, ${ms} ms`
        const fields = { relay: ok ? 'relayed' : 'failed', target: target.display, httpStatus: last.status, attempts: n, ms }
        if (ok) o.log.info(line, fields)
        else o.log.warn(line, fields)
        return { ok, attempts: n, status: last.status, answer: last.answer }
      }
      await new Promise((r) => setTimeout(r, (o.backoffMs ?? 1000) * 2 ** (n - 1)).unref())
    }
    return { ok: false, attempts, status: last.status, answer: last.answer }
  }

  return {
    target: target.display,
    relay(headers, body, label) {
      const p = run(headers, body, label)
      inflight.add(p)
      void p.finally(() => inflight.delete(p))
      return p
    },
    async idle() {
      while (inflight.size) await Promise.allSettled([...inflight])
    },
    async close() {
      controller.abort()
      await Promise.allSettled([...inflight])
    }
  }
}

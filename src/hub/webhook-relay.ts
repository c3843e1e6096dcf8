// --forward-to: every verified delivery the hub keeps is relayed to the merchant's existing
// receiver, so the hub can stand in front of a production receiver without replacing it.
// What goes on is what the signature was checked against, byte for byte:
//   - the body exactly as received (never parsed and written out again: a receiver that
//     checks the signature and reads the body gets what the service signed);
//   - the content type as received, the service's payload and signature headers, and the
//     sender's user agent (clipped); nothing else the sender added (Authorization, Cookie,
//     X-Forwarded-For, ...);
//   - credentials in the URL (https://user:password@host/path) are sent as HTTP Basic
//     authentication and never appear in a log line; the hub's log names the receiver by its
//     origin and path only.
// This file sends one attempt; the relay worker (kept/relay-worker.ts) decides when, and
// keeps every attempt's outcome.
import { request, type Dispatcher } from 'undici'
import type { RelayJob } from './kept/kept-delivery'

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

/** The headers a relay sends: the kept delivery's own, under the service's header names. */
export function relayedHeaders(job: Pick<RelayJob, 'headers'>, serviceName: string): Record<string, string> {
  const name = serviceName.toLowerCase()
  const h = job.headers
  const out: Record<string, string> = {
    'content-type': h['content-type'],
    [`x-${name}-payload`]: h['x-payload'],
    [`x-${name}-signature`]: h['x-signature']
  }
  if (h['user-agent'] !== null) out['user-agent'] = h['user-agent'].slice(0, 200)
  return out
}

export interface RelaySender {
  /** The receiver as it may be shown: origin and path, no credentials, no query. */
  readonly target: string
  /** One attempt: the receiver's status and answer (clipped), or null and why there was none. */
  send(job: RelayJob): Promise<{ httpStatus: number | null; answer: string }>
  close(): void
}

export function relaySender(o: { target: string; serviceName: string; timeoutMs?: number; dispatcher?: Dispatcher }): RelaySender {
  const controller = new AbortController()
  const target = relayTarget(o.target)
  const timeoutMs = o.timeoutMs ?? 10_000
  return {
    target: target.display,
    async send(job) {
      const headers = relayedHeaders(job, o.serviceName)
      if (target.authorization) headers.authorization = target.authorization
      try {
        const r = await request(target.url, {
          method: 'POST',
          headers,
          body: job.body,
          dispatcher: o.dispatcher,
          signal: AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)])
        })
        const text = await r.body.text()
        return { httpStatus: r.statusCode, answer: text.slice(0, 200) }
      } catch (e) {
        return { httpStatus: null, answer: e instanceof Error ? e.message : String(e) }
      }
    },
    close: () => controller.abort()
  }
}

// --forward-to: every verified delivery the hub receives is relayed unchanged (the same
// headers, signature included, and the same body bytes) to the merchant's existing
// receiver, so the hub can stand in front of a production receiver without replacing
// it. The hub answers the service first (it must within 5 s) and relays after; a
// receiver that fails or does not answer is tried again twice, and every outcome is
// logged with the receiver's answer.
import type { IncomingHttpHeaders } from 'node:http'
import { request, type Dispatcher } from 'undici'
import type { HubLog } from './hub-log'

/** Hop-by-hop headers (RFC 9110 7.6.1) and the ones the new connection sets itself. */
const NOT_RELAYED = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'content-length'
])

export interface RelayOptions {
  /** The merchant's receiver. */
  target: string
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
  readonly target: string
  relay(headers: IncomingHttpHeaders, body: string, label: string): Promise<RelayOutcome>
  /** Resolves when no relay is in flight. */
  idle(): Promise<void>
  close(): Promise<void>
}

export function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !NOT_RELAYED.has(k.toLowerCase())) out[k] = v
  return out
}

export function createWebhookRelay(o: RelayOptions): WebhookRelay {
  const inflight = new Set<Promise<RelayOutcome>>()
  const controller = new AbortController()
  const attempts = o.attempts ?? 3
  const timeoutMs = o.timeoutMs ?? 10_000

  async function once(headers: Record<string, string | string[]>, body: string): Promise<{ status: number | null; answer: string }> {
    try {
      const r = await request(o.target, {
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
    const h = relayedHeaders(headers)
    const started = Date.now()
    let last = { status: null as number | null, answer: '' }
    for (let n = 1; n <= attempts; n++) {
      last = await once(h, body)
      const ok = last.status !== null && last.status >= 200 && last.status < 300
      const retryable = last.status === null || last.status >= 500 || last.status === 408 || last.status === 429
      if (ok || !retryable || n === attempts || controller.signal.aborted) {
        const what =
          last.status === null ? `no answer (${last.answer})` : `HTTP ${last.status}: ${JSON.stringify(last.answer.slice(0, 120))}`
        const line = `webhook relay of ${label} to ${o.target}: ${what} after ${n} attempt${n > 1 ? 's' : ''}, ${Date.now() - started} ms`
        if (ok) o.log.info(line)
        else o.log.warn(line)
        return { ok, attempts: n, status: last.status, answer: last.answer }
      }
      await new Promise((r) => setTimeout(r, (o.backoffMs ?? 1000) * 2 ** (n - 1)).unref())
    }
    return { ok: false, attempts, status: last.status, answer: last.answer }
  }

  return {
    target: o.target,
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

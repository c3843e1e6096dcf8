// Webhook delivery as the live service does it (the live-service notes, "Webhooks"):
// HTTP POST of a JSON body with x-{service}-payload and x-{service}-signature (HMAC
// of the payload header value with the merchant's API secret; the payload's form is
// the webhookPayloadForm reading); the merchant must answer 2xx within 5 s, else the
// delivery is retried with exponential backoff, up to 10 attempts. Every attempt is
// logged for the control API (listDeliveries).
import { headerNames } from './routes'
import { signWebhook, type WebhookPayloadForm } from './signing'

export type DeliveryKind = 'order' | 'dummy' | 'resend'

export interface DeliveryRecord {
  id: number
  kind: DeliveryKind
  orderId: number | null
  url: string
  attempt: number
  /** Sandbox clock, ISO. */
  at: string
  ok: boolean
  httpStatus: number | null
  error: string | null
  /** First 500 characters of what the merchant's server answered. */
  response: string | null
  durationMs: number
  headers: Record<string, string>
  body: unknown
}

export interface AttemptResult {
  ok: boolean
  httpStatus: number | null
  error: string | null
  response: string | null
}

export interface DispatcherOptions {
  serviceName: string
  serverNow: () => number
  timeoutMs: number
  maxTrials: number
  backoffBaseMs: number
  backoffMaxMs: number
  /** How the payload header is built, read at each attempt. */
  payloadForm: () => WebhookPayloadForm
  /** Records kept (oldest dropped first). */
  keep?: number
}

export interface Delivery {
  kind: DeliveryKind
  orderId: number | null
  url: string
  secret: string
  /** Renders the body for attempt n (1-based), so webhookTrials can count. */
  body: (attempt: number) => unknown
  /** Called before each attempt (to count webhookTrials). */
  beforeAttempt?: () => void
  /** Called once when an attempt got 2xx. */
  onSuccess?: () => void
  /** Retry on failure (false for resendWebhook, which answers with the one result). */
  retry: boolean
}

export class WebhookDispatcher {
  /** Webhook URL per API key (setWebhookUrl). */
  readonly urls = new Map<string, string>()
  private readonly records: DeliveryRecord[] = []
  private readonly pending = new Set<Promise<unknown>>()
  private readonly timers = new Map<NodeJS.Timeout, () => void>()
  private nextId = 1
  private closed = false

  constructor(private readonly o: DispatcherOptions) {}

  list(): DeliveryRecord[] {
    return this.records.map((r) => ({ ...r }))
  }

  /** Resolves when no delivery is in flight or waiting for a retry. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
  }

  /** Starts a delivery (with retries when asked); resolves with the last attempt's result. */
  deliver(d: Delivery): Promise<AttemptResult> {
    const p = this.run(d)
    this.pending.add(p)
    void p.finally(() => this.pending.delete(p))
    return p
  }

  private async run(d: Delivery): Promise<AttemptResult> {
    let last: AttemptResult = { ok: false, httpStatus: null, error: 'not attempted', response: null }
    for (let attempt = 1; attempt <= (d.retry ? this.o.maxTrials : 1); attempt++) {
      if (this.closed) break
      d.beforeAttempt?.()
      last = await this.attempt(d, attempt)
      if (last.ok) {
        d.onSuccess?.()
        break
      }
      if (!d.retry || attempt === this.o.maxTrials) break
      await this.sleep(Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** (attempt - 1)))
    }
    return last
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t)
        resolve()
      }, ms)
      t.unref()
      this.timers.set(t, resolve)
    })
  }

  private async attempt(d: Delivery, attempt: number): Promise<AttemptResult> {
    const names = headerNames(this.o.serviceName)
    const body = d.body(attempt)
    const at = this.o.serverNow()
    const { payload, signature } = signWebhook(this.o.payloadForm(), at, body, d.secret)
    const headers: Record<string, string> = {
      'content-type': 'application/json;charset=UTF-8',
      [names.webhookPayload]: payload,
      [names.webhookSignature]: signature
    }
    const started = performance.now()
    let result: AttemptResult
    try {
      // Loaded at the first delivery: the simulator runs inside the app's main process,
      // where undici's index (fetch, WebSocket, caches, mocks) costs memory every profile
      // would pay, sandbox or live, though most never send a simulated webhook.
      const { request } = await import('undici')
      const res = await request(d.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.o.timeoutMs),
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs
      })
      const text = (await res.body.text()).slice(0, 500)
      const ok = res.statusCode >= 200 && res.statusCode < 300
      result = { ok, httpStatus: res.statusCode, error: ok ? null : `HTTP ${res.statusCode}`, response: text }
    } catch (e) {
      const err = e as { name?: string; code?: string; message?: string }
      const timedOut = err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT'
      result = {
        ok: false,
        httpStatus: null,
        error: timedOut ? `no answer within ${this.o.timeoutMs} ms` : (err.code ?? err.message ?? String(e)),
        response: null
      }
    }
    this.records.push({
      id: this.nextId++,
      kind: d.kind,
      orderId: d.orderId,
      url: d.url,
      attempt,
      at: new Date(at).toISOString(),
      durationMs: Math.round(performance.now() - started),
      headers,
      body,
      ...result
    })
    const keep = this.o.keep ?? 2000
    if (this.records.length > keep) this.records.splice(0, this.records.length - keep)
    return result
  }

  close(): void {
    this.closed = true
    // Wake sleeping retries so they see closed and stop (idle() then settles).
    for (const [t, wake] of this.timers) {
      clearTimeout(t)
      wake()
    }
    this.timers.clear()
  }
}

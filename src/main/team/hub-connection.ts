// A desktop's line to its team hub: contract calls as POST /rpc/<channel> with the
// operator's token, and the hub's event stream (GET /events, Server-Sent Events) kept
// open: when it drops (the hub restarts, the network goes) it reconnects with a growing
// pause and names the last event id it saw, and the hub replays the order changes
// since. Events are handed on once each: ids already seen are dropped. Calls never
// throw: every failure comes back as the contract's error envelope, in plain words.
import type { Dispatcher } from 'undici'
import { Agent, request } from '../api/undici-parts'
import { eventNames, type ChannelName, type Envelope, type EventName } from '../../shared/ipc/contract'
import pkg from '../../../package.json' with { type: 'json' }

export interface HubConnectionOptions {
  /** The hub's base URL, e.g. https://hub.example.com or http://127.0.0.1:8790. */
  hubUrl: string
  /** The operator's token (from the keychain), asked for each request and never kept. */
  token: () => Promise<string>
  onEvent(event: EventName, payload: unknown): void
  /**
   * The hub could not replay what this desktop missed (it was too far behind, or the hub's
   * history is not the one it saw): whatever the windows show must be read again.
   */
  onResync?(): void
  /** The stream opened (connected) or dropped (with why). */
  onState?(connected: boolean, error: string | null): void
  /** Extra CA certificates (PEM) to trust for the hub, beyond the system's. */
  ca?: string
  /** Used instead of an Agent of its own (tests). */
  dispatcher?: Dispatcher
  /** First pause before reconnecting; doubles up to maxRetryMs. Defaults 500 ms and 10 s. */
  minRetryMs?: number
  maxRetryMs?: number
  /** A stream that delivers nothing (not even the hub's 15 s ping) this long is dead. Default 45 s. */
  idleTimeoutMs?: number
}

/** Ids remembered to drop the overlap the hub replays after a reconnect. */
const SEEN_IDS = 5000
const KNOWN_EVENTS = new Set<string>(eventNames)

export class HubConnection {
  private readonly agent: Dispatcher
  private readonly ownsAgent: boolean
  private readonly base: string
  private controller = new AbortController()
  private running = false
  private loop: Promise<void> | null = null
  private lastId: number | null = null
  private readonly seen = new Set<number>()
  private wake: (() => void) | null = null
  /** The event stream is open. */
  connected = false
  /** Why the stream is not open, when it is not. */
  lastError: string | null = null
  /** The hub refused the operator token (unknown or revoked): trying again will not help until it changes. */
  refused = false

  constructor(private readonly o: HubConnectionOptions) {
    this.base = o.hubUrl.replace(/\/+$/, '')
    this.ownsAgent = !o.dispatcher
    this.agent =
      o.dispatcher ??
      new Agent({
        connect: o.ca ? { ca: o.ca } : undefined,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
        keepAliveTimeout: 10_000
      })
  }

  get hubUrl(): string {
    return this.base
  }

  private unreachable(e: unknown): string {
    const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)
    return `the team hub at ${this.base} is unreachable (${cause})`
  }

  /** Calls a channel on the hub; answers its envelope, or the failure as one. */
  async call(channel: ChannelName, input: unknown, signal?: AbortSignal): Promise<Envelope<unknown>> {
    let token: string
    try {
      token = await this.o.token()
    } catch (e) {
      return { ok: false, error: { kind: 'missing_secret', message: (e as Error).message, retryable: false } }
    }
    try {
      const r = await request(`${this.base}/rpc/${channel}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'user-agent': `rampdesk/${pkg.version}`
        },
        body: JSON.stringify(input ?? {}),
        signal: signal ? AbortSignal.any([signal, this.controller.signal]) : this.controller.signal
      })
      const text = await r.body.text()
      try {
        const env = JSON.parse(text) as Envelope<unknown>
        // 401: the token is unknown or was revoked; the operator needs a new one, not a retry.
        if (env && typeof env === 'object' && env.ok === false && r.statusCode === 401)
          return { ok: false, error: { kind: 'access_revoked', message: env.error.message, retryable: false } }
        if (env && typeof env === 'object' && typeof env.ok === 'boolean') return env
      } catch {
        // Not the hub's JSON: a proxy's error page, say.
      }
      return {
        ok: false,
        error: {
          kind: 'http',
          httpStatus: r.statusCode,
          message: `the team hub at ${this.base} answered HTTP ${r.statusCode} without a Rampdesk answer${text ? `: ${text.slice(0, 120)}` : ''}`,
          retryable: r.statusCode >= 500
        }
      }
    } catch (e) {
      return { ok: false, error: { kind: 'hub_unreachable', message: this.unreachable(e), retryable: true } }
    }
  }

  /** POSTs JSON to one of the hub's other routes and hands back the raw answer (a CSV stream); throws when unreachable. */
  async post(pathname: string, body: unknown): Promise<Dispatcher.ResponseData> {
    const token = await this.o.token()
    try {
      return await request(`${this.base}${pathname}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': `rampdesk/${pkg.version}` },
        body: JSON.stringify(body),
        signal: this.controller.signal
      })
    } catch (e) {
      throw Object.assign(new Error(this.unreachable(e)), { kind: 'hub_unreachable', retryable: true })
    }
  }

  /** Opens the event stream and keeps it open until close(). */
  start(): void {
    if (this.running) return
    this.running = true
    this.loop = this.run()
  }

  /** Reconnects now instead of after the current pause (the operator pressed retry, the token changed). */
  reconnectNow(): void {
    this.wake?.()
  }

  private setState(connected: boolean, error: string | null, refused = false): void {
    const changed = connected !== this.connected || error !== this.lastError || refused !== this.refused
    this.refused = refused
    this.connected = connected
    this.lastError = error
    if (changed) this.o.onState?.(connected, error)
  }

  private async run(): Promise<void> {
    const min = this.o.minRetryMs ?? 500
    const max = this.o.maxRetryMs ?? 10_000
    let pause = min
    while (this.running) {
      const opened = await this.streamOnce().catch((e: unknown) => {
        this.setState(false, this.unreachable(e))
        return false
      })
      if (!this.running) break
      pause = opened ? min : Math.min(max, pause * 2)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pause)
        t.unref?.()
        this.wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
      this.wake = null
    }
  }

  /** One connection: resolves when it ends; true when it had opened. */
  private async streamOnce(): Promise<boolean> {
    const token = await this.o.token()
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      'user-agent': `rampdesk/${pkg.version}`
    }
    if (this.lastId !== null) headers['last-event-id'] = String(this.lastId)
    const r = await request(`${this.base}/events`, {
      method: 'GET',
      dispatcher: this.agent,
      headers,
      bodyTimeout: this.o.idleTimeoutMs ?? 45_000,
      signal: this.controller.signal
    })
    if (r.statusCode !== 200) {
      const text = await r.body.text().catch(() => '')
      let message = `the team hub at ${this.base} refused the event stream (HTTP ${r.statusCode})`
      try {
        message = (JSON.parse(text) as { error: { message: string } }).error.message
      } catch {
        // keep the generic text
      }
      if (r.statusCode === 401) this.setState(false, `the team hub refused this operator token: ${message}`, true)
      else this.setState(false, message)
      return false
    }
    this.setState(true, null)
    let buffer = ''
    let event = 'message'
    let data: string[] = []
    let id: number | null = null
    try {
      for await (const chunk of r.body) {
        buffer += (chunk as Buffer).toString('utf8')
        let nl: number
        while ((nl = buffer.search(/\r\n|\n|\r/)) >= 0) {
          const line = buffer.slice(0, nl)
          buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1))
          if (line === '') {
            if (data.length) this.dispatch(event, data.join('\n'), id)
            event = 'message'
            data = []
            id = null
            continue
          }
          if (line.startsWith(':')) continue
          const colon = line.indexOf(':')
          const field = colon < 0 ? line : line.slice(0, colon)
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'event') event = value
          else if (field === 'data') data.push(value)
          else if (field === 'id' && /^\d+$/.test(value)) id = Number(value)
        }
      }
      this.setState(false, `the team hub at ${this.base} closed the event stream`)
    } catch (e) {
      if (this.running) this.setState(false, `the event stream from ${this.base} broke (${(e as Error).message})`)
    }
    return true
  }

  private dispatch(event: string, data: string, id: number | null): void {
    // Not a contract event: the hub's answer to a Last-Event-ID it will not replay from. Its id
    // is the hub's newest, and this desktop counts from there (even down, after a restore).
    if (event === 'resync') {
      if (id !== null) this.lastId = id
      // The hub's ids may start again below what this desktop saw (a restored database).
      this.seen.clear()
      this.o.onResync?.()
      return
    }
    if (id !== null) {
      if (this.seen.has(id)) return
      this.seen.add(id)
      if (this.seen.size > SEEN_IDS) this.seen.delete(this.seen.values().next().value!)
      if (this.lastId === null || id > this.lastId) this.lastId = id
    }
    if (!KNOWN_EVENTS.has(event)) return
    let payload: unknown
    try {
      payload = JSON.parse(data)
    } catch {
      return
    }
    this.o.onEvent(event as EventName, payload)
  }

  async close(): Promise<void> {
    this.running = false
    this.controller.abort()
    this.wake?.()
    await this.loop?.catch(() => undefined)
    this.setState(false, null)
    this.controller = new AbortController()
    if (this.ownsAgent) await this.agent.close().catch(() => undefined)
  }
}

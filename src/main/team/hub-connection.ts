// A desktop's line to its team hub: contract calls as POST /rpc/<channel> with the
// operator's token, and the hub's event stream (GET /events, Server-Sent Events) kept
// open: when it drops (the hub restarts, the network goes) it reconnects with a growing
// pause and names the last event id it saw, and the hub replays the order changes
// since. Events are handed on once each: ids already seen are dropped. Calls never
// throw: every failure comes back as the contract's error envelope, in plain words.
//
// A team may run several hubs on one store. Given their URLs, the connection uses one hub at
// a time and moves to the next when it stops answering: a call whose connection is refused
// or times out is sent to the next hub at once (a read whatever broke; an action only when
// it never reached the hub, so nothing is done twice), and the event stream, when it cannot
// reconnect, tries the next hub before it pauses, naming the last event id it saw. Calls and
// the stream stay on one hub: when either moves, the other follows.
import type { Dispatcher } from 'undici'
import { Agent, request } from '../api/undici-parts'
import { eventNames, type ChannelName, type Envelope, type ErrorInfo, type EventName } from '../../shared/ipc/contract'
import { channelAccess } from '../../shared/ipc/team-access'
import pkg from '../../../package.json' with { type: 'json' }
import { SignInError } from './oidc-sign-in'
import { errorCode, neverReachedHub, signedOut, tokenRefused } from './hub-failures'

export interface HubConnectionOptions {
  /** The hub's base URL, e.g. https://hub.example.com or http://127.0.0.1:8790. */
  hubUrl: string
  /** Other hubs of the team, tried in order after hubUrl when the one in use stops answering. */
  fallbackUrls?: readonly string[]
  /** The connection moved to another hub (its base URL). */
  onHubChange?(hubUrl: string): void
  /** How long a hub may take to accept a connection before the next is tried. Default 5 s. */
  connectTimeoutMs?: number
  /** How long the event stream's answer may take to begin before the hub counts as not answering. Default 10 s. */
  streamHeadersTimeoutMs?: number
  /**
   * The operator's token (from the keychain), asked for each request and never kept. `refused`:
   * the token the hub just refused: a session from the identity provider is renewed past it (an
   * operator token comes back the same, and is refused as it was).
   */
  token: (refused?: string) => Promise<string>
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

/** The header a second-factor code travels in (the hub's second-factor-gate.ts reads it). */
const SECOND_FACTOR_HEADER = 'x-rampdesk-second-factor'

/** Ids remembered to drop the overlap the hub replays after a reconnect. */
const SEEN_IDS = 5000
const KNOWN_EVENTS = new Set<string>(eventNames)

export class HubConnection {
  private readonly agent: Dispatcher
  private readonly ownsAgent: boolean
  private readonly bases: readonly string[]
  private current = 0
  private controller = new AbortController()
  /** Ends the event stream's current request (the connection moved to another hub). */
  private streamAbort: AbortController | null = null
  private streamBase: string | null = null
  private moving = false
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
  /** Why, when the hub said the token ended or was replaced. */
  refusedReason: ErrorInfo['reason'] | null = null
  /** The token the last renewal after a refusal gave (renewedPast). */
  private renewedAfterRefusal: string | null = null

  constructor(private readonly o: HubConnectionOptions) {
    const trim = (u: string) => u.replace(/\/+$/, '')
    this.bases = [...new Set([o.hubUrl, ...(o.fallbackUrls ?? [])].map(trim))]
    this.ownsAgent = !o.dispatcher
    this.agent =
      o.dispatcher ??
      new Agent({
        connect: { timeout: o.connectTimeoutMs ?? 5_000, ...(o.ca ? { ca: o.ca } : {}) },
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
        keepAliveTimeout: 10_000
      })
  }

  /** The hub in use now. */
  get hubUrl(): string {
    return this.bases[this.current]!
  }

  /** Every hub this connection may use, in the order they are tried. */
  get hubUrls(): readonly string[] {
    return this.bases
  }

  private unreachable(e: unknown, base = this.hubUrl): string {
    const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)
    const others = this.bases.length - 1
    return `the team hub at ${base} is unreachable (${cause})${others ? `, and so ${others === 1 ? 'is the other hub' : `are the ${others} other hubs`} of this profile` : ''}`
  }

  /** Makes `index` the hub in use; the event stream follows. */
  private use(index: number): void {
    if (index === this.current) return
    this.current = index
    if (this.streamBase !== null && this.streamBase !== this.hubUrl) {
      this.moving = true
      this.streamAbort?.abort()
    }
    this.o.onHubChange?.(this.hubUrl)
  }

  /**
   * Sends with the hub in use, and on to the next ones while `mayMove` says the failure is
   * one another hub should be asked about; throws the last failure, with the hub it came from.
   */
  private async onSomeHub<T>(send: (base: string) => Promise<T>, mayMove: (e: unknown) => boolean): Promise<T> {
    const start = this.current
    for (let i = 0; ; i++) {
      const index = (start + i) % this.bases.length
      try {
        const r = await send(this.bases[index]!)
        this.use(index)
        return r
      } catch (e) {
        if (i === this.bases.length - 1 || this.controller.signal.aborted || !mayMove(e))
          throw Object.assign(new HubFailure(e), { base: this.bases[index]! })
      }
    }
  }

  /**
   * Calls a channel on the hub; answers its envelope, or the failure as one. `secondFactor`:
   * a code the operator typed, sent in the hub's second-factor header (never in a body).
   */
  async call(channel: ChannelName, input: unknown, signal?: AbortSignal, secondFactor?: string): Promise<Envelope<unknown>> {
    let token: string
    try {
      token = await this.o.token()
    } catch (e) {
      if (signedOut(e)) {
        this.signOut(e)
        return { ok: false, error: { kind: 'access_revoked', message: e.message, retryable: false, reason: 'signed-out' } }
      }
      // A renewal the hub or its identity provider could not make just now (the session stands
      // and the next request tries again): the line is down for a while, no credential is missing.
      if (e instanceof SignInError) return { ok: false, error: { kind: 'hub_unreachable', message: e.message, retryable: true } }
      if (errorCode(e) !== undefined)
        return { ok: false, error: { kind: 'hub_unreachable', message: this.unreachable(e), retryable: true } }
      return { ok: false, error: { kind: 'missing_secret', message: (e as Error).message, retryable: false } }
    }
    // A read may be asked again of another hub whatever broke; an action only if it never got there.
    const read = channelAccess(channel) === 'viewer'
    const send = async (t: string): Promise<Envelope<unknown>> => {
      try {
        return await this.onSomeHub(
          (base) => this.rpc(base, channel, input, t, signal, secondFactor),
          (e) => !signal?.aborted && (read || neverReachedHub(e))
        )
      } catch (f) {
        const { cause, base } = f as HubFailure
        return { ok: false, error: { kind: 'hub_unreachable', message: this.unreachable(cause, base), retryable: true } }
      }
    }
    const env = await send(token)
    if (env.ok) this.tokenWorked(token)
    if (env.ok || env.error.kind !== 'access_revoked') return env
    // Refused: a session's access token may have lapsed before this desktop expected (its clock
    // jumped, the hub's store was restored). Renewed once and sent again; "revoked" only when the
    // renewal is refused too. A refused call did nothing, so sending it again does nothing twice.
    const renewed = await this.renewedPast(token)
    if (renewed.kind === 'ended') return renewed.envelope
    if (renewed.kind === 'unavailable') return renewed.envelope
    if (renewed.kind !== 'token') return env
    const again = await send(renewed.token)
    if (again.ok) this.tokenWorked(renewed.token)
    return again
  }

  /** A token the hub took: once refused, it may be renewed past again. */
  private tokenWorked(token: string): void {
    if (token === this.renewedAfterRefusal) this.renewedAfterRefusal = null
  }

  /**
   * A token newer than `refused`; or the session's end; or a renewal that could not be made just
   * now (the hub or its provider away: the session stands, so the call is not "revoked"); or
   * nothing better (an operator token, a token already renewed past once).
   */
  private async renewedPast(
    refused: string
  ): Promise<
    | { kind: 'token'; token: string }
    | { kind: 'ended'; envelope: Envelope<unknown> }
    | { kind: 'unavailable'; envelope: Envelope<unknown> }
    | { kind: 'none' }
  > {
    // A token that came from such a renewal and is refused before the hub ever took it is not
    // renewed again: a hub that refuses every token must not be answered with a renewal per request.
    if (refused === this.renewedAfterRefusal) return { kind: 'none' }
    try {
      const t = await this.o.token(refused)
      if (t === refused) return { kind: 'none' }
      this.renewedAfterRefusal = t
      return { kind: 'token', token: t }
    } catch (e) {
      if (!signedOut(e)) {
        if (!(e instanceof SignInError) && errorCode(e) === undefined) return { kind: 'none' }
        const message = e instanceof SignInError ? e.message : this.unreachable(e)
        return { kind: 'unavailable', envelope: { ok: false, error: { kind: 'hub_unreachable', message, retryable: true } } }
      }
      this.signOut(e)
      return {
        kind: 'ended',
        envelope: { ok: false, error: { kind: 'access_revoked', message: e.message, retryable: false, reason: 'signed-out' } }
      }
    }
  }

  private async rpc(
    base: string,
    channel: ChannelName,
    input: unknown,
    token: string,
    signal?: AbortSignal,
    secondFactor?: string
  ): Promise<Envelope<unknown>> {
    const r = await request(`${base}/rpc/${channel}`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'user-agent': `rampdesk/${pkg.version}`,
        ...(secondFactor !== undefined ? { [SECOND_FACTOR_HEADER]: secondFactor } : {})
      },
      body: JSON.stringify(input ?? {}),
      signal: signal ? AbortSignal.any([signal, this.controller.signal]) : this.controller.signal
    })
    const text = await r.body.text()
    try {
      const env = JSON.parse(text) as Envelope<unknown>
      // 401: the token is unknown or was revoked; the operator needs a new one, not a retry.
      if (env && typeof env === 'object' && env.ok === false && tokenRefused(r.statusCode, env.error))
        return {
          ok: false,
          error: {
            kind: 'access_revoked',
            message: env.error.message,
            retryable: false,
            ...(env.error.reason ? { reason: env.error.reason } : {})
          }
        }
      if (env && typeof env === 'object' && typeof env.ok === 'boolean') return env
    } catch {
      // Not the hub's JSON: a proxy's error page, say.
    }
    return {
      ok: false,
      error: {
        kind: 'http',
        httpStatus: r.statusCode,
        message: `the team hub at ${base} answered HTTP ${r.statusCode} without a Rampdesk answer${text ? `: ${text.slice(0, 120)}` : ''}`,
        retryable: r.statusCode >= 500
      }
    }
  }

  /**
   * POSTs JSON to one of the hub's other routes (reads: the CSV export) and hands back the raw
   * answer; throws when unreachable. A session's access token the hub refuses is renewed once and
   * the request sent again, as calls are; a renewal refused (the sign-in ended) or not possible
   * just now throws with the kind and words a call would answer.
   */
  async post(pathname: string, body: unknown): Promise<Dispatcher.ResponseData> {
    const token = await this.o.token()
    const first = await this.postWith(pathname, body, token)
    if (first.statusCode !== 401) {
      if (first.statusCode === 200) this.tokenWorked(token)
      return first
    }
    const renewed = await this.renewedPast(token)
    if (renewed.kind === 'none') return first
    await first.body.dump()
    // The sign-in ended, or cannot be renewed just now: said as calls say it.
    if (renewed.kind !== 'token') {
      const e = renewed.envelope.ok ? null : renewed.envelope.error
      throw Object.assign(new Error(e?.message ?? 'the team hub refused the request'), e ?? {})
    }
    const again = await this.postWith(pathname, body, renewed.token)
    if (again.statusCode === 200) this.tokenWorked(renewed.token)
    return again
  }

  private async postWith(pathname: string, body: unknown, token: string): Promise<Dispatcher.ResponseData> {
    try {
      return await this.onSomeHub(
        (base) =>
          request(`${base}${pathname}`, {
            method: 'POST',
            dispatcher: this.agent,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': `rampdesk/${pkg.version}` },
            body: JSON.stringify(body),
            signal: this.controller.signal
          }),
        neverReachedHub
      )
    } catch (f) {
      const { cause, base } = f as HubFailure
      throw Object.assign(new Error(this.unreachable(cause, base)), { kind: 'hub_unreachable', retryable: true })
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
    if (!refused) this.refusedReason = null
    this.connected = connected
    this.lastError = error
    if (changed) this.o.onState?.(connected, error)
  }

  /**
   * The token was renewed (a session from the identity provider): the hub closes a stream
   * opened with the old one, so it is opened again with the new one at once, and the windows
   * never see the line drop.
   */
  tokenRenewed(): void {
    if (!this.streamAbort) return
    this.moving = true
    this.streamAbort.abort()
  }

  /** Whether the stream that ended was opened with a token since renewed: it is opened again at once, not reported dropped. */
  private async renewedSince(token: string): Promise<boolean> {
    if (!this.running) return false
    const now = await this.o.token().catch(() => null)
    if (now === null || now === token) return false
    this.moving = true
    return true
  }

  /** The hub ended this desktop's sign-in: refused like a revoked token, with the hub's words, until a new sign-in. */
  private signOut(e: Error): void {
    this.refusedReason = 'signed-out'
    this.setState(false, e.message, true)
  }

  private async run(): Promise<void> {
    const min = this.o.minRetryMs ?? 500
    const max = this.o.maxRetryMs ?? 10_000
    let pause = min
    /** Hubs in a row that did not answer the stream: once each was tried, pause. */
    let silent = 0
    while (this.running) {
      let failure: HubFailure | null = null
      const opened = await this.streamOnce().catch((e: unknown) => {
        if (e instanceof HubFailure) failure = e
        else this.setState(false, e instanceof Error ? e.message : String(e))
        return false
      })
      if (!this.running) break
      if (this.moving) {
        // A call moved to another hub: the stream follows at once.
        this.moving = false
        silent = 0
        continue
      }
      if (failure !== null) {
        const f: HubFailure = failure
        silent++
        if (this.bases.length > 1) this.use((this.current + 1) % this.bases.length)
        if (silent < this.bases.length) continue
        this.setState(false, this.unreachable(f.cause, f.base))
      }
      silent = 0
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

  /**
   * One connection to the hub in use: resolves when it ends, true when it had opened; throws
   * a HubFailure when the hub did not answer, anything else when no request could be made.
   */
  private async streamOnce(): Promise<boolean> {
    let token: string
    try {
      token = await this.o.token()
    } catch (e) {
      if (!signedOut(e)) throw e
      this.signOut(e)
      return false
    }
    const base = this.hubUrl
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      'user-agent': `rampdesk/${pkg.version}`
    }
    if (this.lastId !== null) headers['last-event-id'] = String(this.lastId)
    const abort = new AbortController()
    this.streamAbort = abort
    this.streamBase = base
    try {
      return await this.readStream(base, headers, abort.signal, token)
    } finally {
      this.streamAbort = null
      this.streamBase = null
    }
  }

  private async readStream(base: string, headers: Record<string, string>, moved: AbortSignal, token: string): Promise<boolean> {
    let r: Dispatcher.ResponseData
    try {
      r = await request(`${base}/events`, {
        method: 'GET',
        dispatcher: this.agent,
        headers,
        // The hub answers a stream's headers at once: one that does not has stopped answering.
        headersTimeout: this.o.streamHeadersTimeoutMs ?? 10_000,
        bodyTimeout: this.o.idleTimeoutMs ?? 45_000,
        signal: AbortSignal.any([this.controller.signal, moved])
      })
    } catch (e) {
      if (moved.aborted) return false
      throw Object.assign(new HubFailure(e), { base })
    }
    if (r.statusCode !== 200) {
      const text = await r.body.text().catch(() => '')
      let message = `the team hub at ${base} refused the event stream (HTTP ${r.statusCode})`
      let error: unknown = null
      try {
        error = (JSON.parse(text) as { error: unknown }).error
        message = (error as { message: string }).message
      } catch {
        // keep the generic text
      }
      // A session's access token refused: renewed once, and the stream opened again at once with the new one.
      if (tokenRefused(r.statusCode, error) && this.running) {
        const renewed = await this.renewedPast(token)
        if (renewed.kind === 'ended') return false
        if (renewed.kind === 'token') {
          this.moving = true
          return false
        }
        if (renewed.kind === 'unavailable') {
          this.setState(false, renewed.envelope.ok ? message : renewed.envelope.error.message)
          return false
        }
      }
      if (tokenRefused(r.statusCode, error)) {
        const reason = (error as { reason?: unknown }).reason
        this.refusedReason = reason === 'expired' || reason === 'replaced' ? reason : null
        this.setState(false, `the team hub refused this operator token: ${message}`, true)
      } else this.setState(false, message)
      return false
    }
    this.tokenWorked(token)
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
      if (!(await this.renewedSince(token))) this.setState(false, `the team hub at ${base} closed the event stream`)
    } catch (e) {
      if (this.running && !moved.aborted && !(await this.renewedSince(token)))
        this.setState(false, `the event stream from ${base} broke (${(e as Error).message})`)
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

/** A hub that did not answer, and which one. */
class HubFailure extends Error {
  base = ''
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause))
    this.name = 'HubFailure'
  }
}

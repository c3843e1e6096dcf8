// GET /events: one operator's Server-Sent Events stream, bounded so that one operator
// cannot slow the others down. A desktop that reconnects names the last event id it saw
// (Last-Event-ID) and is sent the order changes it missed, from the database:
//   - in batches of REPLAY_BATCH events, yielding to the event loop between batches and
//     waiting for the socket to drain when the desktop reads slowly, so a replay never
//     holds the hub in one synchronous run;
//   - each batch paid from that operator's request budget (the hub's per-operator rate cap);
//   - at most one replaying stream per operator at a time (another is refused 429 with
//     Retry-After, and the desktop reconnects by itself);
//   - a desktop more than MAX_REPLAY events behind (or ahead: a restored database) is sent a
//     `resync` event carrying the newest id instead: it reloads what it shows, which costs
//     the hub one query per view rather than an unbounded replay.
// Live events that arrive during a replay are held and sent after it, so none falls between.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Hub, HubEvent } from './hub'
import type { Operator } from './operators'
import type { RateCap } from './rate-cap'
import type { AnswerFilter } from './answer-filter'

/**
 * A reconnecting desktop is sent the order changes after the id it names, starting this
 * many ids earlier: the monitor emits a page's first sightings before its transitions, so
 * ids can reach a desktop slightly out of order. The desktop drops ids it already has.
 */
export const REPLAY_OVERLAP = 1000
/** The most order changes a reconnecting desktop is sent; one further behind gets `resync`. */
export const MAX_REPLAY = 10_000
/** Events read and written per step of a replay. */
export const REPLAY_BATCH = 250
/** A replay whose desktop reads nothing for this long is given up (the stream is closed; it reconnects). */
export const REPLAY_STALL_MS = 20_000
/** Live events held while a replay runs before the stream is cut (it reconnects). */
const MAX_HELD = 20_000
const PING_MS = 15_000

export interface StreamDeps {
  hub: Pick<Hub, 'shapeFor' | 'replayPage' | 'latestEventId' | 'subscribe' | 'operatorLeft'>
  rateCap: Pick<RateCap, 'take'>
  /** Operators with a replay running now (shared by every stream of the server). */
  replaying: Set<string>
  /** Bytes buffered for a stream that does not read before it is cut. */
  maxBacklog: number
  onClose(stream: OpenStream): void
  /** A second replay of the operator was refused (429). */
  onRefused?(): void
  /** What the operator's role may see of each event's payload (answer-filter.ts); all of it when absent. */
  filter?: AnswerFilter
}

export interface OpenStream {
  operator: string
  tokenHash: string
  close(): void
}

/** What a Last-Event-ID asks of the hub. */
export type Resume = { kind: 'live' } | { kind: 'replay'; after: number } | { kind: 'resync'; latest: number }

export function resumeOf(lastEventId: string | string[] | undefined, latest: number): Resume {
  const raw = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId
  if (raw === undefined || !/^\d{1,15}$/.test(raw.trim())) return { kind: 'live' }
  const last = Number(raw.trim())
  if (last > latest || latest - last > MAX_REPLAY) return { kind: 'resync', latest }
  return { kind: 'replay', after: Math.max(0, last - REPLAY_OVERLAP) }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())

/**
 * Opens the stream for an operator already authenticated; answers 429 itself when the
 * operator already has a replay running. Returns null when refused.
 */
export function openEventStream(op: Operator, req: IncomingMessage, res: ServerResponse, d: StreamDeps): OpenStream | null {
  const resume = resumeOf(req.headers['last-event-id'], d.hub.latestEventId())
  if (resume.kind === 'replay' && d.replaying.has(op.name)) {
    d.onRefused?.()
    const text = JSON.stringify({
      ok: false,
      error: {
        kind: 'rate_limited',
        message: `${op.name} already has an event stream catching up; this one will reconnect in a moment`,
        retryable: true
      }
    })
    res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'retry-after': '2' })
    res.end(text)
    return null
  }
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // nginx: do not buffer the stream.
    'X-Accel-Buffering': 'no'
  })
  res.write(`retry: 2000\n: rampdesk hub events for ${op.name}\n\n`)

  let open = true
  let held: HubEvent[] | null = resume.kind === 'replay' ? [] : null
  let newest = -1
  const stream: OpenStream = {
    operator: op.name,
    tokenHash: op.tokenHash,
    close() {
      if (!open) return
      open = false
      res.end()
    }
  }
  const write = (e: HubEvent): void => {
    if (!open) return
    const shaped = d.hub.shapeFor(op.name, e)
    if (!shaped) return
    if (shaped.id !== null) newest = Math.max(newest, shaped.id)
    const payload = d.filter ? d.filter(shaped.payload) : shaped.payload
    res.write(`${shaped.id !== null ? `id: ${shaped.id}\n` : ''}event: ${shaped.event}\ndata: ${JSON.stringify(payload)}\n\n`)
    // A desktop that stopped reading is cut off rather than buffered without end; it replays on reconnect.
    if (res.writableLength > d.maxBacklog) stream.close()
  }
  const unsubscribe = d.hub.subscribe((e) => {
    if (!held) return write(e)
    held.push(e)
    if (held.length > MAX_HELD) stream.close()
  })
  if (resume.kind === 'resync') {
    res.write(`id: ${resume.latest}\nevent: resync\ndata: ${JSON.stringify({ latestId: resume.latest })}\n\n`)
  }
  const ping = setInterval(() => open && res.write(': ping\n\n'), PING_MS)
  ping.unref()
  res.on('close', () => {
    open = false
    clearInterval(ping)
    unsubscribe()
    d.onClose(stream)
  })

  if (resume.kind === 'replay') {
    d.replaying.add(op.name)
    void replay(resume.after)
      .catch(() => stream.close())
      .finally(() => d.replaying.delete(op.name))
  }

  async function replay(after: number): Promise<void> {
    let cursor = after
    while (open) {
      // Paid from the operator's own budget: a replay loop spends their requests, nobody else's.
      for (let wait = d.rateCap.take(op.name); wait > 0 && open; wait = d.rateCap.take(op.name)) await sleep(wait)
      if (!open) return
      const page = d.hub.replayPage(cursor, REPLAY_BATCH)
      for (const e of page.events) write(e)
      if (page.next === null) break
      cursor = page.next
      if (res.writableNeedDrain && !(await drained(res, REPLAY_STALL_MS))) {
        // The desktop stopped reading in the middle of its replay: let go (it resumes from what it has).
        stream.close()
        return
      }
      await yieldToLoop()
    }
    // What happened meanwhile, once, in order (ids already replayed are dropped).
    const meanwhile = held ?? []
    held = null
    for (const e of meanwhile) if (e.id === null || e.id > newest) write(e)
  }
  return stream
}

/** Resolves true once the response drains, false when it closes or `ms` pass first. */
function drained(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      clearTimeout(timer)
      res.off('drain', onDrain)
      res.off('close', onClose)
      resolve(ok)
    }
    const onDrain = done(true)
    const onClose = done(false)
    const timer = setTimeout(onClose, ms)
    res.once('drain', onDrain)
    res.once('close', onClose)
  })
}

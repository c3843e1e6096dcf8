// The alert hooks an admin set and what they were sent, in the hub's store (hub.db or the
// PostgreSQL database its hubs share): the same statements on either, through a small query
// interface each store gives (`?` placeholders; PostgreSQL's are numbered for it).
//   alert_hooks          the hooks: URL, format, the JSON format's signing secret
//   alert_episodes       one row per alert id: raised or cleared, and how many times raised.
//                        Raising is a conditional upsert, so however many hubs and restarts
//                        see an alert, one episode is opened per time it stands.
//   alert_hook_messages  one message per hook, alert, episode and event (unique): what makes
//                        "sent once until it clears" hold across restarts and hubs
//   alert_hook_attempts  every attempt at a message, with the receiver's answer
import { nextAfter } from '../kept/kept-delivery'
import type { HookEvent, HookFormat } from './hook-bodies'

export type HookValue = string | number | null

/** The queries a store answers, with `?` placeholders; `all` also runs writes with RETURNING. */
export interface HookSql {
  all<T>(text: string, params: HookValue[]): Promise<T[]>
  /** The rows a write changed. */
  run(text: string, params: HookValue[]): Promise<number>
}

export interface AlertHook {
  id: number
  url: string
  format: HookFormat
  /** The JSON format's signing secret (never shown, never logged). */
  secret: string | null
  createdAt: number
  createdBy: string
}

export interface RaisedEpisode {
  alertId: string
  episode: number
  /** The alert as it was when raised (JSON), for the message that says it cleared. */
  alert: string
}

export interface HookMessageInput {
  hookId: number
  alertId: string
  episode: number
  event: HookEvent
  body: string
  at: number
}

/** A message claimed for an attempt. */
export interface HookJob {
  id: number
  hookId: number
  alertId: string
  event: HookEvent
  body: string
  attempts: number
  createdAt: number
}

export interface HookAttempt {
  at: number
  hub: string
  httpStatus: number | null
  answer: string
  ms: number
}

export type HookMessageState = 'waiting' | 'sending' | 'delivered' | 'failed'

/** What a message does after an attempt: done, wait and try again, or give up. */
export type HookNext = { kind: 'delivered' } | { kind: 'waiting'; nextAt: number } | { kind: 'failed'; why: string }

export interface HookMessageRow {
  id: number
  hookId: number
  alertId: string
  event: HookEvent
  state: HookMessageState
  attempts: number
  createdAt: number
  finishedAt: number | null
  lastAnswer: string | null
}

export interface HookAttemptRow extends HookAttempt {
  messageId: number
}

/** How long a failing message is tried again: an alert older than this is news no more. */
export const HOOK_RETRY_WINDOW_MS = 60 * 60_000
/** A claim on a message lasts this long: a hub killed mid-send frees it when it runs out. */
export const HOOK_CLAIM_MS = 30_000

/** The next step after an attempt that ended at `now`: the relay's back-off (1 s, 2 s, 4 s ... 30 s), within the hour. */
export function hookNextAfter(job: Pick<HookJob, 'attempts' | 'createdAt'>, a: Pick<HookAttempt, 'httpStatus'>, now: number): HookNext {
  return nextAfter({ attempts: job.attempts, windowFrom: job.createdAt }, a, now, HOOK_RETRY_WINDOW_MS)
}

const n = (v: unknown): number => Number(v)
const nOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

type MessageRowDb = {
  id: unknown
  hook_id: unknown
  alert_id: string
  event: HookEvent
  state: HookMessageState
  attempts: unknown
  created_at: unknown
  finished_at: unknown
  last_answer: string | null
}

/** Messages due: waiting and due, or claimed by a hub whose claim ran out; never before an earlier one of the same hook and alert. */
const DUE = `((m.state = 'waiting' AND m.next_at <= ?) OR (m.state = 'sending' AND m.claim_until < ?))
  AND NOT EXISTS (SELECT 1 FROM alert_hook_messages p
                   WHERE p.hook_id = m.hook_id AND p.alert_id = m.alert_id AND p.id < m.id AND p.state IN ('waiting', 'sending'))`

export class AlertHookStore {
  constructor(private readonly db: HookSql) {}

  async addHook(h: Omit<AlertHook, 'id'>): Promise<AlertHook> {
    const [row] = await this.db.all<{ id: unknown }>(
      'INSERT INTO alert_hooks (url, format, secret, created_at, created_by) VALUES (?, ?, ?, ?, ?) RETURNING id',
      [h.url, h.format, h.secret, h.createdAt, h.createdBy]
    )
    return { ...h, id: n(row!.id) }
  }

  async hooks(): Promise<AlertHook[]> {
    const rows = await this.db.all<{
      id: unknown
      url: string
      format: HookFormat
      secret: string | null
      created_at: unknown
      created_by: string
    }>('SELECT id, url, format, secret, created_at, created_by FROM alert_hooks ORDER BY id', [])
    return rows.map((r) => ({
      id: n(r.id),
      url: r.url,
      format: r.format,
      secret: r.secret,
      createdAt: n(r.created_at),
      createdBy: r.created_by
    }))
  }

  /** Removes a hook; what it had still to send is given up. Answers whether there was one. */
  async removeHook(id: number, at: number): Promise<boolean> {
    const gone = await this.db.run('DELETE FROM alert_hooks WHERE id = ?', [id])
    await this.db.run(
      `UPDATE alert_hook_messages SET state = 'failed', finished_at = ?, last_answer = 'the hook was removed'
        WHERE hook_id = ? AND state IN ('waiting', 'sending')`,
      [at, id]
    )
    return gone > 0
  }

  async raisedEpisodes(): Promise<RaisedEpisode[]> {
    const rows = await this.db.all<{ alert_id: string; episode: unknown; alert_json: string }>(
      "SELECT alert_id, episode, alert_json FROM alert_episodes WHERE state = 'raised'",
      []
    )
    return rows.map((r) => ({ alertId: r.alert_id, episode: n(r.episode), alert: r.alert_json }))
  }

  /** Opens a new episode of an alert that was not standing: its number, or null when it already stood. */
  async raise(alertId: string, alert: string, at: number): Promise<number | null> {
    const rows = await this.db.all<{ episode: unknown }>(
      `INSERT INTO alert_episodes (alert_id, episode, state, alert_json, changed_at) VALUES (?, 1, 'raised', ?, ?)
       ON CONFLICT (alert_id) DO UPDATE SET episode = alert_episodes.episode + 1, state = 'raised',
         alert_json = excluded.alert_json, changed_at = excluded.changed_at
       WHERE alert_episodes.state = 'cleared'
       RETURNING episode`,
      [alertId, alert, at]
    )
    return rows.length ? n(rows[0]!.episode) : null
  }

  /** Closes an episode: true for the one caller that closed it. */
  async clear(alertId: string, episode: number, at: number): Promise<boolean> {
    return (
      (await this.db.run(
        "UPDATE alert_episodes SET state = 'cleared', changed_at = ? WHERE alert_id = ? AND episode = ? AND state = 'raised'",
        [at, alertId, episode]
      )) > 0
    )
  }

  /** The hooks each standing episode's 'raised' message was queued for ("hookId alertId"). */
  async raisedQueued(): Promise<Set<string>> {
    const rows = await this.db.all<{ hook_id: unknown; alert_id: string }>(
      `SELECT m.hook_id, m.alert_id FROM alert_hook_messages m
         JOIN alert_episodes e ON e.alert_id = m.alert_id AND e.episode = m.episode AND e.state = 'raised'
        WHERE m.event = 'raised'`,
      []
    )
    return new Set(rows.map((r) => `${n(r.hook_id)} ${r.alert_id}`))
  }

  /** The hooks an episode's 'raised' message went to (its 'cleared' follows only there). */
  async raisedTo(alertId: string, episode: number): Promise<number[]> {
    const rows = await this.db.all<{ hook_id: unknown }>(
      "SELECT hook_id FROM alert_hook_messages WHERE alert_id = ? AND episode = ? AND event = 'raised'",
      [alertId, episode]
    )
    return rows.map((r) => n(r.hook_id))
  }

  /** Queues a message once: its id, or null when this hook, alert, episode and event had one. */
  async enqueue(m: HookMessageInput): Promise<number | null> {
    const rows = await this.db.all<{ id: unknown }>(
      `INSERT INTO alert_hook_messages (hook_id, alert_id, episode, event, body, state, created_at, next_at)
       VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?)
       ON CONFLICT (hook_id, alert_id, episode, event) DO NOTHING RETURNING id`,
      [m.hookId, m.alertId, m.episode, m.event, m.body, m.at, m.at]
    )
    return rows.length ? n(rows[0]!.id) : null
  }

  /** Claims up to `limit` due messages for this hub, oldest first (or this one message). */
  async claim(hub: string, limit: number, now: number, only?: number): Promise<HookJob[]> {
    const one = only === undefined ? '' : ' AND m.id = ?'
    const params: HookValue[] = only === undefined ? [] : [only]
    const rows = await this.db.all<{
      id: unknown
      hook_id: unknown
      alert_id: string
      event: HookEvent
      body: string
      attempts: unknown
      created_at: unknown
    }>(
      `UPDATE alert_hook_messages SET state = 'sending', claimed_by = ?, claim_until = ?
        WHERE id IN (SELECT m.id FROM alert_hook_messages m WHERE ${DUE}${one} ORDER BY m.id LIMIT ?)
          AND ((state = 'waiting' AND next_at <= ?) OR (state = 'sending' AND claim_until < ?))
        RETURNING id, hook_id, alert_id, event, body, attempts, created_at`,
      [hub, now + HOOK_CLAIM_MS, now, now, ...params, limit, now, now]
    )
    return rows
      .map((r) => ({
        id: n(r.id),
        hookId: n(r.hook_id),
        alertId: r.alert_id,
        event: r.event,
        body: r.body,
        attempts: n(r.attempts),
        createdAt: n(r.created_at)
      }))
      .sort((a, b) => a.id - b.id)
  }

  /** Records an attempt and what follows it, while this hub still holds the claim. */
  async settle(job: HookJob, a: HookAttempt, next: HookNext): Promise<void> {
    const state = next.kind
    await this.db.run(
      `UPDATE alert_hook_messages SET state = ?, attempts = attempts + 1, next_at = ?, finished_at = ?, last_answer = ?,
         claimed_by = NULL, claim_until = NULL
        WHERE id = ? AND state = 'sending' AND claimed_by = ?`,
      [
        state,
        next.kind === 'waiting' ? next.nextAt : null,
        next.kind === 'waiting' ? null : a.at,
        next.kind === 'failed' ? next.why : a.httpStatus === null ? a.answer : `HTTP ${a.httpStatus}`,
        job.id,
        a.hub
      ]
    )
    await this.db.run('INSERT INTO alert_hook_attempts (message_id, at, hub, http_status, answer, ms) VALUES (?, ?, ?, ?, ?, ?)', [
      job.id,
      a.at,
      a.hub,
      a.httpStatus,
      a.answer,
      Math.round(a.ms)
    ])
  }

  /** The latest messages, newest first (of one hook, or of all). */
  async messages(limit: number, hookId?: number): Promise<HookMessageRow[]> {
    const rows = await this.db.all<MessageRowDb>(
      `SELECT id, hook_id, alert_id, event, state, attempts, created_at, finished_at, last_answer FROM alert_hook_messages
        ${hookId === undefined ? '' : 'WHERE hook_id = ?'} ORDER BY id DESC LIMIT ?`,
      hookId === undefined ? [limit] : [hookId, limit]
    )
    return rows.map((r) => ({
      id: n(r.id),
      hookId: n(r.hook_id),
      alertId: r.alert_id,
      event: r.event,
      state: r.state,
      attempts: n(r.attempts),
      createdAt: n(r.created_at),
      finishedAt: nOrNull(r.finished_at),
      lastAnswer: r.last_answer
    }))
  }

  /** A message's attempts, oldest first. */
  async attempts(messageId: number): Promise<HookAttemptRow[]> {
    const rows = await this.db.all<{ message_id: unknown; at: unknown; hub: string; http_status: unknown; answer: string; ms: unknown }>(
      'SELECT message_id, at, hub, http_status, answer, ms FROM alert_hook_attempts WHERE message_id = ? ORDER BY id',
      [messageId]
    )
    return rows.map((r) => ({
      messageId: n(r.message_id),
      at: n(r.at),
      hub: r.hub,
      httpStatus: nOrNull(r.http_status),
      answer: r.answer,
      ms: n(r.ms)
    }))
  }
}

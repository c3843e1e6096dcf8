// What the hub has relayed to the merchant's receiver (--forward-to), so that it relays no
// delivery twice (issue 22, item 1): never the same signed payload again, never the same
// content again (the service's retries and resends renew only the attempt counters and the
// signature), and never the same order and status again inside the replay window, whoever
// posts it and however it is signed. Kept in hub.db, so a restarted hub (and, on one database, every hub)
// remembers.
//
// A relay claims its keys before it is sent. One that fails at every attempt gives them
// back, so that an operator's webhooks:resend can relay the order again at once; one that
// succeeded keeps them (the payload's for 30 days, the order's for the window).
import { createHash } from 'node:crypto'
import type { Sql } from '../main/store/database'
import { REPLAY_WINDOW_MS } from '../main/webhooks/replay-guard'

/** How long a relayed payload is remembered: as long as the delivery log keeps deliveries by default. */
export const RELAYED_PAYLOAD_MEMORY_MS = 30 * 24 * 60 * 60_000

export interface RelayClaimInput {
  payload: string
  /** The delivery's content without the attempt counters, canonical (relayContent). */
  content: string
  orderType: number | null
  orderId: number | null
  status: number | null
}

export type RelayClaim = { ok: true; keys: string[] } | { ok: false; reason: string }

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** Fields a retry or a resend of the same delivery renews (the service counts its attempts). */
const ATTEMPT_COUNTERS = new Set(['webhookTrials', 'trials'])

/** A verified JSON body as the ledger compares deliveries: without its attempt counters, members in order. */
export function relayContent(body: string): string {
  const value = JSON.parse(body) as Record<string, unknown>
  const kept = Object.keys(value)
    .filter((k) => !ATTEMPT_COUNTERS.has(k))
    .sort()
    .map((k) => [k, value[k]])
  return JSON.stringify(kept)
}

export interface RelayKey {
  key: string
  /** How long a relay of it is remembered. */
  span: number
  what: string
}

/** The keys one relay claims: its signed payload, its content, and its order's status. */
export function relayKeys(d: RelayClaimInput, windowMs: number): RelayKey[] {
  const keys: RelayKey[] = [
    { key: `payload:${sha256(d.payload)}`, span: RELAYED_PAYLOAD_MEMORY_MS, what: 'this signed payload' },
    { key: `content:${sha256(d.content)}`, span: RELAYED_PAYLOAD_MEMORY_MS, what: 'this delivery (the same content)' }
  ]
  if (d.orderId !== null && d.status !== null)
    keys.push({
      key: `order:${d.orderType ?? '?'}:${d.orderId}:${d.status}`,
      span: windowMs,
      what: `order ${d.orderId} status ${d.status}`
    })
  return keys
}

export const alreadyRelayed = (k: RelayKey, at: number, prev: number): RelayClaim => ({
  ok: false,
  reason: `${k.what} was already relayed ${Math.max(0, Math.round((at - prev) / 1000))} s ago`
})

export class RelayLedger {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
    private readonly windowMs = REPLAY_WINDOW_MS
  ) {}

  /** Claims the delivery's payload, content and order status for one relay; refused when any was relayed (or is being relayed). */
  claim(d: RelayClaimInput): RelayClaim {
    const at = this.now()
    const keys = relayKeys(d, this.windowMs)
    return this.sql.transaction((): RelayClaim => {
      for (const k of keys) {
        const prev = this.sql.value<number>('SELECT at FROM webhook_relays WHERE key = ?', k.key)
        if (prev !== undefined && at - prev < k.span) return alreadyRelayed(k, at, prev)
      }
      for (const k of keys)
        this.sql.run('INSERT INTO webhook_relays (key, at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET at = excluded.at', k.key, at)
      return { ok: true, keys: keys.map((k) => k.key) }
    })
  }

  /** A relay that reached nobody gives its keys back; one that was delivered keeps them. */
  settle(keys: readonly string[], delivered: boolean): void {
    if (delivered) return
    this.sql.transaction(() => {
      for (const k of keys) this.sql.run('DELETE FROM webhook_relays WHERE key = ?', k)
    })
  }

  /** Forgets what no claim can collide with any more. */
  prune(): number {
    const at = this.now()
    return this.sql.transaction(
      () =>
        this.sql.run("DELETE FROM webhook_relays WHERE key LIKE 'order:%' AND at < ?", at - this.windowMs).changes +
        this.sql.run("DELETE FROM webhook_relays WHERE key NOT LIKE 'order:%' AND at < ?", at - RELAYED_PAYLOAD_MEMORY_MS).changes
    )
  }
}

// Who handles an order and the notes operators add to it. Every claim, release, hand-over
// and note is a row of order_handling, oldest first; order_claims holds the current claim
// of each order, so the orders table marks and searches its handler without reading the
// log. On a live profile the desktop writes both; on a team hub they are the hubs' copy of
// the entries its backend holds (hub.db or PostgreSQL), each with the backend's id
// (source_id), so an entry applied twice is applied once.
import { ContractError, type ClaimInput, type OrderClaim, type OrderNote, type OrderType } from '../../shared/ipc/contract'
import type { Sql } from './sql'

export type HandlingKind = 'claim' | 'release' | 'hand' | 'note'

/** One change of who handles an order, or one note. */
export type HandlingEntry = {
  type: OrderType
  orderId: number
  /** Who did it. */
  actor: string
  at: number
} & ({ kind: 'claim' } | { kind: 'release' } | { kind: 'hand'; to: string } | { kind: 'note'; text: string })

/** What an entry changed: the order's claim after it, and the note it added. */
export interface HandlingChange {
  claim: OrderClaim | null
  note?: OrderNote
}

export const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * The entry an operator's claim input makes, or why it is refused: an order handled by
 * someone else is handed over by them or released first, not taken; releasing an order
 * nobody handles does nothing worth recording.
 */
export function claimEntry(current: OrderClaim | null, input: ClaimInput, actor: string, at: number): HandlingEntry {
  const ref = { type: input.type, orderId: input.orderId, actor, at }
  switch (input.action) {
    case 'claim':
      if (current && !sameName(current.operator, actor))
        throw new ContractError(
          'invalid_input',
          `${current.operator} is handling this order: they can hand it to you, or release it first (an operator may release it for them)`
        )
      return { ...ref, kind: 'claim' }
    case 'release':
      if (!current) throw new ContractError('invalid_input', 'Nobody is handling this order')
      return { ...ref, kind: 'release' }
    case 'hand':
      return { ...ref, kind: 'hand', to: input.to }
  }
}

interface HandlingDbRow {
  id: number
  source_id: number | null
  author: string
  at: number
  text: string
}

export class OrderClaimsRepo {
  constructor(private readonly sql: Sql) {}

  claim(type: OrderType, orderId: number): OrderClaim | null {
    const r = this.sql.get<{ operator: string; since: number }>(
      'SELECT operator, since FROM order_claims WHERE type = ? AND order_id = ?',
      type,
      orderId
    )
    return r ? { operator: r.operator, since: r.since } : null
  }

  /** The handlers of these orders of one type, by order id (orders nobody handles are left out). */
  handlers(type: OrderType, orderIds: readonly number[]): Map<number, string> {
    const out = new Map<number, string>()
    if (!orderIds.length) return out
    const rows = this.sql.all<{ order_id: number; operator: string }>(
      `SELECT order_id, operator FROM order_claims WHERE type = ? AND order_id IN (${orderIds.map(() => '?').join(',')})`,
      type,
      ...orderIds
    )
    for (const r of rows) out.set(r.order_id, r.operator)
    return out
  }

  /** The order's notes, oldest first. */
  notes(type: OrderType, orderId: number): OrderNote[] {
    return this.sql
      .all<HandlingDbRow>(
        "SELECT id, source_id, actor AS author, at, text FROM order_handling WHERE kind = 'note' AND type = ? AND order_id = ? ORDER BY at, id",
        type,
        orderId
      )
      .map(toNote)
  }

  /**
   * Records an entry and applies it to the order's claim. With the backend's id of the
   * entry (a hub's copy), an entry already recorded is not recorded again: null.
   */
  record(e: HandlingEntry, sourceId: number | null = null): HandlingChange | null {
    return this.sql.transaction(() => {
      if (sourceId !== null && this.sql.value<number>('SELECT 1 FROM order_handling WHERE source_id = ?', sourceId) === 1) return null
      const text = e.kind === 'note' ? e.text : null
      // Two operators may claim one order at the same moment on two hubs, each having seen it
      // free: the store's order decides, the same on every copy. The first claim stands and a
      // later one by somebody else changes nothing (it is kept in the history with the
      // handler it left in place, so the copy's position still moves past it).
      const holder = e.kind === 'claim' ? this.claim(e.type, e.orderId) : null
      const lost = holder !== null && !sameName(holder.operator, e.actor)
      const handler = lost ? holder.operator : e.kind === 'hand' ? e.to : e.kind === 'claim' ? e.actor : null
      const r = this.sql.run(
        'INSERT INTO order_handling (source_id, type, order_id, kind, actor, handler, text, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        sourceId,
        e.type,
        e.orderId,
        e.kind,
        e.actor,
        handler,
        text,
        e.at
      )
      if (e.kind === 'note')
        return {
          claim: this.claim(e.type, e.orderId),
          note: toNote({
            id: Number(r.lastInsertRowid),
            source_id: sourceId,
            author: e.actor,
            at: e.at,
            text: e.kind === 'note' ? e.text : ''
          })
        }
      if (lost) return null
      if (handler === null) this.sql.run('DELETE FROM order_claims WHERE type = ? AND order_id = ?', e.type, e.orderId)
      else {
        // A claim renewed by its holder keeps its "since"; a hand-over starts a new one.
        const held = this.claim(e.type, e.orderId)
        const since = held && sameName(held.operator, handler) ? held.since : e.at
        this.sql.run(
          'INSERT INTO order_claims (type, order_id, operator, since) VALUES (?, ?, ?, ?) ON CONFLICT (type, order_id) DO UPDATE SET operator = excluded.operator, since = excluded.since',
          e.type,
          e.orderId,
          handler,
          since
        )
      }
      return { claim: this.claim(e.type, e.orderId) }
    })
  }

  /** The newest backend id recorded (0: none): a hub's copy catches up from there. */
  lastSourceId(): number {
    return this.sql.value<number>('SELECT MAX(source_id) FROM order_handling') ?? 0
  }
}

/** A note's id is the backend's where it has one, the same on every hub's copy. */
const toNote = (r: HandlingDbRow): OrderNote => ({ id: r.source_id ?? r.id, author: r.author, at: r.at, text: r.text })

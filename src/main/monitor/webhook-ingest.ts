// The webhook fast path of the order monitor: a VERIFIED webhook's status applied at once
// to the order held under its id, but only when the body is that order. A verified
// signature vouches for the sender, not for the order: a dummy webhook (4.6) carries a
// made-up order under any id, and onramp and offramp number their orders apart. So the
// fields an order never changes (when it was created, its coin, chain and fiat, the wallet
// and the merchant's id for it) are compared with the order held first (sameOrder).
//
// - A whole record that agrees is applied (source 'webhook'); its later updatedAt is not
//   kept (the live notes call the body's updatedAt internal and due to go), and an older
//   one applies its status alone, to an order not yet terminal.
// - A body that is no whole record applies its status alone, to an order not yet terminal,
//   when the identity fields it gives agree; such a status does not stand over a history
//   snapshot of equal updatedAt (OrdersRepo), as a whole record's does. A body that gives no
//   identity field at all applies nothing: orderStatus is asked about the order at once.
// - An order not held is never created from a webhook: its scope is synced soon instead.
//
// The order is read once per webhook: the write starts from the copy held and answers the
// row it wrote, which the change's event carries (OrdersRepo.applyRecordOver).
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import { statusInfo } from '../../shared/domain/status'
import type { OrderType, StatusSource } from '../../shared/ipc/contract'
import type { StoredOrder, OrdersRepo, StatusChange, WebhookMatch } from '../store/orders-repo'
import { readIdentity, saysIdentity, type BodyIdentity } from '../webhooks/body-identity'
import type { WebhookOutcome, WebhookStatusOutcome } from '../webhooks/verified-orders'
import type { WatchClient } from './watches'

export type { WebhookOutcome, WebhookStatusOutcome } from '../webhooks/verified-orders'

export interface WebhookIngestOptions {
  client: Pick<WatchClient, 'orderStatus'>
  orders: Pick<OrdersRepo, 'get' | 'applyRecordOver' | 'applyStatusOver' | 'applyStatus'>
  /** The monitor's signal while it runs; null when stopped (nothing is asked then). */
  signal: () => AbortSignal | null
  /** Syncs soon the scopes of `type` (every scope when absent) that can hold `fiat` (any when absent). */
  syncSoon: (type?: OrderType, fiat?: number) => void
  /** A webhook named an order not held: look for its scope (of `fiat`, or every empty one of the type). */
  reveal: (type: OrderType, fiat: number | undefined) => void
  /** A status was written: the monitor's events (`written`: the order as the write left it, when the write answered it). */
  changed: (c: StatusChange, source: StatusSource, written?: StoredOrder) => void
}

export class WebhookIngest {
  /** orderStatus requests in flight, by `type:orderId` (one per order however many bodies come). */
  private readonly checks = new Map<string, Promise<void>>()

  constructor(private readonly o: WebhookIngestOptions) {}

  /** A whole record. `identity` is what its body said (default: read from the record, its createdAt zone unknown). */
  record(
    type: OrderType,
    record: OnrampOrder | OfframpOrder,
    identity: BodyIdentity = readIdentity(record as Record<string, unknown>)
  ): WebhookOutcome {
    const orders = this.o.orders
    const held = orders.get(type, record.orderId)
    if (!held) return this.unknown(type, identity)
    if (!sameOrder(held, identity)) return this.mismatch()
    // The body's updatedAt is the field the live notes say not to rely on: an older one
    // (a lagging internal field) does not hold the status back; the order's own stays. Its
    // own date says it is older than the snapshot held, so it does not stand over that
    // snapshot ('partial': history at the same updatedAt has the last word).
    if (record.updatedAt < held.updatedAt) return this.statusAlone(held, record.status, 'partial')
    // A later one is not kept as the order's, or every history answer after it would look
    // older and be set aside.
    const at = record.updatedAt > held.updatedAt ? { ...record, updatedAt: held.updatedAt } : record
    const outcome = orders.applyRecordOver(held, at, 'webhook')
    if (outcome.kind === 'status') this.o.changed(outcome.change, 'webhook', outcome.written)
    return outcome.kind === 'created' ? 'updated' : outcome.kind
  }

  /** A body that is no whole record: its order id and status, and the identity fields it gave. */
  status(type: OrderType, orderId: number, status: number, identity: BodyIdentity): WebhookStatusOutcome {
    const held = this.o.orders.get(type, orderId)
    if (!held) return this.unknown(type, identity)
    if (!saysIdentity(identity)) {
      // Nothing tells whether this is the order held: nothing is written, the service is asked.
      const nothing = this.unmoved(held, status)
      if (nothing) return nothing
      this.check(type, orderId)
      return 'checking'
    }
    if (!sameOrder(held, identity)) return this.mismatch()
    return this.statusAlone(held, status, 'partial')
  }

  /** Resolves when the orderStatus requests in flight have settled (the monitor's stop). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.checks.values()])
  }

  /** An order sync has not seen yet (dummy webhooks carry made-up orders): its scope is synced soon, not invented here. */
  private unknown(type: OrderType, identity: BodyIdentity): 'unknown' {
    this.o.syncSoon(type, identity.fiatType)
    this.o.reveal(type, identity.fiatType)
    return 'unknown'
  }

  /**
   * Another order under the same id: a dummy webhook's made-up order, or one of the other
   * type (a body without eventType is read by its fields). Nothing is written over the
   * order held; every scope is synced soon, where the real records come from.
   */
  private mismatch(): 'mismatch' {
    this.o.syncSoon()
    return 'mismatch'
  }

  /** Why a status alone would not move the order: already so, or terminal (nothing undated tells a late delivery from a newer one). */
  private unmoved(held: StoredOrder, status: number): 'unchanged' | 'stale' | null {
    if (held.status === status) return 'unchanged'
    return statusInfo(held.type, held.status).terminal ? 'stale' : null
  }

  private statusAlone(held: StoredOrder, status: number, match: WebhookMatch): 'status' | 'unchanged' | 'stale' {
    const nothing = this.unmoved(held, status)
    if (nothing) return nothing
    const r = this.o.orders.applyStatusOver(held, status, 'webhook', match)
    if (!r.change) return 'unchanged'
    this.o.changed(r.change, 'webhook', r.written)
    return 'status'
  }

  /** Asks orderStatus about the order now; if the service cannot say, its type's scopes are synced soon. */
  private check(type: OrderType, orderId: number): void {
    const signal = this.o.signal()
    const key = `${type}:${orderId}`
    if (!signal) return this.o.syncSoon(type)
    if (this.checks.has(key)) return
    const run = (async () => {
      try {
        const r = await this.o.client.orderStatus({ orderId, type }, { priority: 'background', signal })
        if (signal.aborted) return
        const applied = this.o.orders.applyStatus(type, orderId, r.orderStatus, 'watch')
        if (applied.change) this.o.changed(applied.change, 'watch')
      } catch {
        if (!signal.aborted) this.o.syncSoon(type)
      }
    })().finally(() => this.checks.delete(key))
    this.checks.set(key, run)
  }
}

/** What the order held says about itself that never changes (its fiat from its record: an attributed one is the scope's guess). */
export type HeldIdentity = Pick<StoredOrder, 'createdAt' | 'coinId' | 'chainId' | 'walletAddress' | 'merchantRecognitionId' | 'record'>

const SECOND = 1000
const QUARTER_HOUR = 15 * 60_000
const MAX_ZONE_OFFSET = 14 * 3_600_000

/**
 * Two instants a zone offset apart (up to ±14 h, in quarter hours: +05:30 and +05:45 are
 * offsets too), within a second: a zoneless time in the writer's local zone read as UTC.
 */
function zoneApart(ms: number): boolean {
  const d = Math.abs(ms)
  const r = d % QUARTER_HOUR
  return d <= MAX_ZONE_OFFSET + SECOND && (r <= SECOND || QUARTER_HOUR - r <= SECOND)
}

const fiatOf = (record: unknown): number | null => {
  const f = (record as { fiatType?: unknown }).fiatType
  return typeof f === 'number' && Number.isInteger(f) ? f : null
}

/**
 * Whether a webhook body is the order held under its id: no identity field both say
 * disagrees (coin, chain, the record's own fiat, the wallet in any case, the merchant's
 * id), and createdAt agrees to the second, or a zone offset apart when it was written
 * without a zone and another field agrees; a createdAt otherwise apart (one writer's
 * fractions, a clock) counts only when neither the wallet nor the merchant's id agrees.
 */
export function sameOrder(held: HeldIdentity, body: BodyIdentity): boolean {
  if (body.coinId !== undefined && body.coinId !== held.coinId) return false
  if (body.chainId !== undefined && body.chainId !== held.chainId) return false
  const heldFiat = fiatOf(held.record)
  if (body.fiatType !== undefined && heldFiat !== null && body.fiatType !== heldFiat) return false
  const wallet = agreement(held.walletAddress?.toLowerCase(), body.walletAddress?.toLowerCase())
  const merchantId = agreement(held.merchantRecognitionId, body.merchantRecognitionId)
  if (wallet === 'differ' || merchantId === 'differ') return false
  if (body.createdAt === undefined) return true
  const apart = Date.parse(body.createdAt) - Date.parse(held.createdAt)
  if (Number.isNaN(apart) || Math.abs(apart) <= SECOND) return true
  const another =
    wallet === 'agree' ||
    merchantId === 'agree' ||
    body.coinId !== undefined ||
    body.chainId !== undefined ||
    (body.fiatType !== undefined && heldFiat !== null)
  if (body.createdAtZoneless && another && zoneApart(apart)) return true
  return wallet === 'agree' || merchantId === 'agree'
}

function agreement(held: string | null | undefined, said: string | undefined): 'agree' | 'differ' | 'unsaid' {
  if (held === undefined || held === null || held === '' || said === undefined) return 'unsaid'
  return held === said ? 'agree' : 'differ'
}

// The hub's POST /webhook: the desktop inbox's receiver (verify, store, answer: the same
// code and the same rule of what is verified), every delivery pushed to desktops, a
// verified order applied to the hub's orders at once, and with --forward-to the relay to
// the merchant's receiver: only verified deliveries, each at most once (relay-ledger.ts),
// with only what the signature covers (webhook-relay.ts).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ProfileSession } from '../main/profile-session'
import { inboxRequestListener, ingestInto, type InboxRefusals, type WebhookRecord } from '../main/webhooks/inbox'
import type { WebhookDelivery } from '../shared/ipc/contract'
import type { WebhookDeliveryInput } from '../main/store/webhook-deliveries-repo'
import type { HubLog } from './hub-log'
import type { RelayOutcomeKind } from './hub-metrics'
import type { RefusalLog } from './refusal-log'
import { relayContent } from './relay-ledger'
import type { RelayLedgerStore } from './hub-store'
import { sourceOf } from '../main/webhooks/source-limits'
import { createWebhookRelay, type WebhookRelay } from './webhook-relay'

export interface HubWebhooksOptions {
  session: ProfileSession
  serviceName: string
  secret: () => Promise<string>
  /** The relay ledger: hub.db's, or the one the hubs on a PostgreSQL database share. */
  ledger: RelayLedgerStore
  log: HubLog
  refusals: RefusalLog
  forwardTo?: string
  now: () => number
  onDelivery(d: WebhookDelivery): void
  /** Applies a verified delivery's order (default: to this hub's monitor; a follower hands it to the leader). */
  ingest?(w: WebhookRecord, d: WebhookDelivery): unknown
  /** Each verified delivery's fate at the relay (with --forward-to), for the metrics. */
  onRelay?(outcome: RelayOutcomeKind): void
  /** Every delivery stored in this hub's log, for the log the hubs on one database share. */
  shareDelivery?(d: WebhookDeliveryInput): void
}

export interface HubWebhooks {
  handle(req: IncomingMessage, res: ServerResponse): void
  refusals(): InboxRefusals
  relay: WebhookRelay | null
  /** Prunes the relay ledger; call now and then. */
  sweep(): void
  close(): Promise<void>
}

const PRUNE_EVERY_MS = 60_000

/** Three quarters of the 256 KiB header limit of /webhook (front-door.ts): the payload header carries the body in base64. */
export const HUB_WEBHOOK_MAX_BODY_BYTES = 192 * 1024

/** The JSON body of a verified delivery as relayed: its value written out again (it equals the signed record). */
export function relayBody(body: string): string {
  return JSON.stringify(JSON.parse(body))
}

export function createHubWebhooks(o: HubWebhooksOptions): HubWebhooks {
  const { log, session } = o
  const relay = o.forwardTo ? createWebhookRelay({ target: o.forwardTo, serviceName: o.serviceName, log }) : null
  const { ledger } = o
  let prunedAt = -Infinity

  const counted = (outcome: RelayOutcomeKind) => o.onRelay?.(outcome)

  function relayIfDue(d: WebhookDelivery, req: IncomingMessage, what: string): void {
    if (!relay || !d.verified) return
    const fields = { orderId: d.orderId, status: d.status }
    void relayOnce(relay, d, req, what, fields).catch((e: unknown) =>
      log.error(`webhook relay of ${what}: ${e instanceof Error ? e.message : String(e)}`, fields)
    )
  }

  async function relayOnce(
    relay: WebhookRelay,
    d: WebhookDelivery,
    req: IncomingMessage,
    what: string,
    fields: { orderId: number | null; status: number | null }
  ): Promise<void> {
    // A duplicate of a delivery already received is still relayed if no relay of it got through
    // (the ledger forgets a relay that reached nobody): that is how a resend repairs a missed one.
    // The headers are read before the first await: the request is answered meanwhile.
    const headers = { ...req.headers }
    const claim = await ledger.claim({
      payload: d.payload,
      content: relayContent(d.body),
      orderType: d.orderType,
      orderId: d.orderId,
      status: d.status
    })
    if (!claim.ok) {
      counted('skipped_already_relayed')
      return log.info(`webhook relay of ${what} skipped: ${claim.reason}`, { ...fields, relay: 'skipped' })
    }
    const outcome = await relay.relay(headers, relayBody(d.body), what)
    counted(outcome.ok ? 'relayed' : 'failed')
    await ledger.settle(claim.keys, outcome.ok)
  }

  // One receiver for the hub's life: its replay window and per-source rate hold across requests.
  const listener = inboxRequestListener({
    serviceName: o.serviceName,
    // No larger body can equal a payload that fits the front door's header limit for /webhook.
    maxBodyBytes: HUB_WEBHOOK_MAX_BODY_BYTES,
    getSecret: o.secret,
    deliveries: {
      insert(d) {
        const stored = session.store.webhookDeliveries.insert(d)
        o.shareDelivery?.(d)
        return stored
      }
    },
    now: o.now,
    serviceNow: () => session.client.clock.now(),
    onVerified: (w, d) => (o.ingest ? o.ingest(w, d) : ingestInto(session.monitor, w, o.log)),
    onDelivery: (d, req) => {
      const what = d.orderId !== null ? `order ${d.orderId} status ${d.status ?? '?'}` : 'a delivery'
      const fields = { orderId: d.orderId, status: d.status, source: d.source, verified: d.verified }
      if (d.verified) {
        o.onDelivery(d)
        log.info(`webhook: ${what} from ${d.source}: ${d.reason}`, fields)
        return relayIfDue(d, req, what)
      }
      // Anyone can post junk: it is logged and pushed to desktops once per source a minute,
      // and counted after that (the delivery log keeps every one).
      const first = o.refusals.refused(sourceOf(req.socket.remoteAddress), 0, `POST /webhook (${what}): ${d.reason.slice(0, 200)}`)
      if (first) o.onDelivery(d)
    },
    onError: (e) => log.error(`webhook: ${e instanceof Error ? e.message : String(e)}`)
  })

  return {
    handle: (req, res) => listener(req, res),
    refusals: () => listener.refusals(),
    relay,
    sweep() {
      if (o.now() - prunedAt < PRUNE_EVERY_MS) return
      prunedAt = o.now()
      void Promise.resolve()
        .then(() => ledger.prune())
        .catch((e: unknown) => log.error(`pruning the relay ledger failed: ${e instanceof Error ? e.message : String(e)}`))
    },
    close: async () => {
      await relay?.close()
    }
  }
}

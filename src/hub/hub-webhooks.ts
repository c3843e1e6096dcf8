// The hub's POST /webhook: the desktop inbox's receiver (verify, store, answer: the same
// code and the same rule of what is verified), with one rule of its own: a verified delivery
// is answered 2xx only once it is kept, in the store or the spool (kept/delivery-keeper.ts);
// otherwise 503, and the service sends it again. Every delivery is pushed to desktops; the
// leader applies each kept delivery's order; with --forward-to, the relay sends each kept
// delivery on, byte for byte, from the store (kept/relay-worker.ts).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ProfileSession } from '../main/profile-session'
import { inboxRequestListener, type InboxRefusals, type KeepRequest, type WebhookRecord } from '../main/webhooks/inbox'
import { headerValue } from '../main/webhooks/delivery-verdict'
import type { WebhookDelivery } from '../shared/ipc/contract'
import type { WebhookDeliveryInput } from '../main/store/webhook-deliveries-repo'
import type { HubLog } from './hub-log'
import type { RelayOutcomeKind } from './hub-metrics'
import type { RefusalLog } from './refusal-log'
import { relaySender } from './webhook-relay'
import { redactText } from '../main/logging/redact'
import { contentKeyOf, type KeepOutcome, type KeptDelivery } from './kept/kept-delivery'
import type { KeptStore } from './kept/kept-store'
import { DeliveryKeeper, type Kept } from './kept/delivery-keeper'
import { DeliverySpool } from './kept/delivery-spool'
import { startRelayWorker, type RelayWorker } from './kept/relay-worker'
import { applyKept } from './kept/kept-applier'

export interface HubWebhooksOptions {
  session: ProfileSession
  serviceName: string
  secret: () => Promise<string>
  /** Where verified deliveries are kept: hub.db's table, or the one the hubs on a PostgreSQL database share. */
  store: KeptStore
  /** The spool's directory, on this hub's own disk. */
  spoolDir: string
  spoolMaxBytes?: number
  /** This hub's id, stable across its restarts. */
  hubId: string
  /** A request's sender as its per-source limits count it (the forwarded client behind a trusted proxy). */
  sourceOf(req: IncomingMessage): string
  log: HubLog
  refusals: RefusalLog
  forwardTo?: string
  now: () => number
  /** Whether this hub applies orders now (it leads). */
  leads(): boolean
  /** Applies a verified delivery's order to this hub's monitor. */
  apply(w: WebhookRecord): unknown
  onDelivery(d: WebhookDelivery): void
  /** Each verified delivery's fate at the relay (with --forward-to), for the metrics. */
  onRelay?(outcome: RelayOutcomeKind): void
  /** Where each verified delivery was kept, or that it could not be. */
  onKept?(where: 'store' | 'spool' | 'refused'): void
  /** Every unverified delivery, for the log the hubs on one database share (verified ones are written with their keep). */
  shareDelivery?(d: WebhookDeliveryInput): void
}

export interface HubWebhooks {
  handle(req: IncomingMessage, res: ServerResponse): void
  refusals(): InboxRefusals
  /** The relay's receiver as it may be shown, or null without --forward-to. */
  relayTarget: string | null
  relay: RelayWorker | null
  keeper: DeliveryKeeper
  /** Leader: applies the orders of kept deliveries no hub has applied yet. */
  applyPending(): Promise<number>
  /** Prunes what is kept past its memory; call now and then. */
  sweep(): void
  close(): Promise<void>
}

const PRUNE_EVERY_MS = 60 * 60_000

/** Three quarters of the 256 KiB header limit of /webhook (front-door.ts): the payload header carries the body in base64. */
export const HUB_WEBHOOK_MAX_BODY_BYTES = 192 * 1024

const what = (d: Pick<KeptDelivery, 'orderId' | 'status'>) =>
  d.orderId !== null ? `order ${d.orderId} status ${d.status ?? '?'}` : 'a delivery'
const ago = (now: number, since: number) => `${Math.max(0, Math.round((now - since) / 1000))} s ago`

export async function createHubWebhooks(o: HubWebhooksOptions): Promise<HubWebhooks> {
  const { log, session } = o
  const sender = o.forwardTo ? relaySender({ target: o.forwardTo, serviceName: o.serviceName }) : null
  let prunedAt = -Infinity

  /** What keeping did to a delivery's relay, said once in the log and counted. */
  function told(d: KeptDelivery, outcome: KeepOutcome): void {
    if (!sender) return
    const fields = { orderId: d.orderId, status: d.status, relay: 'skipped' }
    switch (outcome.relay) {
      case 'queued':
        return relay?.wake()
      case 'requeued':
        log.info(`webhook relay of ${what(d)}: the service sent it again after its relay had failed; relaying it again`, fields)
        return relay?.wake()
      case 'known':
        o.onRelay?.('skipped_already_relayed')
        return log.info(
          `webhook relay of ${what(d)} skipped: this delivery (the same content) was ${
            outcome.state === 'delivered' ? 'already relayed' : 'already kept for relay'
          } ${ago(o.now(), outcome.since)}`,
          fields
        )
      case 'skipped':
        o.onRelay?.('skipped_already_relayed')
        return log.info(
          `webhook relay of ${what(d)} skipped: ${what(d)} was already relayed or queued for relay ${ago(o.now(), outcome.since)}`,
          fields
        )
      case 'none':
        return
    }
  }

  const keeper = new DeliveryKeeper({
    store: o.store,
    spool: DeliverySpool.open(o.spoolDir, o.spoolMaxBytes),
    log,
    onKept: o.onKept,
    onDrained: (kept, batch) => kept.forEach((k, i) => told(batch[i]!, k.outcome))
  })
  const relay: RelayWorker | null = sender
    ? await startRelayWorker({ store: o.store, sender, hub: o.hubId, log, onOutcome: o.onRelay })
    : null

  function keptDelivery(k: KeepRequest): KeptDelivery {
    const name = o.serviceName.toLowerCase()
    const ua = k.req.headers['user-agent']
    return {
      contentKey: contentKeyOf(k.bytes.toString('utf8')),
      dedupeKey: k.input.dedupeKey ?? '',
      receivedAt: k.input.receivedAt ? Date.parse(k.input.receivedAt) : o.now(),
      hub: o.hubId,
      orderType: k.webhook.type,
      orderId: k.webhook.record.orderId,
      status: k.webhook.record.status,
      body: k.bytes.toString('base64'),
      headers: {
        'content-type': k.req.headers['content-type'] ?? 'application/json',
        'x-payload': headerValue(k.req, `x-${name}-payload`) ?? '',
        'x-signature': headerValue(k.req, `x-${name}-signature`) ?? '',
        'user-agent': typeof ua === 'string' ? ua : null
      },
      relay: sender !== null,
      log: k.input
    }
  }

  async function keep(k: KeepRequest): Promise<Kept> {
    const d = keptDelivery(k)
    try {
      const kept = await keeper.keep(d)
      if (kept.where === 'store') told(d, kept.outcome)
      return kept
    } catch (e) {
      log.error(`webhook: ${what(d)} was answered 503 (the service sends it again): ${(e as Error).message}`, {
        orderId: d.orderId,
        status: d.status
      })
      throw e
    }
  }

  // One receiver for the hub's life: its replay window and per-source rate hold across requests.
  const listener = inboxRequestListener({
    serviceName: o.serviceName,
    sourceOf: o.sourceOf,
    // No larger body can equal a payload that fits the front door's header limit for /webhook.
    maxBodyBytes: HUB_WEBHOOK_MAX_BODY_BYTES,
    getSecret: o.secret,
    deliveries: {
      insert(d) {
        const stored = session.store.webhookDeliveries.insert(d)
        if (!d.verified) o.shareDelivery?.(d)
        return stored
      }
    },
    keep,
    now: o.now,
    serviceNow: () => session.client.clock.now(),
    onVerified: (w, _d, kept) => {
      // A follower leaves the order to the leader, which applies what is kept.
      if (!o.leads()) return
      o.apply(w)
      const k = kept as Kept | undefined
      if (k?.where === 'store')
        void o.store
          .markApplied([k.id])
          .catch((e: unknown) => log.warn(`could not mark a webhook delivery applied: ${(e as Error).message}`))
    },
    onDelivery: (d, req) => {
      const label = d.orderId !== null ? `order ${d.orderId} status ${d.status ?? '?'}` : 'a delivery'
      const fields = { orderId: d.orderId, status: d.status, source: d.source, verified: d.verified }
      if (d.verified) {
        o.onDelivery(d)
        return log.info(`webhook: ${label} from ${d.source}: ${d.reason}`, fields)
      }
      // Anyone can post junk: it is logged and pushed to desktops once per source a minute,
      // and counted after that (the delivery log keeps every one).
      // The reason may quote the body's values (where it differs from the signed record): no
      // wallet address or payload in the log.
      const first = o.refusals.refused(o.sourceOf(req), 0, `POST /webhook (${label}): ${redactText(d.reason).slice(0, 200)}`)
      if (first) o.onDelivery(d)
    },
    onError: (e) => log.error(`webhook: ${e instanceof Error ? e.message : String(e)}`)
  })

  return {
    handle: (req, res) => listener(req, res),
    refusals: () => listener.refusals(),
    relayTarget: sender?.target ?? null,
    relay,
    keeper,
    applyPending: () =>
      applyKept(
        o.store,
        (w) => o.apply(w),
        (m) => log.warn(m)
      ),
    sweep() {
      if (o.now() - prunedAt < PRUNE_EVERY_MS) return
      prunedAt = o.now()
      void o.store.prune().catch((e: unknown) => log.error(`pruning the kept webhook deliveries failed: ${(e as Error).message}`))
    },
    close: async () => {
      await relay?.close()
      await keeper.close()
    }
  }
}

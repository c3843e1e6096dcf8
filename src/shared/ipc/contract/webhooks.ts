// The webhooks namespace: the merchant's webhook URL, dummy and resent webhooks, the local
// inbox and its delivery log, signature checks, and a team hub's relays to the merchant's receiver.
import { z } from 'zod'
import { ch, EpochMs, HttpUrl, none, OrderType } from './primitives'

/** Where a dummy webhook is sent: the URL given, or the local inbox. */
export const WebhookTarget = z.enum(['url', 'inbox'])
export type WebhookTarget = z.infer<typeof WebhookTarget>

export const WebhookDelivery = z.object({
  id: z.number().int(),
  receivedAt: EpochMs,
  source: z.string(),
  verified: z.boolean(),
  reason: z.string(),
  orderId: z.number().int().nullable(),
  orderType: OrderType.nullable(),
  status: z.number().int().nullable(),
  duplicate: z.boolean(),
  /** The x-<service>-payload header (its first 2 KiB when the delivery did not verify). */
  payload: z.string(),
  /** The whole body of a verified delivery; of any other, only its first 2 KiB (bodyTruncated). */
  body: z.string(),
  /** Bytes of the body as received. */
  bodyBytes: z.number().int().nonnegative(),
  /** SHA-256 (hex) of the whole body as received; null when it was refused unread. */
  bodySha256: z.string().nullable(),
  bodyTruncated: z.boolean(),
  /** How the signed payload was written, e.g. 'timestamp+body (compact)', 'body only'; null when it was never read. */
  payloadForm: z.string().nullable(),
  /** Refused as a replay: signed payload outside the replay window, or an exact repeat of one already accepted. */
  replay: z.boolean(),
  /** What the operator should know beyond the reason, e.g. a JSON body that differed from the signed payload. */
  notes: z.array(z.string())
})
export type WebhookDelivery = z.infer<typeof WebhookDelivery>

export const InboxStatus = z.object({
  enabled: z.boolean(),
  listening: z.boolean(),
  url: z.string().nullable(),
  warning: z.string().nullable(),
  error: z.string().nullable(),
  /** Requests refused before they were read (not in the delivery log): over the rate, over the socket cap, from a browser. */
  refused: z.object({ rate: z.number().int(), connections: z.number().int(), origin: z.number().int() })
})
export type InboxStatus = z.infer<typeof InboxStatus>

/**
 * Where one kept delivery's relay to the merchant's receiver stands (a team hub with
 * --forward-to). `none`: not relayed (no relay where it arrived, or the same order and status
 * went out moments before).
 */
export const RelayState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('waiting'), nextAt: EpochMs }),
  z.object({ kind: z.literal('sending'), hub: z.string(), until: EpochMs }),
  z.object({ kind: z.literal('delivered'), at: EpochMs }),
  z.object({ kind: z.literal('failed'), at: EpochMs, why: z.string() })
])
export type RelayState = z.infer<typeof RelayState>

/** One attempt to relay a delivery, as the receiver answered it. */
export const RelayAttempt = z.object({
  at: EpochMs,
  /** The hub that made it. */
  hub: z.string(),
  /** The receiver's HTTP status; null when it did not answer (refused, timed out). */
  httpStatus: z.number().int().nullable(),
  /** The receiver's answer (clipped), or why there was none. */
  answer: z.string(),
  ms: z.number()
})
export type RelayAttempt = z.infer<typeof RelayAttempt>

export const WebhookRelay = z.object({
  id: z.number().int(),
  orderType: OrderType.nullable(),
  orderId: z.number().int().nullable(),
  status: z.number().int().nullable(),
  receivedAt: EpochMs,
  attempts: z.number().int(),
  state: RelayState,
  lastAttempt: RelayAttempt.nullable()
})
export type WebhookRelay = z.infer<typeof WebhookRelay>

/** The relay queue in figures. */
export const RelayCounts = z.object({
  waiting: z.number().int(),
  sending: z.number().int(),
  failed: z.number().int(),
  /** When the oldest relay still waiting was received (null: none waits). */
  oldestWaitingAt: EpochMs.nullable()
})
export type RelayCounts = z.infer<typeof RelayCounts>

/** The team hub's relay to the merchant's receiver: where to, the queue, failed and waiting relays first. */
export const RelayQueue = z.object({
  /** The receiver as it may be shown (no credentials); null where nothing is relayed (a desktop, a hub without --forward-to). */
  target: z.string().nullable(),
  counts: RelayCounts,
  rows: z.array(WebhookRelay)
})
export type RelayQueue = z.infer<typeof RelayQueue>

export const webhooksChannels = {
  'webhooks:setUrl': ch(
    z.object({ url: HttpUrl }).strict(),
    z.object({
      message: z.string(),
      /** The URL it replaced as this app knew it (webhooks:lastUrl before the change); absent from a hub of an older version. */
      replaced: z.object({ url: z.string().nullable(), at: EpochMs.nullable() }).optional()
    }),
    "Set the merchant's webhook URL at the service; answers the URL it replaced, when this app set it"
  ),
  'webhooks:sendDummy': ch(
    z.object({ target: WebhookTarget, url: HttpUrl.optional() }).strict(),
    z.object({ message: z.string(), sentTo: z.string().nullable() }),
    'Ask the service to send a dummy webhook'
  ),
  'webhooks:resend': ch(
    z.object({ orderId: z.number().int().positive() }).strict(),
    z.object({ message: z.string() }),
    "Ask the service to resend one order's webhook"
  ),
  'webhooks:deliveries': ch(
    z.object({ offset: z.number().int().min(0), limit: z.number().int().min(1).max(500) }).strict(),
    z.object({ rows: z.array(WebhookDelivery), total: z.number().int() }),
    'The inbox log'
  ),
  'webhooks:verify': ch(
    z.object({ payload: z.string().min(1).max(1_048_576), signature: z.string().min(1).max(1024) }).strict(),
    z.object({ match: z.boolean(), reason: z.string(), decoded: z.unknown().nullable() }),
    'Check a payload and signature against the active secret (computed in main)'
  ),
  'webhooks:inbox': ch(none, InboxStatus, 'Local receiver status'),
  'webhooks:relays': ch(
    z.object({ limit: z.number().int().min(1).max(500) }).strict(),
    RelayQueue,
    "The team hub's relays to the merchant's receiver (--forward-to): failed and waiting first, then the newest"
  ),
  'webhooks:retryRelays': ch(
    z.object({ ids: z.array(z.number().int().positive()).min(1).max(500).optional() }).strict(),
    z.object({ queued: z.number().int() }),
    'Send failed relays again (these, or every failed one), with a new retry window'
  ),
  'webhooks:lastUrl': ch(
    none,
    z.object({ url: z.string().nullable(), at: EpochMs.nullable() }),
    'The webhook URL last set from this app on the active profile (from its audit log), if any'
  )
} as const

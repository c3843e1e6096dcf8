// The one IPC contract between the renderer and the main process: every channel with
// its input and output schema, and every event main pushes to windows. The preload
// exposes one method per channel on window.rampdesk; src/main/electron registers one
// handler per channel; the web harness serves the same channels over HTTP. Inputs are
// parsed in main before anything acts on them; outputs are typed by the same schemas.
import { z } from 'zod'
import { httpUrl } from '../http-url'
import { ExportFileName, ExportHeaders, OrderCheck } from './contract-orders'

export { ExportFileName, ExportHeaders, OrderCheck }

// ---------------------------------------------------------------- common pieces

const Dec = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string')
const IdNum = z.number().int().min(-1).max(2_147_483_647)
const IsoTime = z.string().datetime({ offset: true })
const EpochMs = z.number().int().nonnegative()
const HttpUrl = httpUrl()

/** 1 onramp (fiat to crypto), 2 offramp (crypto to fiat): the same status number means different things for each. */
export const OrderType = z.union([z.literal(1), z.literal(2)])
export type OrderType = z.infer<typeof OrderType>

/** One order: its type and id (ids are one sequence, but an id is only looked up under its type). */
export const OrderRef = z.object({ type: OrderType, orderId: z.number().int() })
export type OrderRef = z.infer<typeof OrderRef>

export const ProfileId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'invalid profile id')
export type ProfileId = z.infer<typeof ProfileId>

/** The order filter's status groups, in display order. */
export const StatusGroup = z.enum(['in progress', 'needs attention', 'completed', 'failed'])
export type StatusGroup = z.infer<typeof StatusGroup>

export const OrderSort = z.enum(['updatedAt:desc', 'updatedAt:asc', 'createdAt:desc', 'createdAt:asc', 'orderId:desc', 'orderId:asc'])
export type OrderSort = z.infer<typeof OrderSort>

/** Which shell serves the contract. */
export const ShellKind = z.enum(['electron', 'web', 'hub'])
export type ShellKind = z.infer<typeof ShellKind>

/** The windows that show tickers (the ticker polls only while one does). */
export const TickerView = z.enum(['main', 'tray'])
export type TickerView = z.infer<typeof TickerView>

/** Where a dummy webhook is sent: the URL given, or the local inbox. */
export const WebhookTarget = z.enum(['url', 'inbox'])
export type WebhookTarget = z.infer<typeof WebhookTarget>

/** What recorded a status change. */
export const StatusSource = z.enum(['sync', 'watch', 'webhook'])
export type StatusSource = z.infer<typeof StatusSource>

export const ErrorInfo = z.object({
  kind: z.string(),
  message: z.string(),
  endpoint: z.string().optional(),
  httpStatus: z.number().optional(),
  code: z.number().optional(),
  origin: z.enum(['budget', 'service']).optional(),
  nextSlotAt: z.number().optional(),
  path: z.string().optional(),
  skewMs: z.number().optional(),
  /** A quote refused out of bounds: the minimum and/or maximum the service's text named. */
  bounds: z.object({ minimum: z.string().optional(), maximum: z.string().optional(), unit: z.string().optional() }).optional(),
  retryable: z.boolean()
})
export type ErrorInfo = z.infer<typeof ErrorInfo>

/** team: the desktop of one operator of a team hub, which holds the merchant's secret and budget. */
export const ProfileKind = z.enum(['sandbox', 'live', 'team'])
export type ProfileKind = z.infer<typeof ProfileKind>

export const Profile = z.object({
  id: ProfileId,
  name: z.string().min(1).max(64),
  kind: ProfileKind,
  baseUrl: z.string(),
  /**
   * A team profile's other hubs (several hubs on one store), tried in order after baseUrl
   * when the hub in use stops answering. Absent or empty: baseUrl is the only hub.
   */
  fallbackUrls: z.array(z.string()).optional(),
  serviceName: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  apiKey: z.string().max(256)
})
export type Profile = z.infer<typeof Profile>

const ProfileName = z.string().trim().min(1).max(64)
/** The most hubs a team profile names beyond its baseUrl. */
export const MAX_FALLBACK_URLS = 7
const FallbackUrls = z.array(HttpUrl).max(MAX_FALLBACK_URLS)
const ServiceName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lowercase letters, digits and dashes')
const ApiKey = z.string().trim().max(256)

export const ProfileInput = z
  .object({
    name: ProfileName,
    /** A live profile's service, or a team profile's hub. */
    baseUrl: HttpUrl,
    /** A team profile's other hubs, tried in order when the one in use stops answering. */
    fallbackUrls: FallbackUrls.optional(),
    serviceName: ServiceName.default('service'),
    /** Required for a live profile; a team profile has none (the hub holds the merchant's key). */
    apiKey: ApiKey.default(''),
    kind: z.enum(['live', 'team']).default('live')
  })
  .strict()
  .refine((p) => p.kind !== 'live' || p.apiKey.length > 0, { message: 'required for a live profile', path: ['apiKey'] })
  .refine((p) => p.kind === 'team' || !p.fallbackUrls?.length, { message: 'only a team profile has other hubs', path: ['fallbackUrls'] })

/** No defaults: a field left out of a patch keeps its value. */
const ProfilePatch = z
  .object({ name: ProfileName, baseUrl: HttpUrl, fallbackUrls: FallbackUrls, serviceName: ServiceName, apiKey: ApiKey.min(1) })
  .partial()
  .strict()

/** A connection to test before it is saved: the profile's fields and the API secret (used for the test, never kept). */
export const ConnectionInput = z
  .object({
    baseUrl: HttpUrl,
    serviceName: ServiceName.default('service'),
    apiKey: ApiKey.min(1),
    secret: z.string().min(8).max(512)
  })
  .strict()
export type ConnectionInput = z.infer<typeof ConnectionInput>

/** What a failed connection test comes down to, in the operator's terms. */
export const ConnectionCause = z.enum([
  'network',
  'service_name',
  'not_the_service',
  'bad_key',
  'bad_signature',
  'forbidden',
  'clock',
  'rate_limited',
  'service_down',
  'other'
])
export type ConnectionCause = z.infer<typeof ConnectionCause>

export const ConnectionCheck = z.object({
  ok: z.boolean(),
  /** The step that failed: reaching the service (an unsigned call) or signing (a signed one); null when both passed. */
  step: z.enum(['reach', 'sign']).nullable(),
  cause: ConnectionCause.nullable(),
  /** What happened, what it means and what to do next, in plain words. */
  title: z.string(),
  explanation: z.string(),
  next: z.string(),
  latencyMs: z.number().nullable(),
  /** The service's clock minus this computer's, when an answer carried it. */
  clockSkewMs: z.number().nullable(),
  error: ErrorInfo.nullable()
})
export type ConnectionCheck = z.infer<typeof ConnectionCheck>

export const SecretBackend = z.enum(['keychain', 'safeStorage', 'plaintext', 'none'])
export type SecretBackend = z.infer<typeof SecretBackend>

/** How long the webhook delivery log is kept unless the operator says otherwise. */
export const DELIVERY_LOG_DEFAULTS = { keepDays: 30, keepDeliveries: 10_000 } as const

const inboxFields = {
  enabled: z.boolean(),
  host: z.string().min(1).max(255),
  port: z.number().int().min(0).max(65535),
  /** Deliveries last received longer ago than this are pruned. */
  keepDays: z.number().int().min(1).max(3650),
  /** At most this many deliveries are kept (the oldest are pruned). */
  keepDeliveries: z.number().int().min(100).max(1_000_000)
}

export const Settings = z.object({
  theme: z.enum(['system', 'light', 'dark']),
  startAtLogin: z.boolean(),
  historyPollSeconds: z.number().int().min(10).max(3600),
  watchPollSeconds: z.number().int().min(5).max(3600),
  tickerPollSeconds: z.number().int().min(6).max(3600),
  /** How far back the hourly reconcile reads history again end to end. */
  reconcileHours: z.number().int().min(1).max(168),
  /** Every open order's status is confirmed by the service at least this often (history, webhook or orderStatus). */
  freshnessMinutes: z.number().int().min(2).max(1440),
  /** The fiats the operator looks at first (listed first in filters and states); every fiat with orders is synced. */
  fiatTypes: z.array(IdNum).min(1).max(16),
  tickerFiat: IdNum,
  pinnedTickers: z.array(IdNum).max(32),
  notify: z.object({
    terminalSuccess: z.boolean(),
    terminalFailure: z.boolean(),
    needsAttention: z.boolean(),
    anyChange: z.boolean(),
    watchedOnly: z.boolean()
  }),
  allowPlaintextSecrets: z.boolean(),
  // Settings files from before keepDays/keepDeliveries existed get the defaults.
  inbox: z.object({
    ...inboxFields,
    keepDays: inboxFields.keepDays.default(DELIVERY_LOG_DEFAULTS.keepDays),
    keepDeliveries: inboxFields.keepDeliveries.default(DELIVERY_LOG_DEFAULTS.keepDeliveries)
  })
})
export type Settings = z.infer<typeof Settings>
/** A patch's inbox may name only the fields it changes: the rest are kept (AppSettings.update merges). */
export const SettingsPatch = Settings.extend({ inbox: z.object(inboxFields).partial() })
  .partial()
  .strict()
export type SettingsPatch = z.infer<typeof SettingsPatch>

const SyncStateFields = {
  type: OrderType,
  fiatType: IdNum,
  cursor: z.string().nullable(),
  lastSuccessAt: EpochMs.nullable(),
  lagMs: z.number().nullable(),
  lastError: ErrorInfo.nullable(),
  /** When the recent window was last read again end to end. */
  lastReconcileAt: EpochMs.nullable(),
  /**
   * Changes when this scope's sync writes orders to the local database (an order added,
   * or its status or content changed), and when the service restarts: a view showing
   * orders refetches when it changes, not on every state. A hub of an older version
   * leaves it out, and then every state counts as a change.
   */
  writeMark: z.string().optional()
}
/**
 * One scope's sync: waiting for its next run, or running with what the run does and how
 * far it got. The fields are those every version has sent; only their combinations are
 * held to what can be true (no mode without a run, no next run while one runs).
 */
export const SyncState = z.discriminatedUnion('running', [
  z.object({
    ...SyncStateFields,
    running: z.literal(false),
    nextRunAt: EpochMs.nullable(),
    mode: z.null(),
    progress: z.null()
  }),
  z.object({
    ...SyncStateFields,
    running: z.literal(true),
    nextRunAt: z.null(),
    /** What the run does: poll from the cursor, reconcile the recent window, or read everything again. */
    mode: z.enum(['poll', 'reconcile', 'full']),
    progress: z.object({ pages: z.number(), orders: z.number() })
  })
])
export type SyncState = z.infer<typeof SyncState>

/**
 * One (type, fiat type) the service may hold orders in: whether it was probed and holds
 * any (only those are synced), and whether the local copy was audited complete. fiatType
 * 0 stands for every fiat of the type, when the service was found not to filter by fiat.
 */
export const ScopeCoverage = z.object({
  type: OrderType,
  fiatType: IdNum,
  probe: z.enum(['unprobed', 'probing', 'active', 'empty', 'refused', 'failed']),
  probedAt: EpochMs.nullable(),
  nextProbeAt: EpochMs.nullable(),
  /** Orders held locally. */
  orders: z.number().int(),
  audit: z.object({
    state: z.enum(['unchecked', 'checking', 'complete', 'incomplete', 'repairing']),
    /** Orders the service holds, at the last check. */
    serviceOrders: z.number().int().nullable(),
    checkedAt: EpochMs.nullable(),
    nextAt: EpochMs.nullable(),
    /** The repair's read of the whole scope: pages done of pages. */
    repair: z.object({ page: z.number().int(), pages: z.number().int() }).nullable(),
    error: z.string().nullable(),
    /**
     * When the check in progress began (null: none running): a count not done within
     * AUDIT_OVERDUE_MS is shown as overdue, and given up at AUDIT_TIMEOUT_MS
     * (shared/domain/coverage-text.ts). A hub of an older version leaves it out.
     */
    startedAt: EpochMs.nullable().optional()
  }),
  error: z.string().nullable(),
  /**
   * An order of this scope was seen (a record listed in another scope, a verified webhook)
   * since its last answered probe: with the scope refused, orders there may be missing. A
   * hub of an older version leaves it out.
   */
  revealed: z
    .object({ at: EpochMs, by: z.enum(['record', 'webhook']) })
    .nullable()
    .optional()
})
export type ScopeCoverage = z.infer<typeof ScopeCoverage>

/** A reading of merchantHistory the sync relies on (docs/spec-readings.md), as this profile's service was found to read it. */
export const HistoryReadingInfo = z.object({
  key: z.string(),
  label: z.string(),
  value: z.string(),
  state: z.enum(['assumed', 'checked', 'contradicted']),
  at: EpochMs.nullable(),
  how: z.string()
})
export type HistoryReadingInfo = z.infer<typeof HistoryReadingInfo>

/** Every open order's status confirmed within the bound: how it stands. */
export const FreshnessInfo = z.object({
  boundMinutes: z.number().int(),
  open: z.number().int(),
  /** Open orders not confirmed within the bound. */
  stale: z.number().int(),
  /**
   * Open orders orderStatus failed for unconfirmableAfter times in a row with nothing
   * confirming them since: asked again in turn, shown as a gap of their own. A hub of an
   * older version leaves them out.
   */
  unconfirmable: z.number().int().optional(),
  unconfirmableAfter: z.number().int().optional(),
  oldestConfirmedAt: EpochMs.nullable(),
  lastSweepAt: EpochMs.nullable(),
  error: z.string().nullable()
})
export type FreshnessInfo = z.infer<typeof FreshnessInfo>

/**
 * Something the app knows it may be missing, in the operator's words. `hub`: a Team
 * profile's hub cannot be reached, so whether every order is here cannot be known (the
 * desktop says it; the hub's own gaps are the last it reported), or a hub that follows has
 * no recent report from the leading hub (the hub says it, before the leader's last gaps).
 */
export const CoverageGap = z.object({
  kind: z.enum(['unprobed', 'probe', 'audit', 'repair', 'reading', 'freshness', 'hub']),
  text: z.string(),
  type: OrderType.nullable(),
  fiatType: IdNum.nullable()
})
export type CoverageGap = z.infer<typeof CoverageGap>

/** Whether the local copy holds every order: scopes, readings, freshness, every known gap, and what checking them costs. */
export const Coverage = z.object({
  scopes: z.array(ScopeCoverage),
  readings: z.array(HistoryReadingInfo),
  freshness: FreshnessInfo,
  gaps: z.array(CoverageGap),
  /** merchantHistory and orderStatus requests spent in the last hour on probes, audits, reading checks and freshness. */
  spentLastHour: z.object({ probe: z.number().int(), audit: z.number().int(), reading: z.number().int(), freshness: z.number().int() }),
  /**
   * The latest error a scope's probe met and still stands (a missing secret, the service
   * down): before any scope is found there is no sync state to carry it, and the header's
   * notice names it from here. A hub of an older version leaves it out.
   */
  probeError: ErrorInfo.nullable().optional()
})
export type Coverage = z.infer<typeof Coverage>

export const BudgetEntry = z.object({
  endpoint: z.string(),
  limit: z.number(),
  usedInWindow: z.number(),
  queued: z.number(),
  nextSlotAt: EpochMs.nullable(),
  blockedUntil: EpochMs.nullable()
})
export type BudgetEntry = z.infer<typeof BudgetEntry>

export const OrderRow = z.object({
  type: OrderType,
  orderId: z.number().int(),
  status: z.number().int(),
  fiatType: z.number().int().nullable(),
  coinId: z.number().int(),
  chainId: z.number().int(),
  fiatAmount: Dec.nullable(),
  cryptoAmount: Dec.nullable(),
  walletAddress: z.string().nullable(),
  merchantRecognitionId: z.string().nullable(),
  referenceId: z.string().nullable(),
  transactionHash: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  firstSeenAt: EpochMs,
  lastChangedAt: EpochMs,
  watched: z.boolean(),
  /** When the service last confirmed the status, and how (a hub of an older version leaves them out). */
  statusConfirmedAt: EpochMs.nullable().optional(),
  statusConfirmedBy: z.enum(['history', 'webhook', 'orderStatus']).nullable().optional(),
  /**
   * orderStatus requests of the freshness sweep that failed in a row for this order with
   * nothing confirming its status since (0 when none), and when it was last asked: at
   * UNCONFIRMABLE_AFTER (shared/domain/coverage-text.ts) its status cannot be confirmed. A
   * hub of an older version leaves them out.
   */
  statusCheckFailures: z.number().int().optional(),
  statusCheckedAt: EpochMs.nullable().optional(),
  /**
   * When orderStatus answered that the service no longer has this order, which its history
   * no longer lists (the row is kept; the completeness audit counts it no more). Null or
   * absent: listed (a hub of an older version leaves it out).
   */
  goneAt: EpochMs.nullable().optional()
})
export type OrderRow = z.infer<typeof OrderRow>

export const TimelineEntry = z.object({
  at: EpochMs,
  oldStatus: z.number().int().nullable(),
  newStatus: z.number().int(),
  source: StatusSource
})
export type TimelineEntry = z.infer<typeof TimelineEntry>

export const OrderFilter = z
  .object({
    type: OrderType,
    statusGroup: StatusGroup.optional(),
    fiatType: IdNum.optional(),
    coinId: IdNum.optional(),
    chainId: IdNum.optional(),
    from: IsoTime.optional(),
    to: IsoTime.optional(),
    search: z.string().trim().max(200).optional()
  })
  .strict()
export type OrderFilter = z.infer<typeof OrderFilter>

export const TickerRow = z.object({
  coinId: z.number().int(),
  buy: Dec.nullable(),
  sell: Dec.nullable(),
  prevBuy: Dec.nullable(),
  prevSell: Dec.nullable(),
  at: EpochMs.nullable(),
  stale: z.boolean(),
  history: z.array(z.object({ at: EpochMs, buy: Dec.nullable(), sell: Dec.nullable() }))
})
export type TickerRow = z.infer<typeof TickerRow>

/** The prices of one fiat as a tick pushes them, and when the next refresh is due. */
export const TickerTick = z.object({ fiatType: z.number().int(), rows: z.array(TickerRow), nextRefreshAt: EpochMs.nullable() })
export type TickerTick = z.infer<typeof TickerTick>

/** The same, with the last refresh's error, as tickers:get answers. */
export const TickerSnapshot = TickerTick.extend({ error: ErrorInfo.nullable() })
export type TickerSnapshot = z.infer<typeof TickerSnapshot>

/** Everything the renderer needs of the configuration, already merged from the config endpoints. */
export const ConfigSnapshot = z.object({
  fetchedAt: EpochMs.nullable(),
  stale: z.boolean(),
  fiats: z.array(z.object({ id: z.number().int(), symbol: z.string() })),
  coins: z.array(
    z.object({
      id: z.number().int(),
      code: z.string(),
      name: z.string(),
      icon: z.string().optional(),
      tradeFloatPlaces: z.number().int(),
      networks: z.array(z.number().int())
    })
  ),
  chains: z.array(
    z.object({
      id: z.number().int(),
      symbol: z.string(),
      name: z.string(),
      detail: z.record(z.string(), z.unknown())
    })
  ),
  /** coinId -> chainId -> fee entry (decimal strings). */
  gasFees: z.record(
    z.string(),
    z.record(
      z.string(),
      z.object({ withdrawalFee: Dec, minimumWithdrawal: Dec, nodeInSync: z.number().int(), depositEnable: z.number().int().optional() })
    )
  ),
  /** onramp/offramp -> fiatId -> {min, max} */
  limits: z.object({
    onramp: z.record(z.string(), z.object({ min: Dec, max: Dec })),
    offramp: z.record(z.string(), z.object({ min: Dec, max: Dec }))
  }),
  minimumBuyAmount: z.record(z.string(), z.record(z.string(), Dec)),
  minimumSellAmount: z.record(z.string(), Dec),
  /**
   * allCoinLimits per fiat type asked (fiatId ->): shape A, that fiat's {min, max}; or
   * shape B, coinId -> chainId -> the fiat amount limit for that coin and chain (read as
   * the minimum onramp amount: the shape of minimumBuyAmount, per fiat).
   */
  coinLimits: z.record(
    z.string(),
    z.discriminatedUnion('shape', [
      z.object({ shape: z.literal('A'), min: Dec, max: Dec }),
      z.object({ shape: z.literal('B'), byCoin: z.record(z.string(), z.record(z.string(), Dec)) })
    ])
  ),
  gatewayFee: z.record(z.string(), z.record(z.string(), Dec))
})
export type ConfigSnapshot = z.infer<typeof ConfigSnapshot>

export const QuoteResult = z.object({
  type: OrderType,
  coinId: z.number().int(),
  chainId: z.number().int(),
  fiatType: z.number().int(),
  amount: Dec,
  rate: Dec,
  quantity: Dec.optional(),
  fiatAmount: Dec.optional(),
  onrampFee: Dec,
  clientFee: Dec,
  gatewayFee: Dec,
  gasFee: Dec.optional(),
  tdsFee: Dec.optional(),
  quotedAt: EpochMs,
  /** From this instant the quote is shown as stale (main's policy: the service gives quotes no validity). */
  staleAt: EpochMs
})
export type QuoteResult = z.infer<typeof QuoteResult>

export const QuoteInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal(1), coinId: IdNum, chainId: IdNum, fiatType: IdNum, fiatAmount: Dec }).strict(),
  z.object({ type: z.literal(2), coinId: IdNum, chainId: IdNum, quantity: Dec }).strict()
])
export type QuoteInput = z.infer<typeof QuoteInput>

export const CompareRow = z.object({
  chainId: z.number().int(),
  ok: z.boolean(),
  quote: QuoteResult.nullable(),
  error: ErrorInfo.nullable(),
  gasFee: Dec.nullable(),
  minimum: Dec.nullable(),
  nodeInSync: z.number().int().nullable(),
  depositEnable: z.number().int().nullable()
})
export type CompareRow = z.infer<typeof CompareRow>

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

/** What the tray tells at a glance, by precedence: offline or sync failing, orders needing attention, orders in progress, nothing. */
export const TrayLevel = z.enum(['offline', 'failing', 'attention', 'progress', 'idle'])
export type TrayLevel = z.infer<typeof TrayLevel>

/** The tray icon's variants (each rendered in light and dark at build time). */
export const TrayIcon = z.enum(['idle', 'progress', 'attention', 'error'])
export type TrayIcon = z.infer<typeof TrayIcon>

export const TrayState = z.object({
  level: TrayLevel,
  icon: TrayIcon,
  /** One line in the operator's words ("3 orders need attention"). */
  headline: z.string(),
  /** What fails and what to do, while offline or failing. */
  detail: z.string().nullable(),
  attention: z.number().int().nonnegative(),
  inProgress: z.number().int().nonnegative(),
  /** The short text beside the icon in the macOS menu bar. */
  title: z.string(),
  /** The tooltip on Windows and Linux. */
  tooltip: z.string(),
  /** What the app knows it may be missing (scopes not probed, audit differences, stale statuses). */
  gaps: z.array(z.string()).optional()
})
export type TrayState = z.infer<typeof TrayState>

export const AuditEntry = z.object({
  id: z.number().int(),
  at: EpochMs,
  action: z.string(),
  detail: z.record(z.string(), z.unknown()),
  /** On a team hub: the operator who acted. */
  operator: z.string().optional()
})

/** The three roles of a team hub's operators: each may do everything the one before it may. */
export const TeamRole = z.enum(['viewer', 'operator', 'admin'])
export type TeamRole = z.infer<typeof TeamRole>

/** Operator names: what the audit log and the hub's command line call them. */
export const OperatorName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, '1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit')

export const TeamOperator = z.object({
  name: z.string(),
  role: TeamRole,
  createdAt: EpochMs,
  lastSeenAt: EpochMs.nullable()
})
export type TeamOperator = z.infer<typeof TeamOperator>

/** Who this desktop is on its team hub, and which channels it may call (every channel outside a team). */
export const TeamAccess = z.object({
  team: z
    .object({
      hubUrl: z.string(),
      operator: z.string(),
      role: TeamRole,
      /** The desktop's event stream from the hub is open. */
      connected: z.boolean(),
      /** The line to the hub: open, the hub out of reach, or this operator's token refused (unknown or revoked). */
      line: z.enum(['connected', 'unreachable', 'revoked']).optional()
    })
    .nullable(),
  channels: z.array(z.string())
})
export type TeamAccess = z.infer<typeof TeamAccess>

/**
 * A change the operator must confirm outside the window's reach (a setting that weakens
 * security, the production webhook URL). The desktop app asks with a native dialog; the
 * browser harness shows a one-time code where it was started (its terminal), and the
 * window sends back what the operator typed (confirm:answer).
 */
export const ConfirmRequest = z.object({
  id: z.string(),
  title: z.string(),
  message: z.string(),
  detail: z.string(),
  /** The label of the button that goes ahead. */
  confirmLabel: z.string(),
  /** Where the code to type is shown, in words. */
  codeShownIn: z.string(),
  expiresAt: EpochMs
})
export type ConfirmRequest = z.infer<typeof ConfirmRequest>

export const ConfirmOutcome = z.enum(['confirmed', 'cancelled', 'expired', 'wrong_code', 'unknown'])
export type ConfirmOutcome = z.infer<typeof ConfirmOutcome>

export const ExportProgress = z.object({ rows: z.number().int(), total: z.number().int(), done: z.boolean() })
export type ExportProgress = z.infer<typeof ExportProgress>

export const ExportInput = z
  .object({
    filter: OrderFilter,
    /**
     * Column names. Absent: the API's names, as before names in words existed (scripts keep
     * working); the window asks for words unless the operator chooses the names for scripts.
     */
    headers: ExportHeaders.optional(),
    /** Onramp and offramp orders in one file, each with the filter's other conditions (filter.type is then ignored). */
    bothTypes: z.boolean().optional()
  })
  .strict()
export type ExportInput = z.infer<typeof ExportInput>

export const ExportResult = z.object({
  path: z.string(),
  rows: z.number().int(),
  /** The file's name in the export folder (app:openExport; a download in the browser harness). */
  file: ExportFileName.optional(),
  /** The column names the file has (a team hub of an older version writes the API's whatever was asked). */
  headers: ExportHeaders.optional()
})
export type ExportResult = z.infer<typeof ExportResult>

/** A history record the app could not read: kept raw, shown with its id and the reason. */
export const UnreadableOrder = z.object({
  type: OrderType,
  fiatType: z.number().int(),
  orderId: z.number().int().nullable(),
  updatedAt: z.string().nullable(),
  reason: z.string(),
  /** The record as the service sent it. */
  raw: z.unknown(),
  appVersion: z.string(),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
  timesSeen: z.number().int()
})
export type UnreadableOrder = z.infer<typeof UnreadableOrder>

const JsonType = z.enum(['integer', 'string'])

/** What the app knows of one endpoint of the service it talks to. */
export const EndpointDiagnostics = z.object({
  endpoint: z.string(),
  calls: z.number().int(),
  failures: z.number().int(),
  lastCallAt: EpochMs.nullable(),
  lastHttpStatus: z.number().int().nullable(),
  /** 'ok' or the error kind of the last call. */
  lastOutcome: z.string().nullable(),
  latencyMs: z.number().nullable(),
  budgetWaitMs: z.number().nullable(),
  /** The shape of the last answer read (e.g. allCoinLimits shape B, priceTicker keys). */
  shape: z.string().nullable(),
  /** Integer-valued request fields: the JSON type the spec gives and the one the service takes. */
  encodings: z.array(
    z.object({ field: z.string(), spec: JsonType, encoding: JsonType, confirmed: z.boolean(), learnedAt: EpochMs.nullable() })
  ),
  limit: z.object({ perMinute: z.number(), source: z.enum(['documented', 'learned', 'default']) }),
  lastError: z.object({ at: EpochMs, kind: z.string(), httpStatus: z.number().int().nullable(), message: z.string() }).nullable()
})
export type EndpointDiagnostics = z.infer<typeof EndpointDiagnostics>

export const Diagnostics = z.object({
  generatedAt: EpochMs,
  app: z.object({ version: z.string(), platform: z.string(), shell: ShellKind }),
  profile: z.object({ name: z.string(), kind: ProfileKind, baseUrl: z.string(), serviceName: z.string() }),
  clock: z.object({
    /** Estimated service minus local time. */
    skewMs: z.number(),
    source: z.enum(['currentTimestamp', 'date']).nullable(),
    samples: z.number().int(),
    lastSampleAt: EpochMs.nullable(),
    /** Readings held back as implausible jumps (over 1 h, one source only). */
    rejectedJumps: z.number().int(),
    /** Whether currentTimestamp answers (null: not asked yet). */
    serverTimeAvailable: z.boolean().nullable()
  }),
  endpoints: z.array(EndpointDiagnostics),
  sync: z.array(SyncState),
  unreadableOrders: z.number().int(),
  /** Scopes, readings of merchantHistory, freshness (a hub of an older version leaves it out). */
  coverage: Coverage.optional()
})
export type Diagnostics = z.infer<typeof Diagnostics>

const ok = z.object({ ok: z.literal(true) })
const none = z.object({}).strict()
/** Inputs that name one profile. */
const ProfileSelector = z.object({ id: ProfileId }).strict()
const SecretSelector = z.object({ profileId: ProfileId }).strict()

// ---------------------------------------------------------------- channels

const ch = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O, doc: string) => ({ input, output, doc })

export const channels = {
  'app:info': ch(
    none,
    z.object({
      version: z.string(),
      platform: z.string(),
      shell: ShellKind,
      profile: Profile,
      clockSkewMs: z.number().nullable(),
      /** The OS locale numbers, money and dates are written in (Electron); null where the window's own language is the one (the browser harness). */
      locale: z.string().nullable()
    }),
    'Version, shell and the active profile'
  ),
  'app:openExternal': ch(z.object({ url: HttpUrl }).strict(), ok, 'Open an http(s) explorer link in the system browser'),
  'app:wake': ch(
    none,
    z.object({ refetched: z.boolean() }),
    'The machine woke, the screen was unlocked or the network came back: refetch now (false when a wake was just handled)'
  ),
  'app:showMain': ch(
    z.object({ order: OrderRef.strict().optional() }).strict(),
    ok,
    'Show the main window (from the tray), optionally at an order'
  ),
  'app:openExport': ch(
    z.object({ file: ExportFileName, action: z.enum(['open', 'show']) }).strict(),
    z.object({ opened: z.boolean() }),
    'Open a CSV export of the export folder, or show it in the file manager (false where the shell cannot: the browser harness downloads it)'
  ),
  'app:openLogs': ch(
    none,
    z.object({ dir: z.string(), opened: z.boolean() }),
    "Open the support logs' folder in the file manager (the browser harness cannot, and answers the folder)"
  ),

  'profiles:list': ch(none, z.object({ profiles: z.array(Profile), activeId: ProfileId }), 'All profiles and the active one'),
  'profiles:create': ch(ProfileInput, Profile, 'Create a live or team profile'),
  'profiles:update': ch(z.object({ id: ProfileId, patch: ProfilePatch }).strict(), Profile, 'Edit a live or team profile'),
  'profiles:delete': ch(ProfileSelector, ok, 'Delete a live profile, its secret and its database'),
  'profiles:switch': ch(ProfileSelector, Profile, 'Make a profile active; every service switches'),
  'profiles:test': ch(
    ConnectionInput,
    ConnectionCheck,
    'Test a live connection before saving it: reach the service, then sign one call; each failure explained with what to do'
  ),

  'secrets:status': ch(
    SecretSelector,
    z.object({ has: z.boolean(), backend: SecretBackend, plaintextWarning: z.boolean() }),
    'Whether a secret is stored and where (never the secret)'
  ),
  'secrets:set': ch(
    SecretSelector.extend({ secret: z.string().min(8).max(512) }).strict(),
    z.object({ backend: SecretBackend }),
    'Store or replace a secret (write-only)'
  ),
  'secrets:delete': ch(SecretSelector, ok, 'Delete a stored secret'),
  'secrets:where': ch(
    none,
    z.object({ backend: SecretBackend, reason: z.string().nullable() }),
    'Where a secret stored now would go (none: it would be refused), and why when that is plain text or nowhere'
  ),
  'secrets:test': ch(
    SecretSelector,
    z.object({ ok: z.boolean(), latencyMs: z.number().nullable(), message: z.string(), error: ErrorInfo.nullable() }),
    'Call one cheap authenticated endpoint and explain the outcome'
  ),

  'settings:get': ch(none, Settings, 'Current settings'),
  'settings:update': ch(SettingsPatch, Settings, 'Change settings'),

  'config:get': ch(none, ConfigSnapshot, 'The cached configuration (stale-while-revalidate)'),
  'config:refresh': ch(none, ConfigSnapshot, 'Refetch the configuration now'),
  'bank:get': ch(
    none,
    z.object({
      details: z.record(z.string(), z.unknown()).nullable(),
      fetchedAt: EpochMs.nullable(),
      stale: z.boolean(),
      error: ErrorInfo.nullable()
    }),
    'Bank and UPI details'
  ),

  'tickers:get': ch(z.object({ fiatType: IdNum }).strict(), TickerSnapshot, 'Latest prices with history'),
  'tickers:visibility': ch(
    z.object({ view: TickerView, visible: z.boolean() }).strict(),
    ok,
    'A window shows or hides tickers (refresh only while shown)'
  ),

  'quotes:get': ch(QuoteInput, QuoteResult, 'An onramp or offramp quote (interactive priority)'),
  'quotes:compare': ch(QuoteInput, z.object({ rows: z.array(CompareRow) }), 'The same quote on every network of the coin'),

  'orders:query': ch(
    z
      .object({
        filter: OrderFilter,
        sort: OrderSort.default('updatedAt:desc'),
        offset: z.number().int().min(0),
        limit: z.number().int().min(1).max(1000)
      })
      .strict(),
    z.object({
      rows: z.array(OrderRow),
      /** How many orders match; with totalAtLeast, at least this many (a broad search is counted no further). */
      total: z.number().int(),
      /** True when more orders match than `total` says: a search matching most orders ("0x", "2") is counted up to a cap. */
      totalAtLeast: z.boolean().optional(),
      /** With a search, on the first window: how many orders of the other type the same filter matches ("2 matches in Offramp"). */
      otherTypeTotal: z.number().int().optional(),
      /** True when the other type holds more matches than otherTypeTotal says. */
      otherTypeTotalAtLeast: z.boolean().optional()
    }),
    'A window of the filtered orders'
  ),
  'orders:get': ch(
    OrderRef.strict(),
    z.object({ row: OrderRow, record: z.record(z.string(), z.unknown()), timeline: z.array(TimelineEntry) }).nullable(),
    'One order with every field and its timeline'
  ),
  'orders:watch': ch(OrderRef.extend({ watch: z.boolean() }).strict(), ok, 'Pin or unpin an order'),
  'orders:check': ch(
    OrderRef.strict(),
    OrderCheck,
    "Ask the service for one order's status now (interactive priority) and keep it as a confirmation"
  ),
  'orders:watched': ch(
    none,
    z.object({ rows: z.array(OrderRow) }),
    'Pinned orders, orders needing attention and active orders, for the tray'
  ),
  'orders:export': ch(
    ExportInput,
    ExportResult,
    'Write the filtered orders to CSV: column names in words or the API names, one type or both in one file'
  ),
  'orders:unreadable': ch(none, z.object({ rows: z.array(UnreadableOrder) }), 'History records the app could not read, with the reason'),

  'sync:state': ch(none, z.object({ states: z.array(SyncState) }), 'Sync state per (type, fiat)'),
  'sync:now': ch(none, ok, 'Run a history sync now'),
  'sync:resync': ch(none, ok, 'Read the whole history of every scope again (progress in sync:state)'),
  'sync:coverage': ch(
    none,
    Coverage,
    'Whether the local copy holds every order: each (type, fiat) probed and audited, the readings of merchantHistory, freshness, every known gap'
  ),
  'sync:audit': ch(
    none,
    ok,
    "Check every scope's completeness now (a difference is repaired in the background; progress in coverage:changed)"
  ),
  'budget:get': ch(none, z.object({ entries: z.array(BudgetEntry) }), 'Request budget per limited endpoint'),

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
  ),

  'confirm:answer': ch(
    z.object({ id: z.string().min(1).max(64), code: z.string().max(64).nullable() }).strict(),
    z.object({ outcome: ConfirmOutcome, attemptsLeft: z.number().int() }),
    'The code the operator typed for a pending confirmation (null: cancel)'
  ),

  'diagnostics:get': ch(none, Diagnostics, 'What the app knows of the service: per endpoint, the clock, sync'),
  'diagnostics:text': ch(
    none,
    z.object({ text: z.string() }),
    'The diagnostics as plain text for support, with no secret, key or wallet address'
  ),
  'tray:state': ch(
    none,
    TrayState,
    'What the tray icon, its title or tooltip and the popover tell: sync trouble, orders needing attention, in progress'
  ),

  'audit:list': ch(
    z.object({ limit: z.number().int().min(1).max(500) }).strict(),
    z.object({ rows: z.array(AuditEntry) }),
    'Recent operator actions'
  ),

  'team:access': ch(none, TeamAccess, 'This desktop on its team hub: operator, role and the channels it may call'),
  'team:operators': ch(none, z.object({ operators: z.array(TeamOperator) }), "The team hub's operators (admin)"),
  'team:addOperator': ch(
    z.object({ name: OperatorName, role: TeamRole }).strict(),
    z.object({ operator: TeamOperator, token: z.string() }),
    'Add an operator to the team hub; its token is shown this once (admin)'
  ),
  'team:revokeOperator': ch(
    z.object({ name: OperatorName }).strict(),
    ok,
    "Revoke an operator's token at once, closing its event streams (admin)"
  )
} as const

export type Channels = typeof channels
export type ChannelName = keyof Channels
export const channelNames = Object.keys(channels) as ChannelName[]
export type ChannelInput<C extends ChannelName> = z.input<Channels[C]['input']>
export type ChannelOutput<C extends ChannelName> = z.output<Channels[C]['output']>

// ---------------------------------------------------------------- events (main -> windows)

export const events = {
  'profile:changed': Profile,
  'sync:state': SyncState,
  'budget:changed': z.object({ entries: z.array(BudgetEntry) }),
  'ticker:tick': TickerTick,
  'order:created': OrderRow,
  'order:changed': z.object({ row: OrderRow, oldStatus: z.number().int().nullable(), newStatus: z.number().int(), terminal: z.boolean() }),
  'config:updated': ConfigSnapshot,
  'webhook:delivery': WebhookDelivery,
  'export:progress': ExportProgress,
  'clock:skew': z.object({ skewMs: z.number() }),
  'confirm:request': ConfirmRequest,
  'confirm:settled': z.object({ id: z.string(), outcome: ConfirmOutcome }),
  'nav:order': OrderRef,
  /**
   * An order change the notification settings ask to be told of, for a shell without
   * native notifications (the browser harness shows it with the browser's Notification API).
   */
  'notify:order': z.object({ title: z.string(), body: z.string(), order: OrderRef.optional() }),
  'coverage:changed': Coverage,
  /** A Team profile's line to its hub opened or dropped, or its role changed. */
  'team:access': TeamAccess
} as const

export type Events = typeof events
export type EventName = keyof Events
export const eventNames = Object.keys(events) as EventName[]
export type EventPayload<E extends EventName> = z.output<Events[E]>

/**
 * What the preload exposes as window.rampdesk (and the web harness mirrors): one
 * method per channel returning the result envelope (errors travel as data: an Error
 * thrown across contextBridge would lose everything but its message), and on(event).
 */
export type RampdeskBridge = {
  [C in ChannelName as MethodName<C>]: (input: ChannelInput<C>) => Promise<Envelope<ChannelOutput<C>>>
} & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void
}

/** Event channel name on the wire for a contract event. */
export const eventChannel = (e: EventName): string => `event:${e}`

/** 'orders:query' -> 'ordersQuery' */
export type MethodName<C extends string> = C extends `${infer A}:${infer B}` ? `${A}${Capitalize<B>}` : C
export function methodName<C extends ChannelName>(c: C): MethodName<C> {
  const [a, b = ''] = c.split(':')
  return `${a}${b.charAt(0).toUpperCase()}${b.slice(1)}` as MethodName<C>
}

/** The result envelope every channel returns across the boundary: errors travel as data, not as thrown strings. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo }

/** What the services layer implements: one handler per channel, given the parsed input. */
export type ContractHandlers = {
  [C in ChannelName]: (input: z.output<Channels[C]['input']>) => Promise<ChannelOutput<C>>
}

/** Parses a channel's input; the error message names the field. */
export function parseInput<C extends ChannelName>(channel: C, input: unknown): z.output<Channels[C]['input']> {
  const schema = channels[channel]?.input as z.ZodType | undefined
  if (!schema) throw new ContractError('unknown_channel', `unknown channel ${String(channel)}`)
  const r = schema.safeParse(input === undefined ? {} : input)
  if (!r.success) {
    const i = r.error.issues[0]
    const where = i && i.path.length ? i.path.join('.') + ': ' : ''
    throw new ContractError('invalid_input', `invalid input for ${channel}: ${where}${i?.message ?? 'invalid'}`)
  }
  return r.data as z.output<Channels[C]['input']>
}

export class ContractError extends Error {
  constructor(
    readonly kind: 'unknown_channel' | 'invalid_input' | 'forbidden_sender',
    message: string
  ) {
    super(message)
    this.name = 'ContractError'
  }
}

/** Any thrown value as the error half of an envelope. */
export function toEnvelopeError(e: unknown): ErrorInfo {
  if (e instanceof ContractError) return { kind: e.kind, message: e.message, retryable: false }
  if (e && typeof e === 'object' && 'kind' in e && 'message' in e) {
    const src = (e as { toInfo?: () => ErrorInfo }).toInfo?.() ?? (e as ErrorInfo)
    // Copy field by field: an Error's message is not an own enumerable property.
    const picked: Record<string, unknown> = { kind: src.kind, message: src.message, retryable: src.retryable ?? false }
    for (const k of ['endpoint', 'httpStatus', 'code', 'origin', 'nextSlotAt', 'path', 'skewMs', 'bounds'] as const)
      if (src[k] !== undefined) picked[k] = src[k]
    const r = ErrorInfo.safeParse(picked)
    if (r.success) return r.data
  }
  return { kind: 'internal', message: e instanceof Error ? e.message : String(e), retryable: false }
}

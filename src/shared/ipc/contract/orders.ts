// The orders namespace: the order row, its filter and timeline, what "Check now" found,
// watching an order, the tray's list, CSV exports and the history records that could not be read.
import { z } from 'zod'
import { ch, Dec, EpochMs, IdNum, IsoTime, none, ok, OrderRef, OrderType } from './primitives'

/** The order filter's status groups, in display order. */
export const StatusGroup = z.enum(['in progress', 'needs attention', 'completed', 'failed'])
export type StatusGroup = z.infer<typeof StatusGroup>

export const OrderSort = z.enum(['updatedAt:desc', 'updatedAt:asc', 'createdAt:desc', 'createdAt:asc', 'orderId:desc', 'orderId:asc'])
export type OrderSort = z.infer<typeof OrderSort>

/** What recorded a status change. */
export const StatusSource = z.enum(['sync', 'watch', 'webhook'])
export type StatusSource = z.infer<typeof StatusSource>

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
  goneAt: EpochMs.nullable().optional(),
  /** The operator handling the order (orders:claim), or null; absent from a hub of an older version. */
  handledBy: z.string().nullable().optional()
})
export type OrderRow = z.infer<typeof OrderRow>

/**
 * order:created: which order arrived, by its key (type and orderId), for the receiver to
 * query what is true now (orders:query, orders:get). The row's other fields are optional
 * and deprecated: a desktop's own writes send the key alone, a hub replaying events from its
 * database still fills them this release, and a hub of an older version sends the whole row.
 * A receiver reads the key only, so every one of these is the same event to it.
 */
export const OrderCreated = OrderRow.partial().extend(OrderRef.shape)
export type OrderCreated = z.infer<typeof OrderCreated>

/** Who handles an order, and since when (orders:claim). */
export const OrderClaim = z.object({ operator: z.string(), since: EpochMs })
export type OrderClaim = z.infer<typeof OrderClaim>

/** A note an operator added to an order (orders:note). */
export const OrderNote = z.object({ id: z.number().int(), author: z.string(), at: EpochMs, text: z.string() })
export type OrderNote = z.infer<typeof OrderNote>

/** The longest note an operator may add, in characters. */
export const NOTE_MAX_LENGTH = 2000

/** Taking an order on, letting it go, or handing it to a named operator. */
export const ClaimInput = z.discriminatedUnion('action', [
  OrderRef.extend({ action: z.literal('claim') }).strict(),
  OrderRef.extend({ action: z.literal('release') }).strict(),
  OrderRef.extend({ action: z.literal('hand'), to: z.string().trim().min(1).max(64) }).strict()
])
export type ClaimInput = z.infer<typeof ClaimInput>

/** A claim or a note changed on an order: sent to every window (and through a hub, to every desktop of the team). */
export const OrderHandling = z.object({
  type: OrderType,
  orderId: z.number().int(),
  claim: OrderClaim.nullable(),
  /** The note just added, when that is the change. */
  note: OrderNote.optional(),
  /** Who made the change. */
  by: z.string()
})
export type OrderHandling = z.infer<typeof OrderHandling>

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

/**
 * What asking the service about one order now found: its status (kept in the database as
 * a confirmation, unless this is a hub that follows another, whose leader keeps orders),
 * or that the service does not know the order.
 */
export const OrderCheck = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('status'),
    status: z.number().int(),
    /** The status held before the check (null: the order is not in the database). */
    previous: z.number().int().nullable(),
    at: EpochMs,
    kept: z.boolean()
  }),
  z.object({ kind: z.literal('unknown-order'), at: EpochMs })
])
export type OrderCheck = z.infer<typeof OrderCheck>

/** The CSV's column names: in words ("Customer pays"), or the API's camelCase names (`fiatAmount`), for scripts. */
export const ExportHeaders = z.enum(['words', 'api'])
export type ExportHeaders = z.infer<typeof ExportHeaders>

/** A CSV export's file name (never a path): what the export folder holds and a window may ask to open. */
export const ExportFileName = z
  .string()
  .max(120)
  .regex(/^rampdesk-(onramp|offramp|orders)-[0-9T-]+Z\.csv$/, 'not the name of a Rampdesk export')

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

export const ordersChannels = {
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
    z
      .object({
        row: OrderRow,
        record: z.record(z.string(), z.unknown()),
        timeline: z.array(TimelineEntry),
        /** Who handles the order (null: nobody); absent from a hub of an older version. */
        claim: OrderClaim.nullable().optional(),
        /** The order's notes, oldest first; absent from a hub of an older version. */
        notes: z.array(OrderNote).optional()
      })
      .nullable(),
    'One order with every field, its timeline, who handles it and its notes'
  ),
  'orders:claim': ch(
    ClaimInput,
    z.object({ claim: OrderClaim.nullable() }),
    'Claim an order (handled by you from now), release it, or hand it to a named operator'
  ),
  'orders:note': ch(
    OrderRef.extend({ text: z.string().trim().min(1).max(NOTE_MAX_LENGTH) }).strict(),
    OrderNote,
    'Add a note to an order (its author is you, its time now)'
  ),
  'orders:watch': ch(OrderRef.extend({ watch: z.boolean() }).strict(), ok, 'Watch an order, or stop watching it'),
  'orders:check': ch(
    OrderRef.strict(),
    OrderCheck,
    "Ask the service for one order's status now (interactive priority) and keep it as a confirmation"
  ),
  'orders:watched': ch(
    none,
    z.object({ rows: z.array(OrderRow) }),
    'Watched orders, orders needing attention and active orders, for the tray'
  ),
  'orders:export': ch(
    ExportInput,
    ExportResult,
    'Write the filtered orders to CSV: column names in words or the API names, one type or both in one file'
  ),
  'orders:unreadable': ch(none, z.object({ rows: z.array(UnreadableOrder) }), 'History records the app could not read, with the reason')
} as const

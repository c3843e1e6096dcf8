// The sync namespace: per (type, fiat) the history sync's state, and whether the local copy
// holds every order (scopes probed and audited, readings of merchantHistory, freshness, gaps).
import { z } from 'zod'
import { ch, EpochMs, ErrorInfo, IdNum, none, ok, OrderType } from './primitives'

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

export const syncChannels = {
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
  )
} as const

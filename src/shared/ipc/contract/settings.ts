// The settings namespace: the operator's settings and the patch that changes them.
import { z } from 'zod'
import { ch, IdNum, none } from './primitives'

/** How long the webhook delivery log is kept unless the operator says otherwise. */
export const DELIVERY_LOG_DEFAULTS = { keepDays: 30, keepDeliveries: 10_000 } as const

/** A stalled-order threshold's key: "type:status" ("2:3"), or "type:*" for any other open status of the type. */
export const STALLED_KEY = /^[12]:(\*|-?\d{1,4})$/

/**
 * The shipped thresholds, chosen from what each status means (docs/operator-guide.md,
 * "Stalled orders"): the two offramp statuses that wait on a person (the service's manual
 * review, the customer's alternate bank), the onramp steps that are normally minutes
 * (deposit secured, withdrawal initiated), and a day for any other open status.
 */
export const DEFAULT_STALLED_MINUTES: Readonly<Record<string, number>> = {
  // Offramp "over limit, held for manual review": a person at the service must act.
  '2:3': 30,
  // Offramp "user must provide an alternate bank": the customer must act; give them time.
  '2:17': 120,
  // Onramp "deposit secured": the fiat is in, buying the crypto normally follows in minutes.
  '1:2': 30,
  // Onramp "withdrawal initiated": a chain withdrawal normally lands within minutes.
  '1:14': 20,
  // Any other open status, either type: a day is never normal.
  '1:*': 1440,
  '2:*': 1440
}

const inboxFields = {
  enabled: z.boolean(),
  host: z.string().min(1).max(255),
  port: z.number().int().min(0).max(65535),
  /** Deliveries last received longer ago than this are pruned. */
  keepDays: z.number().int().min(1).max(3650),
  /** At most this many deliveries are kept (the oldest are pruned). */
  keepDeliveries: z.number().int().min(100).max(1_000_000)
}

const StalledMinutes = z.record(z.string().regex(STALLED_KEY, 'expected "type:status" or "type:*"'), z.number().int().min(1).max(43_200))

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
  /**
   * Minutes an open order may sit in one status before it is raised as stalled, keyed
   * "type:status" or "type:*" (shared/domain/stalled.ts). Team-wide on a hub. Settings files
   * and hubs from before it get the shipped thresholds.
   */
  stalledMinutes: StalledMinutes.default({ ...DEFAULT_STALLED_MINUTES }),
  // Settings files from before keepDays/keepDeliveries existed get the defaults.
  inbox: z.object({
    ...inboxFields,
    keepDays: inboxFields.keepDays.default(DELIVERY_LOG_DEFAULTS.keepDays),
    keepDeliveries: inboxFields.keepDeliveries.default(DELIVERY_LOG_DEFAULTS.keepDeliveries)
  })
})
export type Settings = z.infer<typeof Settings>
/** A patch's inbox may name only the fields it changes: the rest are kept (AppSettings.update merges). */
// A patch names only what it changes: no field of it takes its default (a default there would
// send the shipped thresholds to a hub with every viewer's change of theme).
export const SettingsPatch = Settings.extend({ inbox: z.object(inboxFields).partial(), stalledMinutes: StalledMinutes })
  .partial()
  .strict()
export type SettingsPatch = z.infer<typeof SettingsPatch>

export const settingsChannels = {
  'settings:get': ch(none, Settings, 'Current settings'),
  'settings:update': ch(SettingsPatch, Settings, 'Change settings')
} as const

// The settings namespace: the operator's settings and the patch that changes them.
import { z } from 'zod'
import { ch, IdNum, none } from './primitives'

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

export const settingsChannels = {
  'settings:get': ch(none, Settings, 'Current settings'),
  'settings:update': ch(SettingsPatch, Settings, 'Change settings')
} as const

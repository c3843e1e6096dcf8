// The one IPC contract between the renderer and the main process: every channel with
// its input and output schema, and every event main pushes to windows. The preload
// exposes one method per channel on window.rampdesk; src/main/electron registers one
// handler per channel; the web harness serves the same channels over HTTP. Inputs are
// parsed in main before anything acts on them; outputs are typed by the same schemas.
// Each namespace's schemas and channels live in a file of their own; this index puts the
// channels and events together and is what the rest of the app imports.
import { z } from 'zod'
import { activityChannels } from './activity'
import { AlertList, alertsChannels } from './alerts'
import { appChannels } from './app'
import { auditChannels } from './audit'
import { bankChannels } from './bank'
import { budgetChannels, BudgetEntry } from './budget'
import { configChannels, ConfigSnapshot } from './config'
import { confirmChannels, ConfirmOutcome, ConfirmRequest } from './confirm'
import { diagnosticsChannels } from './diagnostics'
import { ContractError, type Envelope } from './envelope'
import { ExportProgress, OrderCreated, OrderHandling, ordersChannels, OrderRow } from './orders'
import { OrderRef } from './primitives'
import { Profile, profilesChannels } from './profiles'
import { quotesChannels } from './quotes'
import { secretsChannels } from './secrets'
import { settingsChannels } from './settings'
import { Coverage, SyncState, syncChannels } from './sync'
import { TeamAccess, teamChannels } from './team'
import { TickerTick, tickersChannels } from './tickers'
import { trayChannels } from './tray'
import { WebhookDelivery, webhooksChannels } from './webhooks'

export { ACTIVITY_MAX_DAYS, ACTIVITY_MAX_ITEMS, ActivityGroup, ActivityInput, ActivityItem, ActivitySummary, LastLooked } from './activity'
export {
  Alert,
  AlertKind,
  AlertList,
  ChainAlert,
  CompletionDelivery,
  GapAlert,
  ResendCompletion,
  StalledAlert,
  UnacknowledgedAlert
} from './alerts'
export { ShellKind } from './app'
export { AuditEntry } from './audit'
export { BudgetEntry } from './budget'
export { ConfigSnapshot } from './config'
export { ConfirmOutcome, ConfirmRequest } from './confirm'
export { Diagnostics, EndpointDiagnostics } from './diagnostics'
export { ContractError, toEnvelopeError, type Envelope } from './envelope'
export {
  ClaimInput,
  ExportFileName,
  ExportHeaders,
  ExportInput,
  ExportProgress,
  ExportResult,
  NOTE_MAX_LENGTH,
  OrderCheck,
  OrderClaim,
  OrderCreated,
  OrderFilter,
  OrderHandling,
  OrderNote,
  OrderRow,
  OrderSort,
  StatusGroup,
  StatusSource,
  TimelineEntry,
  UnreadableOrder
} from './orders'
export { ErrorInfo, OrderRef, OrderType, SecondFactorRefusal } from './primitives'
export {
  ConnectionCause,
  ConnectionCheck,
  ConnectionInput,
  MAX_FALLBACK_URLS,
  Profile,
  ProfileId,
  ProfileInput,
  ProfileKind
} from './profiles'
export { CompareRow, QuoteInput, QuoteResult } from './quotes'
export { SecondFactorCode, SecondFactorEnrolment, SecondFactorStatus, TotpCode } from './second-factor'
export { SecretBackend } from './secrets'
export { HubSignInOffer, ProfileSignIn, SignInStarted, SignOutResult } from './sign-in'
export { DEFAULT_STALLED_MINUTES, DELIVERY_LOG_DEFAULTS, Settings, SettingsPatch, STALLED_KEY } from './settings'
export { Coverage, CoverageGap, FreshnessInfo, HistoryReadingInfo, ScopeCoverage, SyncState } from './sync'
export { OperatorName, TeamAccess, TeamOperator, TeamRole } from './team'
export { TickerRow, TickerSnapshot, TickerTick, TickerView } from './tickers'
export { TrayIcon, TrayLevel, TrayState } from './tray'
export { InboxStatus, RelayAttempt, RelayCounts, RelayQueue, RelayState, WebhookDelivery, WebhookRelay, WebhookTarget } from './webhooks'

// ---------------------------------------------------------------- channels

export const channels = {
  ...appChannels,
  ...profilesChannels,
  ...secretsChannels,
  ...settingsChannels,
  ...configChannels,
  ...bankChannels,
  ...tickersChannels,
  ...quotesChannels,
  ...ordersChannels,
  ...syncChannels,
  ...budgetChannels,
  ...webhooksChannels,
  ...confirmChannels,
  ...diagnosticsChannels,
  ...trayChannels,
  ...auditChannels,
  ...teamChannels,
  ...alertsChannels,
  ...activityChannels
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
  'order:created': OrderCreated,
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
  'team:access': TeamAccess,
  /** An order was claimed, released or handed over, or a note was added to it. */
  'order:handling': OrderHandling,
  /** The alerts changed (one raised or cleared, or a stalled order's minutes moved on). */
  'alerts:changed': AlertList
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

// Who may call what on a team hub: the three operator roles and, for every channel of
// the contract, the least role that may call it there, or 'desktop' for the channels a
// desktop always answers itself (its own profiles, keychain and windows). The table is
// built from the contract's namespaces with a few channels singled out, and it is total:
// a channel added to the contract without a decision here is a type error. The hub
// refuses with 403 what a role lacks; the desktop hides or disables the same channels.
import { channelNames, TeamRole, type ChannelName } from './contract'

export { TeamRole }

/** Roles in order of what they may do: each may do everything the ones before it may. */
export const TEAM_ROLES: readonly TeamRole[] = TeamRole.options

export type ChannelAccess = TeamRole | 'desktop'

type Namespace = ChannelName extends `${infer N}:${string}` ? N : never

/** What a namespace's channels need unless singled out below. */
const BY_NAMESPACE: Record<Namespace, ChannelAccess> = {
  // The window's own shell and the desktop's own profiles and keychain never go to a hub.
  app: 'desktop',
  profiles: 'desktop',
  secrets: 'desktop',
  // Reading: configuration, prices, bank details, orders, sync, the inbox log, diagnostics.
  config: 'viewer',
  bank: 'viewer',
  tickers: 'viewer',
  orders: 'viewer',
  sync: 'viewer',
  budget: 'viewer',
  webhooks: 'viewer',
  team: 'viewer',
  // What the tray tells at a glance: the sync states, the coverage's gaps and two counts of
  // orders, all of which a viewer reads anyway (sync:state, sync:coverage, orders:query).
  tray: 'viewer',
  // Stalled orders and unwell chains: words about orders and configuration a viewer reads anyway.
  alerts: 'viewer',
  // What changed while an operator was away: failed orders, alerts, claims and notes, all of
  // which a viewer reads anyway (orders:get, alerts:list).
  activity: 'viewer',
  // The service the hub talks to: its base URL, and per endpoint the hub's request history
  // (calls, failures, latencies, the service's last error). An operator's, who spends the
  // team's requests and needs to tell a slow service from a slow hub; never a viewer's.
  diagnostics: 'operator',
  // A typed confirmation is answered in the window of the desktop that asked for it.
  confirm: 'desktop',
  // Quotes ask the service on the operator's behalf.
  quotes: 'operator',
  // Hub settings are the team's polling; the audit log names every operator's actions.
  settings: 'admin',
  audit: 'admin'
}

/** Channels whose access differs from their namespace's. */
const SINGLED_OUT: Partial<Record<ChannelName, ChannelAccess>> = {
  // The version and clock of the hub: every operator's header shows them.
  'app:info': 'viewer',
  // A CSV file belongs on the desktop that asked for it: the desktop writes what the hub streams
  // (POST /export/orders, open to whoever may read orders).
  'orders:export': 'desktop',
  // The history records the hub could not read, as the service sent them: orders, which a
  // viewer reads anyway (orders:get gives the record), with the parser's reason.
  'orders:unreadable': 'viewer',
  // Reading the settings is harmless; changing them is the admin's (namespace default).
  'settings:get': 'viewer',
  // Acting: asking the service for something, or spending the team's request budget on demand.
  // (sync:now stays a viewer's: the one monitor runs each scope once however many ask.)
  'config:refresh': 'operator',
  'orders:watch': 'operator',
  // Spends a request of the team's orderStatus budget at interactive priority.
  'orders:check': 'operator',
  // Claims and notes coordinate the people who act on orders: an operator's, never a viewer's
  // (a viewer reads both in orders:get).
  'orders:claim': 'operator',
  'orders:note': 'operator',
  // Sends a completion to the merchant's system again (the relay, or a request to the service).
  'alerts:resend': 'operator',
  'webhooks:sendDummy': 'operator',
  'webhooks:resend': 'operator',
  'webhooks:verify': 'operator',
  // Redirects the merchant's production webhooks: the one service call an admin keeps.
  'webhooks:setUrl': 'admin',
  // The relay to the merchant's receiver: its address and answers are the merchant's
  // backend, for those who act on deliveries; sending failed ones again is the admin's.
  'webhooks:relays': 'operator',
  'webhooks:retryRelays': 'admin',
  // The URL last set, which may carry the receiver's credentials: only the admin who may
  // replace it needs it, to be told what the change replaces.
  'webhooks:lastUrl': 'admin',
  // Reads the whole history again: the team's request budget for a long while.
  'sync:resync': 'admin',
  // Counts every scope at the service now (and repairs what is missing): a few requests per scope.
  'sync:audit': 'operator',
  // When this operator last looked: kept by each desktop per profile (one operator of one hub).
  'activity:lastLooked': 'desktop',
  'activity:seen': 'desktop',
  'team:operators': 'admin',
  'team:addOperator': 'admin',
  'team:revokeOperator': 'admin',
  // The code travels from this desktop to its hub in a header (team-routing.ts), once asked for.
  'team:proveSecondFactor': 'desktop',
  // An operator's own second factor: those who act on orders; a viewer changes nothing.
  'team:enrolSecondFactor': 'operator',
  'team:confirmSecondFactor': 'operator'
}

/**
 * Who may have the service send a signed dummy webhook to a URL other than the hub's own
 * inbox. A signed dummy is a genuine signature under the merchant's secret, delivered to
 * whoever runs that URL; so operators may send one only to the hub itself, and sending one
 * elsewhere is an admin's decision (docs/hub-internals.md, "Webhooks at the hub").
 */
export const DUMMY_TO_ANY_URL: TeamRole = 'admin'

export function channelAccess(channel: ChannelName): ChannelAccess {
  const single = SINGLED_OUT[channel]
  if (single) return single
  return BY_NAMESPACE[channel.slice(0, channel.indexOf(':')) as Namespace]
}

/** Does the role include everything `needed` may do? */
export function roleAtLeast(role: TeamRole, needed: TeamRole): boolean {
  return TEAM_ROLES.indexOf(role) >= TEAM_ROLES.indexOf(needed)
}

/** May an operator of this role call the channel on a hub? ('desktop' channels: never.) */
export function roleMay(role: TeamRole, channel: ChannelName): boolean {
  const need = channelAccess(channel)
  return need !== 'desktop' && roleAtLeast(role, need)
}

/** The hub channels a role may call. */
export function channelsOf(role: TeamRole): ChannelName[] {
  return channelNames.filter((c) => roleMay(role, c))
}

/** Channels the hub serves at all (every role's channels together). */
export const hubChannels: readonly ChannelName[] = channelNames.filter((c) => channelAccess(c) !== 'desktop')

/**
 * The settings a team hub keeps for the whole team (how its one monitor and its tickers
 * poll, how fresh open orders are kept, when an open order counts as stalled); every other setting (theme, notifications, the
 * tray's pins, start at login, the fiats an operator prefers to see first) stays each
 * desktop's own. The hub syncs every fiat the service holds orders in, whatever any
 * desktop prefers.
 */
export const HUB_SETTING_KEYS = [
  'historyPollSeconds',
  'reconcileHours',
  'watchPollSeconds',
  'tickerPollSeconds',
  'freshnessMinutes',
  // When an open order counts as stalled: one answer for the whole team, set by an admin.
  'stalledMinutes'
] as const
export type HubSettingKey = (typeof HUB_SETTING_KEYS)[number]

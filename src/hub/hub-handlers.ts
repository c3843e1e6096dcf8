// The contract as one operator of the team hub gets it: the desktop's own handler
// slices over the hub's one session (one client, one budget, one database), with the
// channels that differ in a team replaced: tickers per fiat for the whole team, pins per
// operator (and the `watched` mark of every row with them), the hub's settings, its
// audit log with names, its webhook URL, and the team's operators. Channels a desktop
// answers itself are refused before they get here (see team-access.ts); they still
// have a handler, which says so, because the contract's handler table is total.
import type { SecondFactorEnrolments } from './second-factor-enrolment'
import type { AppSettings } from '../main/app-settings'
import type { ProfileSession } from '../main/profile-session'
import type { HandlerContext } from '../main/handlers/context'
import { configHandlers } from '../main/handlers/config'
import { alertHandlers } from '../main/handlers/alerts'
import { activitySince } from '../main/handlers/activity'
import { quoteHandlers } from '../main/handlers/quotes'
import { orderHandlers, trayRows } from '../main/handlers/orders'
import { budgetHandlers } from '../main/handlers/sync'
import { webhookHandlers } from '../main/handlers/webhooks'
import { trayHandlers } from '../main/handlers/tray'
import { diagnosticsHandlers } from '../main/handlers/diagnostics'
import {
  ContractError,
  type ChannelOutput,
  type ContractHandlers,
  type Coverage,
  type SyncState,
  type OrderRef,
  type OrderRow,
  type Profile,
  type Settings,
  type TeamOperator
} from '../shared/ipc/contract'
import { channelsOf, DUMMY_TO_ANY_URL, HUB_SETTING_KEYS, roleAtLeast } from '../shared/ipc/team-access'
import type { HubTickers } from './hub-tickers'
import type { DeliveryLog, SyncAction } from './hub-backend'
import { toContractDelivery } from '../main/webhooks/inbox'
import type { AuditLog, Awaitable, OperatorDirectory, PinStore } from './hub-store'
import type { KeptStore } from './kept/kept-store'
import { answerFilter } from './answer-filter'
import type { HubClaims } from './hub-claims'

/** A refresh this recent answers every further config:refresh: six operators pressing it spend the budget once. */
export const CONFIG_REFRESH_COALESCE_MS = 60_000

/** What every operator's handlers share: the hub itself. */
export interface HubCore {
  session: ProfileSession
  profile: Profile
  secret(): Promise<string>
  settings: AppSettings
  tickers: HubTickers
  watches: PinStore
  /** Claims and notes, shared by every hub on the store. */
  claims: Pick<HubClaims, 'claim' | 'note'>
  operators: OperatorDirectory
  audit: AuditLog
  /** Each operator enrolling their own second factor (second-factor-enrolment.ts). */
  secondFactors: SecondFactorEnrolments
  /** The URL the service delivers webhooks to (null until the hub listens). */
  webhookRefusals(): ChannelOutput<'webhooks:inbox'>['refused']
  webhookUrl(): string | null
  /** The hub's own URL, as operators reach it. */
  publicUrl(): string | null
  /** Revokes the operator and closes their event streams at once. */
  revoke(name: string): Awaitable<TeamOperator>
  /** Single-flight, coalesced config refresh. */
  refreshConfig(): ReturnType<ProfileSession['config']['refreshAll']>
  /** Kept webhook deliveries and their relay (the hubs on one PostgreSQL database share them). */
  kept: Pick<KeptStore, 'relays' | 'retryRelays'>
  /** The relay's receiver as it may be shown, or null without --forward-to. */
  relayTarget(): string | null
  /** Looks for due relays now (after an admin queued some again). */
  relayNow(): void
  /** alerts:resend: a completion the merchant's system has not confirmed, relayed again (unacknowledged.ts). */
  resendCompletion(ref: OrderRef): Promise<ChannelOutput<'alerts:resend'>>
  /** The delivery log desktops are shown: this hub's own, or the one the hubs on one PostgreSQL database share. */
  deliveryLog: Pick<DeliveryLog, 'list'>
  /** Whether the team's copy holds every order: the leader's, on a hub that follows. */
  coverage(): Coverage
  /** The sync state per scope: the leader's, on a hub that follows (with this hub's write marks). */
  syncStates(): SyncState[]
  /**
   * sync:now, sync:audit, sync:resync: run on this hub's monitor, or, on a hub that follows,
   * relayed to the leader's (whose states and coverage its desktops are shown).
   */
  sync(action: SyncAction, operator: string): Promise<void>
  /** Applies a change of the team's settings here (and, with several hubs, on every hub). */
  updateSettings(patch: Partial<Settings>): Promise<Settings>
  version: string
  now(): number
}

const desktopOnly = (channel: string) => async (): Promise<never> => {
  throw new ContractError('forbidden_sender', `${channel} is answered by each desktop itself, not by the team hub`)
}

/**
 * The operator's handlers, each answer passed through the filter of their role
 * (answer-filter.ts): URLs without credentials below admin, no service address for a viewer.
 */
export function hubHandlers(h: HubCore, op: TeamOperator): ContractHandlers {
  const filter = answerFilter(op.role, h.profile.baseUrl)
  const table = handlerTable(h, op)
  if (op.role === 'admin') return table
  const filtered: Record<string, (input: never) => Promise<unknown>> = {}
  for (const [channel, handler] of Object.entries(table) as Array<[string, (input: never) => Promise<unknown>]>)
    filtered[channel] = async (input) => filter(await handler(input))
  return filtered as unknown as ContractHandlers
}

function handlerTable(h: HubCore, op: TeamOperator): ContractHandlers {
  const base: Pick<
    HandlerContext,
    'ready' | 'activeProfile' | 'secretFor' | 'now' | 'audit' | 'emit' | 'exportDir' | 'requireConfirmation' | 'version' | 'shellKind'
  > = {
    ready: async () => h.session,
    activeProfile: () => h.profile,
    secretFor: () => h.secret(),
    now: h.now,
    // The hub audits every call with the operator's name where it serves it (hub-server.ts).
    audit: () => undefined,
    emit: () => undefined,
    exportDir: '',
    // A change that needs confirming (the production webhook URL) is confirmed on the
    // admin's desktop, in its own native dialog, before it is sent here (team-routing.ts);
    // the hub's guard is the role (admin only), and its audit names who did it.
    requireConfirmation: async () => undefined,
    version: h.version,
    shellKind: 'hub'
  }
  const config = configHandlers(base)
  const orders = orderHandlers(base)
  const webhooks = webhookHandlers(base)
  const mine = (r: OrderRow): OrderRow => ({ ...r, watched: h.watches.has(op.name, r.type, r.orderId) })
  /** Claims and notes are on orders the team's copy holds. */
  const held = (r: OrderRef): void => {
    if (!h.session.store.orders.get(r.type, r.orderId)) throw new ContractError('invalid_input', 'This order is not in the database')
  }
  const syncing = (action: SyncAction) => async () => {
    await h.sync(action, op.name)
    return { ok: true as const }
  }

  return {
    'app:info': async () => ({
      version: h.version,
      platform: process.platform,
      shell: 'hub',
      // The merchant's API key identifies the merchant at the service: an admin's to see
      // only; its base URL is not a viewer's (docs/hub-reference.md, "Operators and roles").
      profile: op.role === 'admin' ? h.profile : { ...h.profile, apiKey: '', baseUrl: op.role === 'viewer' ? '' : h.profile.baseUrl },
      clockSkewMs: h.session.client.clock.skewMs ?? null,
      locale: null
    }),
    'app:openExternal': desktopOnly('app:openExternal'),
    'app:showMain': desktopOnly('app:showMain'),
    'app:wake': desktopOnly('app:wake'),
    'app:openLogs': desktopOnly('app:openLogs'),
    'app:openExport': desktopOnly('app:openExport'),
    'profiles:test': desktopOnly('profiles:test'),
    'confirm:answer': desktopOnly('confirm:answer'),
    'profiles:list': desktopOnly('profiles:list'),
    'profiles:create': desktopOnly('profiles:create'),
    'profiles:update': desktopOnly('profiles:update'),
    'profiles:delete': desktopOnly('profiles:delete'),
    'profiles:switch': desktopOnly('profiles:switch'),
    'profiles:signInInfo': desktopOnly('profiles:signInInfo'),
    'profiles:signIn': desktopOnly('profiles:signIn'),
    'profiles:cancelSignIn': desktopOnly('profiles:cancelSignIn'),
    'profiles:signOut': desktopOnly('profiles:signOut'),
    'secrets:status': desktopOnly('secrets:status'),
    'secrets:set': desktopOnly('secrets:set'),
    'secrets:delete': desktopOnly('secrets:delete'),
    'secrets:where': desktopOnly('secrets:where'),
    'secrets:test': desktopOnly('secrets:test'),

    'settings:get': async () => h.settings.get(),
    'settings:update': async (patch) => {
      const foreign = Object.keys(patch).filter((k) => !(HUB_SETTING_KEYS as readonly string[]).includes(k))
      if (foreign.length)
        throw new ContractError('invalid_input', `${foreign.join(', ')}: each desktop keeps its own, the team hub does not`)
      return h.updateSettings(patch as Partial<Settings>)
    },

    'config:get': config['config:get'],
    'config:refresh': () => h.refreshConfig(),
    'bank:get': config['bank:get'],

    'tickers:get': ({ fiatType }) => h.tickers.get(op.name, fiatType),
    'tickers:visibility': async ({ view, visible }) => {
      h.tickers.setVisible(op.name, view, visible)
      return { ok: true }
    },

    ...quoteHandlers(base),

    'orders:query': async (q) => {
      const r = await orders['orders:query'](q)
      return { ...r, rows: r.rows.map(mine) }
    },
    'orders:get': async (ref) => {
      const r = await orders['orders:get'](ref)
      return r && { ...r, row: mine(r.row) }
    },
    'orders:watch': async ({ type, orderId, watch }) => {
      if (watch) await h.watches.watch(op.name, type, orderId, h.session.monitor)
      else await h.watches.unwatch(op.name, type, orderId, h.session.monitor)
      return { ok: true }
    },
    'orders:claim': (input) => {
      held(input)
      return h.claims.claim(op.name, input, async (name) =>
        (await h.operators.list()).some((o) => o.name.toLowerCase() === name.toLowerCase())
      )
    },
    'orders:note': (input) => {
      held(input)
      return h.claims.note(op.name, input)
    },
    // On a hub that follows another, answered without keeping it: the leader keeps the orders.
    'orders:check': orders['orders:check'],
    'orders:unreadable': orders['orders:unreadable'],
    'orders:watched': async () => ({ rows: trayRows(h.session.store, await h.watches.list(op.name)) }),
    'orders:export': desktopOnly('orders:export'),

    ...budgetHandlers(base),
    'sync:coverage': async () => h.coverage(),
    'sync:state': async () => ({ states: h.syncStates() }),
    // Answered at once; the hub-server's audit entry says who asked, here.
    'sync:now': syncing('now'),
    'sync:audit': syncing('audit'),
    'sync:resync': syncing('resync'),

    ...webhooks,
    'webhooks:sendDummy': async ({ target, url }) => {
      const own = h.webhookUrl()
      if (target === 'url' && url !== own) {
        if (!roleAtLeast(op.role, DUMMY_TO_ANY_URL))
          throw new ContractError(
            'forbidden_sender',
            `sending a dummy webhook to a URL other than the team hub's own needs the ${DUMMY_TO_ANY_URL} role (a signed dummy is a genuine signature that whoever runs the URL could reuse); ${op.name} is ${op.role === 'operator' ? 'an' : 'a'} ${op.role}, and may send one to the hub's inbox`
          )
        return webhooks['webhooks:sendDummy']({ target, url })
      }
      if (!own) throw new ContractError('invalid_input', 'the team hub has no webhook URL yet')
      return webhooks['webhooks:sendDummy']({ target: 'url', url: own })
    },
    'webhooks:deliveries': async (q) => {
      const r = await h.deliveryLog.list(q)
      return { total: r.total, rows: r.rows.map(toContractDelivery) }
    },
    'webhooks:relays': async ({ limit }) => ({ target: h.relayTarget(), ...(await h.kept.relays(limit)) }),
    'webhooks:retryRelays': async ({ ids }) => {
      const queued = await h.kept.retryRelays(ids ?? 'failed')
      h.relayNow()
      return { queued }
    },
    'webhooks:inbox': async () => {
      const url = h.webhookUrl()
      return { enabled: true, listening: url !== null, url, warning: null, error: null, refused: h.webhookRefusals() }
    },

    // Counts in the tray are formatted in the hub's default locale (it has no OS locale to follow).
    ...trayHandlers({ ...base, shell: {} }),
    ...alertHandlers(base),
    'alerts:resend': (ref) => h.resendCompletion(ref),
    // Claims and notes by the other operators of the team (the hub's copy of its backend's log).
    'activity:since': async ({ since }) => activitySince(h.session, op.name, since, h.now()),
    'activity:lastLooked': desktopOnly('activity:lastLooked'),
    'activity:seen': desktopOnly('activity:seen'),
    ...diagnosticsHandlers(base),

    'audit:list': async ({ limit }) => ({ rows: await h.audit.list(limit) }),

    'team:access': async () => ({
      team: { hubUrl: h.publicUrl() ?? '', operator: op.name, role: op.role, connected: true, expiresAt: op.expiresAt },
      channels: channelsOf(op.role)
    }),
    'team:operators': async () => ({ operators: await h.operators.list() }),
    'team:addOperator': async ({ name, role }) => h.operators.add(name, role),
    'team:revokeOperator': async ({ name }) => {
      await h.revoke(name)
      return { ok: true }
    },
    // The code came in a header and was checked before this (second-factor-gate.ts).
    'team:secondFactor': () => h.secondFactors.status(op.name),
    'team:proveSecondFactor': desktopOnly('team:proveSecondFactor'),
    'team:enrolSecondFactor': async () => h.secondFactors.start(op),
    'team:confirmSecondFactor': ({ code }) => h.secondFactors.confirm(op, code)
  }
}

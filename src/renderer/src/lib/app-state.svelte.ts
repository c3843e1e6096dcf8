// The state every view of the main window shares: the active profile, the merged
// configuration, settings, sync states, request budgets and clock skew, kept current
// by the contract's events. Views read it; only load() and the event handlers write it.
import { call, on, UiError } from './bridge'
import type {
  BudgetEntry,
  ChannelName,
  ChannelOutput,
  ConfigSnapshot,
  Coverage,
  ErrorInfo,
  Profile,
  Settings,
  SettingsPatch,
  SyncState,
  TeamAccess
} from '../../../shared/ipc/contract'
import { chainName, coinName, fiatName } from '../../../shared/domain/names'
import { channelNames } from '../../../shared/ipc/contract'
import { channelAccess, channelsOf } from '../../../shared/ipc/team-access'

type Info = ChannelOutput<'app:info'>
type Coin = ConfigSnapshot['coins'][number]
type Chain = ConfigSnapshot['chains'][number]

export function errorInfoOf(e: unknown): ErrorInfo {
  if (e instanceof UiError) return e.info
  return { kind: 'internal', message: e instanceof Error ? e.message : String(e), retryable: false }
}

class AppState {
  info = $state<Info | null>(null)
  profile = $state<Profile | null>(null)
  config = $state<ConfigSnapshot | null>(null)
  /** Since when the configuration has been asked for without an answer yet (null: answered or failed). */
  configWaitingSince = $state<number | null>(null)
  /** Why the configuration could not be read (views that need it say so). */
  configError = $state<ErrorInfo | null>(null)
  settings = $state<Settings | null>(null)
  sync = $state<SyncState[]>([])
  /** Whether the local copy holds every order: scopes, readings, freshness, known gaps (null: not known yet). */
  coverage = $state<Coverage | null>(null)
  budget = $state<BudgetEntry[]>([])
  skewMs = $state<number | null>(null)
  loadError = $state<ErrorInfo | null>(null)
  /** On a Team profile: who this desktop is on the hub and what its role may call (null: not known yet). */
  access = $state<TeamAccess | null>(null)
  /** Wall clock, ticking every second, for ages and countdowns. */
  now = $state(Date.now())
  /** The locale numbers, money and dates are written in: the OS's (from main) in Electron, the browser's in the harness. */
  locale = $state(browserLocale())
  /** A confirmation that must outlive the view that made it: a profile switch remounts every view. */
  notice = $state('')
  /** Bumped whenever the profile switches, so views reload what they show. */
  epoch = $state(0)

  #started = false
  /**
   * Counts the events that carry state (sync:state, coverage:changed, budget:changed), so a
   * snapshot load() asked for does not overwrite what an event newer than the request
   * said: "Try again now" reloads while the runs it started clear their errors, and the
   * answer, made before they did, would otherwise put the errors back until each scope's
   * next run.
   */
  #seq = 0
  #syncSeq = new Map<string, number>()
  /** When each scope an event brought in first came into `sync` (a scope being added, not yet in any snapshot). */
  #syncAdded = new Map<string, number>()
  #coverageSeq = 0
  #budgetSeq = 0

  coin(id: number): Coin | undefined {
    return this.config?.coins.find((c) => c.id === id)
  }
  chain(id: number): Chain | undefined {
    return this.config?.chains.find((c) => c.id === id)
  }
  coinLabel = (id: number | null | undefined): string => {
    const c = id === null || id === undefined ? undefined : this.coin(id)
    return c ? c.code.toUpperCase() : coinName(id)
  }
  chainLabel = (id: number | null | undefined): string => {
    const c = id === null || id === undefined ? undefined : this.chain(id)
    return c ? c.symbol.toUpperCase() : chainName(id)
  }
  fiatLabel = (id: number | null | undefined): string => {
    const f = id === null || id === undefined ? undefined : this.config?.fiats.find((x) => x.id === id)
    return f ? f.symbol.toUpperCase() : fiatName(id)
  }
  /** A coin by code and name ("USDT · Tether USD"), for where an operator reads one order. */
  coinName = (id: number | null | undefined): string => {
    const c = id === null || id === undefined ? undefined : this.coin(id)
    return c ? withName(c.code, c.name) : coinName(id)
  }
  /** A network by symbol and name ("BEP20 · BNB Smart Chain"). */
  chainName = (id: number | null | undefined): string => {
    const c = id === null || id === undefined ? undefined : this.chain(id)
    return c ? withName(c.symbol, c.name) : chainName(id)
  }
  /** May this desktop call the channel? (Outside a team: everything. In a team: what the role allows.) */
  can = (channel: ChannelName): boolean => this.access === null || this.access.channels.includes(channel)

  /** Decimal places to show for a coin amount. */
  coinDp(id: number): number {
    return this.coin(id)?.tradeFloatPlaces ?? 6
  }

  async load(): Promise<void> {
    try {
      // First, so that a role's missing channels are hidden before anything shows them.
      this.access = await call('team:access', {})
      // The configuration comes from the service and may be slow: everything else shows without waiting for it.
      void this.loadConfig()
      const asked = this.#seq
      const [info, settings, sync, budget] = await Promise.all([
        call('app:info', {}),
        call('settings:get', {}),
        call('sync:state', {}),
        call('budget:get', {})
      ])
      this.info = info
      this.profile = info.profile
      this.skewMs = info.clockSkewMs
      this.locale = info.locale ?? browserLocale()
      this.settings = settings
      this.sync = this.#fresher(sync.states, asked)
      if (this.#budgetSeq <= asked) this.budget = budget.entries
      // A hub of an older version has no coverage: the views then show none.
      const coverageAsked = this.#seq
      const coverage = this.can('sync:coverage') ? await call('sync:coverage', {}).catch(() => null) : null
      if (this.#coverageSeq <= coverageAsked) this.coverage = coverage
      this.loadError = null
      applyTheme(settings.theme)
    } catch (e) {
      this.loadError = errorInfoOf(e)
    }
  }

  /**
   * The states of a snapshot asked for at `asked`, each replaced by a newer event's, and the
   * scopes being added since (their first event came after the ask). A scope the snapshot
   * no longer has and that was there before is gone (merged into fiat 0: removal sends no
   * event), however recent its last event.
   */
  #fresher(snapshot: readonly SyncState[], asked: number): SyncState[] {
    const newer = (s: SyncState) => (this.#syncSeq.get(scopeKey(s)) ?? 0) > asked
    const out = snapshot.map((s) => (newer(s) ? (this.sync.find((x) => scopeKey(x) === scopeKey(s)) ?? s) : s))
    for (const s of this.sync) {
      const key = scopeKey(s)
      if (out.some((x) => scopeKey(x) === key)) continue
      if ((this.#syncAdded.get(key) ?? 0) > asked) out.push(s)
      else this.#syncAdded.delete(key)
    }
    return out
  }

  async loadConfig(): Promise<void> {
    this.configWaitingSince ??= Date.now()
    try {
      this.config = await call('config:get', {})
      this.configError = null
    } catch (e) {
      this.configError = errorInfoOf(e)
    } finally {
      this.configWaitingSince = null
    }
  }

  start(): void {
    if (this.#started) return
    this.#started = true
    setInterval(() => (this.now = Date.now()), 1000)
    on('profile:changed', (p) => {
      this.profile = p
      // Until the hub says who this desktop is on it, a Team profile may do what every operator
      // may (as main offers it): the views built below must not ask the hub for what the last
      // profile could, only to be refused and audited.
      this.access =
        p.kind === 'team'
          ? { team: null, channels: [...channelNames.filter((c) => channelAccess(c) === 'desktop'), ...channelsOf('viewer')] }
          : null
      // The last profile's coins, networks and limits are not this one's: none until its own arrive.
      this.config = null
      this.configError = null
      this.epoch++
      void this.load()
    })
    on('sync:state', (s) => {
      this.#syncSeq.set(scopeKey(s), ++this.#seq)
      const i = this.sync.findIndex((x) => x.type === s.type && x.fiatType === s.fiatType)
      if (i >= 0) this.sync[i] = s
      else {
        this.#syncAdded.set(scopeKey(s), this.#seq)
        this.sync.push(s)
      }
    })
    on('budget:changed', (b) => {
      this.#budgetSeq = ++this.#seq
      this.budget = b.entries
    })
    on('coverage:changed', (c) => {
      this.#coverageSeq = ++this.#seq
      this.coverage = c
    })
    on('config:updated', (c) => {
      this.config = c
      this.configError = null
    })
    on('clock:skew', (s) => (this.skewMs = s.skewMs))
    // The network is back (in Electron main also hears sleep and unlock from the OS): ask
    // main to refetch now rather than at the next interval, and reload what this window holds.
    window.addEventListener('online', () => {
      void call('app:wake', {}).catch(() => undefined)
      void this.load()
    })
    on('team:access', (a) => (this.access = a))
    void this.load()
  }

  async updateSettings(patch: SettingsPatch): Promise<void> {
    this.settings = await call('settings:update', patch)
    applyTheme(this.settings.theme)
  }
}

const scopeKey = (s: Pick<SyncState, 'type' | 'fiatType'>): string => `${s.type}:${s.fiatType}`

/** "USDT · Tether USD"; the code alone when the name says no more. */
function withName(code: string, name: string): string {
  return name && name.toUpperCase() !== code.toUpperCase() ? `${code.toUpperCase()} · ${name}` : code.toUpperCase()
}

function browserLocale(): string {
  // No navigator outside a page (the state's unit tests run in Node).
  return (typeof navigator !== 'undefined' && navigator.language) || 'en-US'
}

function applyTheme(theme: Settings['theme']): void {
  if (theme === 'system') delete document.documentElement.dataset.theme
  else document.documentElement.dataset.theme = theme
}

export const app = new AppState()

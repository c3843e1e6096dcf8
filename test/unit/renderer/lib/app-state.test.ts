// The state the main window's views share: loaded through the contract, kept current by
// its events, with labels that prefer the service's configuration over the built-in names.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type { BudgetEntry, ConfigSnapshot, Profile, Settings, SyncState } from '../../../../src/shared/ipc/contract'
import { channelNames } from '../../../../src/shared/ipc/contract'
import type * as AppStateModule from '../../../../src/renderer/src/lib/app-state.svelte'
import type * as BridgeModule from '../../../../src/renderer/src/lib/bridge'
import { runningState, syncState } from '../../../support/sync-state'

const sandbox: Profile = {
  id: 'sandbox',
  name: 'Sandbox',
  kind: 'sandbox',
  baseUrl: 'http://127.0.0.1:1',
  serviceName: 'service',
  apiKey: 'k'
}
const live: Profile = { ...sandbox, id: 'live', name: 'Live', kind: 'live', baseUrl: 'https://api.example.com' }

const settings: Settings = {
  theme: 'dark',
  startAtLogin: false,
  historyPollSeconds: 30,
  watchPollSeconds: 10,
  tickerPollSeconds: 10,
  reconcileHours: 24,
  freshnessMinutes: 10,
  fiatTypes: [1],
  tickerFiat: 1,
  pinnedTickers: [],
  notify: { terminalSuccess: true, terminalFailure: true, needsAttention: true, anyChange: false, watchedOnly: false },
  allowPlaintextSecrets: false,
  stalledMinutes: { '2:3': 30 },
  inbox: { enabled: false, host: '127.0.0.1', port: 0, keepDays: 30, keepDeliveries: 10_000 }
}

const config: ConfigSnapshot = {
  fetchedAt: 1,
  stale: false,
  fiats: [{ id: 1, symbol: 'inr' }],
  coins: [{ id: 54, code: 'usdt', name: 'Tether', tradeFloatPlaces: 2, networks: [1] }],
  chains: [{ id: 1, symbol: 'bep20', name: 'BNB Smart Chain', detail: {} }],
  gasFees: {},
  limits: { onramp: {}, offramp: {} },
  minimumBuyAmount: {},
  minimumSellAmount: {},
  coinLimits: {},
  gatewayFee: {}
}

const scope = (fiatType: number, running: boolean): SyncState => (running ? runningState({ fiatType }) : syncState({ fiatType }))
const budget: BudgetEntry[] = [{ endpoint: 'priceTicker', limit: 10, usedInWindow: 2, queued: 0, nextSlotAt: null, blockedUntil: null }]

let active = sandbox
let syncAnswer: SyncState[] = [scope(1, false)]
/** While set, sync:state answers (what it was when asked) only when released. */
let holdSync: Promise<void> | null = null
let failConfig = false
/** While set, config:get answers only when released (a service that hangs). */
let holdConfig: Promise<void> | null = null
const main = contractBridge({
  'app:info': async () => ({ version: '1.2.3', platform: 'linux', shell: 'web', profile: active, clockSkewMs: 250, locale: null }),
  'config:get': async () => {
    if (holdConfig) await holdConfig
    if (failConfig) throw Object.assign(new Error('the service is unreachable'), { kind: 'network', retryable: true })
    return config
  },
  'settings:get': async () => settings,
  'settings:update': async (patch) => ({ ...settings, ...patch, inbox: { ...settings.inbox, ...patch.inbox } }),
  'sync:state': async () => {
    // Made now, answered when released: events may pass it on the way.
    const answer = { states: syncAnswer }
    if (holdSync) await holdSync
    return answer
  },
  'budget:get': async () => ({ entries: budget }),
  'team:access': async () => ({ team: null, channels: [...channelNames] })
})

const dataset: Record<string, string> = {}
let mod: typeof AppStateModule
let UiError: typeof BridgeModule.UiError
const settle = () => new Promise<void>((r) => setTimeout(r, 0))
/** What the state listens to on the window (the network coming back). */
const windowListeners = new Map<string, () => void>()

beforeAll(async () => {
  vi.stubGlobal('window', { rampdesk: main.bridge, addEventListener: (type: string, fn: () => void) => windowListeners.set(type, fn) })
  vi.stubGlobal('document', { documentElement: { dataset } })
  mod = await import('../../../../src/renderer/src/lib/app-state.svelte')
  ;({ UiError } = await import('../../../../src/renderer/src/lib/bridge'))
})
afterAll(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('errorInfoOf', () => {
  it("passes main's error through, and makes anything else an internal error with its message", () => {
    const info = { kind: 'rate_limited', message: 'wait', retryable: true }
    expect(mod.errorInfoOf(new UiError(info))).toBe(info)
    expect(mod.errorInfoOf(new TypeError('boom'))).toEqual({ kind: 'internal', message: 'boom', retryable: false })
    expect(mod.errorInfoOf('plain')).toEqual({ kind: 'internal', message: 'plain', retryable: false })
  })
})

describe('app state', () => {
  it('loads info, config, settings, sync states and budgets, and applies the theme', async () => {
    const { app } = mod
    await app.load()
    expect(app.info?.version).toBe('1.2.3')
    expect(app.profile).toEqual(sandbox)
    expect(app.skewMs).toBe(250)
    expect(app.config).toEqual(config)
    expect(app.sync).toEqual([scope(1, false)])
    expect(app.budget).toEqual(budget)
    expect(app.loadError).toBeNull()
    expect(dataset.theme).toBe('dark')
  })

  it("labels coins and chains by the service's codes, fiats by its symbols, and falls back to built-in names", () => {
    const { app } = mod
    expect(app.coinLabel(54)).toBe('USDT')
    expect(app.chainLabel(1)).toBe('BEP20')
    expect(app.fiatLabel(1)).toBe('INR')
    // Not in this config: the built-in tables, or the id.
    expect(app.fiatLabel(2)).toBe('TRY')
    expect(app.chainLabel(4)).toBe('SPL')
    expect(app.coinLabel(99999)).toBe('#99999')
    expect(app.coinLabel(null)).toBe('#?')
    expect(app.coinDp(54)).toBe(2)
    expect(app.coinDp(99999)).toBe(6)
  })

  it('keeps a configuration that failed in configError, in the words main gave, and the rest loaded', async () => {
    failConfig = true
    await mod.app.load()
    await settle()
    failConfig = false
    expect(mod.app.configError).toMatchObject({ kind: 'network', message: 'the service is unreachable' })
    expect(mod.app.loadError).toBeNull()
    expect(mod.app.info?.version).toBe('1.2.3')
    await mod.app.loadConfig()
    expect(mod.app.configError).toBeNull()
  })

  it('shows everything else while the configuration is slow, and says since when it waits', async () => {
    let release = () => {}
    holdConfig = new Promise<void>((r) => (release = r))
    const { app } = mod
    app.config = null
    await app.load()
    expect(app.settings).not.toBeNull()
    expect(app.sync.length).toBeGreaterThan(0)
    expect(app.config).toBeNull()
    expect(app.configWaitingSince).not.toBeNull()
    holdConfig = null
    release()
    await settle()
    await settle()
    expect(app.config).toEqual(config)
    expect(app.configWaitingSince).toBeNull()
  })

  it('follows the contract events once started, and reloads on a profile switch', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'Date'] })
    vi.setSystemTime(1_000_000)
    const { app } = mod
    app.start()
    app.start()
    expect(main.listeners('sync:state')).toBe(1)
    // The network coming back is heard (main is asked to refetch at once).
    expect(windowListeners.has('online')).toBe(true)
    await settle()

    main.emit('sync:state', scope(1, true))
    main.emit('sync:state', scope(2, false))
    expect(app.sync).toEqual([scope(1, true), scope(2, false)])
    main.emit('budget:changed', { entries: [] })
    expect(app.budget).toEqual([])
    main.emit('clock:skew', { skewMs: -40 })
    expect(app.skewMs).toBe(-40)
    main.emit('config:updated', { ...config, stale: true })
    expect(app.config?.stale).toBe(true)

    const epoch = app.epoch
    active = live
    main.emit('profile:changed', live)
    expect(app.profile).toEqual(live)
    expect(app.epoch).toBe(epoch + 1)
    await settle()
    expect(app.info?.profile).toEqual(live)
    expect(app.config?.stale).toBe(false)

    vi.advanceTimersByTime(3000)
    expect(app.now).toBe(1_003_000)
  })

  /** A load() whose sync:state snapshot is held until these sync:state events have arrived. */
  async function loadWhile(...events: SyncState[]): Promise<void> {
    let release = () => {}
    holdSync = new Promise<void>((r) => (release = r))
    const loading = mod.app.load()
    await settle()
    for (const e of events) main.emit('sync:state', e)
    holdSync = null
    release()
    await loading
  }

  it('a reload does not put back what newer events cleared ("Try again now" while the runs it started succeed)', async () => {
    const { app } = mod
    const failing = syncState({ fiatType: 1, lastError: { kind: 'network', message: 'connection reset', retryable: true } })
    syncAnswer = [failing, scope(2, false)]
    // The run ends well while the snapshot, made before, is on its way; another scope's
    // state is only in the snapshot, and a third only in an event.
    await loadWhile(scope(1, false), scope(3, true))
    expect(app.sync).toEqual([scope(1, false), scope(2, false), scope(3, true)])
    // A later reload, with nothing newer, takes the snapshot whole.
    syncAnswer = [failing]
    await app.load()
    expect(app.sync).toEqual([failing])
    syncAnswer = [scope(1, false)]
  })

  it('a reload drops a scope merged away after its last event; one being added stays', async () => {
    const { app } = mod
    syncAnswer = [scope(1, false), scope(2, false)]
    await app.load()
    // Fiat 2 is merged into another scope right after its last event: removal sends no event.
    syncAnswer = [scope(1, false)]
    await loadWhile(scope(2, true), scope(3, true))
    expect(app.sync).toEqual([scope(1, false), scope(3, true)])
    syncAnswer = [scope(1, false)]
  })

  it('sends a settings change through the contract and applies the new theme', async () => {
    await mod.app.updateSettings({ theme: 'light' })
    expect(mod.app.settings?.theme).toBe('light')
    expect(dataset.theme).toBe('light')
    expect(main.calls.at(-1)).toEqual({ channel: 'settings:update', input: { theme: 'light' } })
  })
})

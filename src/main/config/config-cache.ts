// The configuration endpoints, cached with stale-while-revalidate. A start with a fresh
// cache spends no request budget; a stale entry is served at once while a background
// refresh runs; without the network the last known config is served, marked stale.
// The merged ConfigSnapshot is what the renderer sees.
//
// allCoinLimits takes a fiat type: it is kept for the fiat types the operator follows
// (and any a quote asked about), in the background. It only sharpens the quote form's
// pre-check, so a fiat's coin limits that are missing or failing never make the config
// stale nor hold up a get().
import type { ApiClient } from '../api/client'
import { toErrorInfo, type ApiErrorInfo } from '../../shared/api/errors'
import type { ConfigSnapshot } from '../../shared/ipc/contract'
import { FIAT_SYMBOLS } from '../../shared/domain/names'
import type {
  ChainDetail,
  ChainMappingData,
  CoinConfig,
  ConfigMappingData,
  GasFeeData,
  LimitsByType,
  PublicAllConfigData,
  BankDetails,
  CoinLimitsData
} from '../../shared/api/schemas'
import { serviceAbortController } from '../abort'

/** Where cached answers live (the profile database's config_cache table). */
export interface ConfigCacheStore {
  get(key: string): { json: string; fetchedAt: number } | undefined
  put(key: string, json: string, fetchedAt: number): void
}

type BaseSource = 'publicAllConfig' | 'allConfigMapping' | 'allGasFee' | 'limits' | 'allChainMapping' | 'bankDetails'
/** allCoinLimits for one fiat type. */
type CoinLimitsSource = `allCoinLimits:${number}`
type SourceName = BaseSource | CoinLimitsSource

const coinLimitsSource = (fiatType: number): CoinLimitsSource => `allCoinLimits:${fiatType}`
const isCoinLimits = (n: SourceName): n is CoinLimitsSource => n.startsWith('allCoinLimits:')

interface SourceData extends Record<CoinLimitsSource, CoinLimitsData> {
  publicAllConfig: PublicAllConfigData
  allConfigMapping: ConfigMappingData
  allGasFee: GasFeeData
  limits: LimitsByType
  allChainMapping: ChainMappingData
  bankDetails: BankDetails
}

/** How long an answer counts as fresh. Limited endpoints (10/min) are refreshed rarely. */
export const DEFAULT_TTL_MS: Record<BaseSource | 'allCoinLimits', number> = {
  publicAllConfig: 5 * 60_000,
  allGasFee: 5 * 60_000,
  limits: 15 * 60_000,
  allCoinLimits: 15 * 60_000,
  allConfigMapping: 60 * 60_000,
  allChainMapping: 60 * 60_000,
  bankDetails: 30 * 60_000
}

const CONFIG_SOURCES: BaseSource[] = ['publicAllConfig', 'allConfigMapping', 'allGasFee', 'limits']

export interface ConfigCacheOptions {
  client: ApiClient
  store: ConfigCacheStore
  now?: () => number
  ttlMs?: Partial<Record<BaseSource | 'allCoinLimits', number>>
  onUpdate?: (snapshot: ConfigSnapshot) => void
  /** The fiat types whose allCoinLimits are kept (read at each use: settings may change). Default none. */
  coinLimitFiats?: () => readonly number[]
  /** After a failed fetch, get() and revalidate() leave the source alone this long (refreshAll does not). Default 30 s. */
  retryAfterErrorMs?: number
}

interface Entry<T> {
  data: T
  fetchedAt: number
}

export class ConfigCache {
  private readonly now: () => number
  private readonly ttl: Record<BaseSource | 'allCoinLimits', number>
  /** Fiat types a quote asked about beyond coinLimitFiats(): their coin limits are kept too. */
  private readonly askedFiats = new Set<number>()
  private readonly inflight = new Map<SourceName, Promise<void>>()
  private readonly errors = new Map<SourceName, ApiErrorInfo>()
  private readonly errorAt = new Map<SourceName, number>()
  private readonly abort = serviceAbortController()
  private memo: ConfigSnapshot | null = null
  /** Bumped by every successful fetch: tells a background revalidation whether anything changed. */
  private version = 0

  constructor(private readonly o: ConfigCacheOptions) {
    this.now = o.now ?? Date.now
    this.ttl = { ...DEFAULT_TTL_MS, ...o.ttlMs }
  }

  private read<N extends SourceName>(name: N): Entry<SourceData[N]> | undefined {
    const row = this.o.store.get(`config:${name}`)
    if (!row) return undefined
    try {
      return { data: JSON.parse(row.json) as SourceData[N], fetchedAt: row.fetchedAt }
    } catch {
      return undefined
    }
  }

  private isFresh(name: SourceName): boolean {
    const e = this.o.store.get(`config:${name}`)
    return !!e && this.now() - e.fetchedAt < this.ttl[isCoinLimits(name) ? 'allCoinLimits' : name]
  }

  /**
   * Whether get() and revalidate() may fetch a source: not right after it failed, or a
   * service that is down would be asked again on every config:get, spending the budget
   * of the limited endpoints on answers that cannot come.
   */
  private mayRetry(name: SourceName): boolean {
    const at = this.errorAt.get(name)
    return at === undefined || this.now() - at >= (this.o.retryAfterErrorMs ?? 30_000)
  }

  private fetchSource(name: SourceName): Promise<unknown> {
    const opts = { priority: 'background' as const, signal: this.abort.signal }
    const c = this.o.client
    if (isCoinLimits(name)) return c.allCoinLimits({ fiatType: Number(name.slice('allCoinLimits:'.length)) }, opts)
    switch (name) {
      case 'publicAllConfig':
        return c.publicAllConfig(opts)
      case 'allConfigMapping':
        return c.allConfigMapping(opts)
      case 'allGasFee':
        return c.allGasFee(opts)
      case 'limits':
        return c.limits({ type: 3 }, opts)
      case 'allChainMapping':
        return c.allChainMapping(opts)
      case 'bankDetails':
        return c.bankDetails(opts)
    }
  }

  /** Fetches one source (single-flight); failures are recorded, never thrown. */
  private refresh(name: SourceName): Promise<void> {
    const running = this.inflight.get(name)
    if (running) return running
    const p = (async () => {
      try {
        const data = await this.fetchSource(name)
        // A session closing while the answer arrives: its database may already be gone.
        if (this.abort.signal.aborted) return
        this.o.store.put(`config:${name}`, JSON.stringify(data), this.now())
        this.errors.delete(name)
        this.errorAt.delete(name)
        this.memo = null
        this.version++
      } catch (e) {
        this.errors.set(name, toErrorInfo(e))
        this.errorAt.set(name, this.now())
      } finally {
        this.inflight.delete(name)
      }
    })()
    this.inflight.set(name, p)
    return p
  }

  private neededSources(): BaseSource[] {
    const pub = this.read('publicAllConfig')
    // Chain details come with the public config; ask allChainMapping only when they do not.
    return pub && !pub.data.networkConfig ? [...CONFIG_SOURCES, 'allChainMapping'] : CONFIG_SOURCES
  }

  /** The coin limits kept: for the followed fiat types and those a quote asked about. */
  private coinLimitSources(): CoinLimitsSource[] {
    const fiats = new Set([...(this.o.coinLimitFiats?.() ?? []), ...this.askedFiats])
    return [...fiats].filter((f) => Number.isSafeInteger(f) && f > 0).map(coinLimitsSource)
  }

  /**
   * A quote in this fiat is being asked: keep its coin limits from now on, fetching them
   * in the background when missing (the snapshot is pushed through onUpdate when they come).
   */
  wantCoinLimits(fiatType: number): void {
    if (this.askedFiats.has(fiatType) || !Number.isSafeInteger(fiatType) || fiatType <= 0) return
    this.askedFiats.add(fiatType)
    this.memo = null
    void this.revalidate()
  }

  /**
   * The snapshot: sources never fetched are fetched first (and awaited); stale ones are
   * served as they are and revalidated in the background.
   */
  async get(): Promise<ConfigSnapshot> {
    const missing = this.neededSources().filter((n) => !this.read(n) && this.mayRetry(n))
    if (missing.length) await Promise.all(missing.map((n) => this.refresh(n)))
    // publicAllConfig may just have told us that allChainMapping is needed.
    const more = this.neededSources().filter((n) => !this.read(n) && !missing.includes(n) && this.mayRetry(n))
    if (more.length) await Promise.all(more.map((n) => this.refresh(n)))
    void this.revalidate()
    return this.snapshot()
  }

  /** Starts background refreshes of stale sources; resolves when they settle. */
  revalidate(): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve()
    const stale = [...this.neededSources(), ...this.coinLimitSources()].filter((n) => !this.isFresh(n) && this.mayRetry(n))
    if (!stale.length) return Promise.resolve()
    // Compare versions, not the memo: on the first get() no snapshot has been built yet,
    // and the renderer must still hear about what the background refresh brought.
    const before = this.version
    return Promise.all(stale.map((n) => this.refresh(n))).then(() => {
      if (this.version !== before && !this.abort.signal.aborted) this.o.onUpdate?.(this.snapshot())
    })
  }

  /** Refetches every source now (operator's "refresh"). */
  async refreshAll(): Promise<ConfigSnapshot> {
    await Promise.all([...this.neededSources(), ...this.coinLimitSources()].map((n) => this.refresh(n)))
    const snap = this.snapshot()
    this.o.onUpdate?.(snap)
    return snap
  }

  lastErrors(): ApiErrorInfo[] {
    return [...this.errors.values()]
  }

  async bank(): Promise<{ details: BankDetails | null; fetchedAt: number | null; stale: boolean; error: ApiErrorInfo | null }> {
    if (!this.read('bankDetails')) {
      if (this.mayRetry('bankDetails')) await this.refresh('bankDetails')
    } else if (!this.isFresh('bankDetails') && this.mayRetry('bankDetails') && !this.abort.signal.aborted) void this.refresh('bankDetails')
    const e = this.read('bankDetails')
    const error = this.errors.get('bankDetails') ?? null
    return { details: e?.data ?? null, fetchedAt: e?.fetchedAt ?? null, stale: !e || !this.isFresh('bankDetails') || !!error, error }
  }

  /** Aborts the fetches in flight and waits for them to settle (nothing touches the store after). */
  async close(): Promise<void> {
    this.abort.abort()
    await Promise.allSettled([...this.inflight.values()])
  }

  /** Merges the cached sources into the renderer's view of the configuration. */
  snapshot(): ConfigSnapshot {
    if (this.memo) return { ...this.memo, stale: this.computeStale() }
    const pub = this.read('publicAllConfig')
    const mapping = this.read('allConfigMapping')
    const gas = this.read('allGasFee')
    const limits = this.read('limits')
    const chainMap = this.read('allChainMapping')
    const p = pub?.data

    const fiatMap = mapping?.data.fiatSymbolMapping ?? {}
    const fiats = Object.keys(fiatMap).length
      ? Object.entries(fiatMap).map(([symbol, id]) => ({ id, symbol: symbol.toUpperCase() }))
      : Object.entries(FIAT_SYMBOLS).map(([id, symbol]) => ({ id: Number(id), symbol }))
    fiats.sort((a, b) => a.id - b.id)

    const coins = Object.entries(p?.allCoinConfig ?? {}).map(([code, c]: [string, CoinConfig]) => ({
      id: c.coinId,
      code,
      name: c.coinName,
      ...(c.coinIcon ? { icon: c.coinIcon } : {}),
      tradeFloatPlaces: c.tradeFloatPlaces ?? 8,
      networks: c.networks
    }))
    coins.sort((a, b) => a.code.localeCompare(b.code))

    const chainDetails: Record<string, ChainDetail> = p?.networkConfig ?? chainsOf(chainMap?.data)
    const chains = Object.entries(chainDetails).map(([id, d]) => ({
      id: Number(id),
      symbol: d.chainSymbol,
      name: d.chainName ?? d.chainSymbol,
      detail: d as Record<string, unknown>
    }))
    chains.sort((a, b) => a.id - b.id)

    const gasFees: ConfigSnapshot['gasFees'] = {}
    const addFee = (coin: string, chain: string, e: Record<string, unknown>) => {
      if (typeof e.withdrawalFee !== 'string' || typeof e.minimumWithdrawal !== 'string') return
      ;(gasFees[coin] ??= {})[chain] = {
        withdrawalFee: e.withdrawalFee,
        minimumWithdrawal: e.minimumWithdrawal,
        nodeInSync: Number(e.nodeInSync ?? 1),
        ...(e.depositEnable !== undefined ? { depositEnable: Number(e.depositEnable) } : {})
      }
    }
    // The public config's withdrawal-form entries first; the authenticated table (with depositEnable) wins.
    for (const [coin, byChain] of Object.entries(p?.allGasFee ?? {}))
      for (const [chain, e] of Object.entries(byChain)) addFee(coin, chain, e as Record<string, unknown>)
    for (const [coin, byChain] of Object.entries(gas?.data ?? {}))
      for (const [chain, e] of Object.entries(byChain)) addFee(coin, chain, e as Record<string, unknown>)

    const limitMap = (m: LimitsByType['onramp']) =>
      Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, { min: v.min, max: v.max }]))

    const coinLimits: ConfigSnapshot['coinLimits'] = {}
    for (const n of this.coinLimitSources()) {
      const fiat = n.slice('allCoinLimits:'.length)
      const read = coinLimitsOf(this.read(n)?.data, fiat)
      if (read) coinLimits[fiat] = read
    }

    const sources = this.neededSources().map((n) => this.o.store.get(`config:${n}`)?.fetchedAt)
    const fetchedAt = sources.every((t) => t !== undefined) ? Math.min(...(sources as number[])) : null

    this.memo = {
      fetchedAt,
      stale: false,
      fiats,
      coins,
      chains,
      gasFees,
      limits: { onramp: limitMap(limits?.data.onramp), offramp: limitMap(limits?.data.offramp) },
      minimumBuyAmount: p?.minimumBuyAmount ?? {},
      minimumSellAmount: p?.minimumSellAmount ?? {},
      coinLimits,
      gatewayFee: p?.gatewayFee ?? {}
    }
    return { ...this.memo, stale: this.computeStale() }
  }

  private computeStale(): boolean {
    return this.neededSources().some((n) => !this.isFresh(n) || this.errors.has(n))
  }
}

/**
 * One fiat's allCoinLimits answer as the snapshot keeps it: shape A, that fiat's {min, max}
 * (undefined when the answer does not name it); shape B, coin -> chain -> amount.
 */
function coinLimitsOf(d: CoinLimitsData | undefined, fiat: string): ConfigSnapshot['coinLimits'][string] | undefined {
  if (!d) return undefined
  if ('onramp' in d && d.onramp && typeof d.onramp === 'object' && !Array.isArray(d.onramp)) {
    const own = (d.onramp as Record<string, { min?: unknown; max?: unknown }>)[fiat]
    return own && typeof own.min === 'string' && typeof own.max === 'string' ? { shape: 'A', min: own.min, max: own.max } : undefined
  }
  const byCoin: Record<string, Record<string, string>> = {}
  for (const [coin, byChain] of Object.entries(d as Record<string, unknown>)) {
    if (!byChain || typeof byChain !== 'object') continue
    for (const [chain, v] of Object.entries(byChain)) if (typeof v === 'string') (byCoin[coin] ??= {})[chain] = v
  }
  return { shape: 'B', byCoin }
}

function chainsOf(d: ChainMappingData | undefined): Record<string, ChainDetail> {
  if (!d) return {}
  if ('networkConfig' in d && d.networkConfig && typeof d.networkConfig === 'object') return d.networkConfig as Record<string, ChainDetail>
  return d as Record<string, ChainDetail>
}

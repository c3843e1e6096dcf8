// ConfigCache against a fake client that counts calls and answers with what the real
// client would return (raw service JSON parsed by the endpoints' own response schemas):
// fetch-once on first start, no requests with a fresh cache (also across a reopen), a
// stale entry served at once and revalidated in the background, the last known config
// served (stale, error kept) when the service fails, and the snapshot's merges; the
// coin limits (allCoinLimits, shapes A and B) per fiat, kept in the background.
import { describe, expect, it } from 'vitest'
import { endpoints } from '../../../../src/shared/api/endpoints'
import { ApiError } from '../../../../src/shared/api/errors'
import type { ApiClient } from '../../../../src/main/api/client'
import type { CallOptions } from '../../../../src/main/api/client'
import { ConfigCache, DEFAULT_TTL_MS, type ConfigCacheStore } from '../../../../src/main/config/config-cache'
import type { ConfigSnapshot } from '../../../../src/shared/ipc/contract'

const CHAIN_DETAILS = {
  '0': {
    chainSymbol: 'erc20',
    chainName: 'Ethereum',
    addressRegex: '^(0x)[0-9A-Fa-f]{40}$',
    memoRegex: '',
    startingWith: ['0x'],
    networkId: 1,
    nativeToken: 14,
    node: 0,
    hashLink: 'https://etherscan.io/tx/',
    confirmations: 12
  },
  '1': {
    chainSymbol: 'bep20',
    chainName: 'Binance Smart Chain',
    startingWith: ['0x'],
    networkId: 56,
    node: 0,
    hashLink: 'https://bscscan.com/tx/'
  },
  '2': {
    chainSymbol: 'trc20',
    chainName: 'Tron',
    addressRegex: '^T[1-9A-HJ-NP-Za-km-z]{33}$',
    startingWith: ['T'],
    networkId: -1,
    nativeToken: -1,
    node: 1,
    hashLink: 'https://tronscan.org/#/transaction/'
  }
}

/** Raw bodies as the service sends them (numbers with float artefacts, ids as text). */
function rawBodies(opts: { networkConfig?: boolean; usdtFee?: string } = {}) {
  const withNetworks = opts.networkConfig ?? true
  return {
    publicAllConfig: {
      status: 1,
      code: 200,
      data: {
        allCoinConfig: {
          usdt: {
            coinId: '54',
            coinName: 'Tether',
            coinIcon: 'https://example.test/usdt.png',
            balanceFloatPlaces: 2,
            tradeFloatPlaces: 2,
            networks: [0, '1', 2]
          },
          eth: { coinId: 14, coinName: 'Ether', tradeFloatPlaces: 6, networks: [0] }
        },
        ...(withNetworks ? { networkConfig: CHAIN_DETAILS } : {}),
        // The public table's withdrawal form: no depositEnable; the authenticated table must win.
        allGasFee: {
          '54': {
            '0': { withdrawalFee: '9.9', minimumWithdrawal: '99', nodeInSync: 1 },
            '2': { withdrawalFee: '1', minimumWithdrawal: '10.000', nodeInSync: '1' }
          }
        },
        minimumBuyAmount: { '54': { '0': 1000.5 } },
        minimumSellAmount: { '1': 500 },
        gatewayFee: { '1': { '0': 10, '10000': 0.008157600000000001 } }
      }
    },
    allConfigMapping: {
      status: 1,
      code: 200,
      data: {
        fiatSymbolMapping: { inr: 1, TRY: 2 },
        coinSymbolMapping: { usdt: '54', eth: 14 },
        chainSymbolMapping: { erc20: 0, bep20: 1, trc20: 2 }
      }
    },
    allGasFee: {
      status: 1,
      code: 200,
      data: {
        '54': {
          '0': { withdrawalFee: opts.usdtFee ?? '4.5', minimumWithdrawal: '10', nodeInSync: 1, depositEnable: 1 },
          '1': { withdrawalFee: '0.29', minimumWithdrawal: '1', nodeInSync: 0, depositEnable: 0 }
        },
        '14': { '0': { withdrawalFee: '0.00098', minimumWithdrawal: '0.005', nodeInSync: 1, depositEnable: 1 } }
      }
    },
    limits: {
      status: 1,
      code: 200,
      data: { onramp: { '1': { min: 100, max: 200000 }, '2': { min: 10, max: 4000.5 } }, offramp: { '1': { min: 500, max: 1000000 } } }
    },
    allChainMapping: { status: 1, code: 200, data: CHAIN_DETAILS },
    bankDetails: {
      status: 1,
      code: 200,
      data: {
        upi: { vpa: 'merchant@upi', name: 'Merchant' },
        upiNotes: [],
        bankNotes: [],
        bank: { name: 'Merchant', type: 'Current', branch: 'X', bank: 'Y', ifsc: 'ABCD0000001', accountNumber: '123' }
      }
    }
  }
}

type Source = 'publicAllConfig' | 'allConfigMapping' | 'allGasFee' | 'limits' | 'allChainMapping' | 'bankDetails'
const SOURCES: Source[] = ['publicAllConfig', 'allConfigMapping', 'allGasFee', 'limits', 'allChainMapping', 'bankDetails']

interface Deferred {
  resolve(): void
  reject(e: unknown): void
}

/** The slice of ApiClient the cache calls, with per-endpoint counts, failures and held answers. */
class FakeClient {
  calls: Record<Source, number> = Object.fromEntries(SOURCES.map((s) => [s, 0])) as Record<Source, number>
  signals: AbortSignal[] = []
  failWith: ApiError | null = null
  /** When set, answers wait until released. */
  hold = false
  held: Deferred[] = []
  bodies = rawBodies()

  private answer(name: Source, opts?: CallOptions): Promise<never> {
    this.calls[name]++
    if (opts?.signal) this.signals.push(opts.signal)
    const run = (): never => {
      if (opts?.signal?.aborted) throw new ApiError({ kind: 'aborted', endpoint: name, message: 'aborted' })
      if (this.failWith) throw this.failWith
      return (endpoints[name].response as unknown as { parse(v: unknown): { data: never } }).parse(this.bodies[name]).data
    }
    if (!this.hold) return Promise.resolve().then(run)
    return new Promise<void>((resolve, reject) => {
      this.held.push({ resolve, reject })
      opts?.signal?.addEventListener('abort', () => reject(new ApiError({ kind: 'aborted', endpoint: name, message: 'aborted' })))
    }).then(run)
  }

  release(): void {
    for (const d of this.held.splice(0)) d.resolve()
  }

  total(): number {
    return Object.values(this.calls).reduce((a, b) => a + b, 0)
  }

  publicAllConfig = (o?: CallOptions) => this.answer('publicAllConfig', o)
  allConfigMapping = (o?: CallOptions) => this.answer('allConfigMapping', o)
  allGasFee = (o?: CallOptions) => this.answer('allGasFee', o)
  limits = (req: { type: number }, o?: CallOptions) => {
    expect(req.type).toBe(3)
    return this.answer('limits', o)
  }
  allChainMapping = (o?: CallOptions) => this.answer('allChainMapping', o)
  bankDetails = (o?: CallOptions) => this.answer('bankDetails', o)

  /** allCoinLimits answers per fiat type (raw), and the fiat types asked, in order. */
  coinLimitBodies: Record<number, unknown> = {}
  coinLimitCalls: number[] = []
  coinLimitsFail = false
  allCoinLimits = async (req: { fiatType: number }, _o?: CallOptions) => {
    this.coinLimitCalls.push(req.fiatType)
    await Promise.resolve()
    if (this.coinLimitsFail) throw new ApiError({ kind: 'api', endpoint: 'allCoinLimits', code: 400, message: 'Invalid fiatType' })
    return endpoints.allCoinLimits.response.parse(this.coinLimitBodies[req.fiatType]).data
  }
}

class MemoryStore implements ConfigCacheStore {
  rows = new Map<string, { json: string; fetchedAt: number }>()
  puts = 0
  get(key: string) {
    return this.rows.get(key)
  }
  put(key: string, json: string, fetchedAt: number) {
    this.puts++
    this.rows.set(key, { json, fetchedAt })
  }
}

function setup(o: { store?: MemoryStore; client?: FakeClient; clock?: { t: number }; coinLimitFiats?: () => number[] } = {}) {
  const store = o.store ?? new MemoryStore()
  const client = o.client ?? new FakeClient()
  const clock = o.clock ?? { t: Date.parse('2026-01-01T00:00:00Z') }
  const updates: ConfigSnapshot[] = []
  const cache = new ConfigCache({
    client: client as unknown as ApiClient,
    store,
    now: () => clock.t,
    onUpdate: (s) => updates.push(s),
    ...(o.coinLimitFiats ? { coinLimitFiats: o.coinLimitFiats } : {})
  })
  return { store, client, clock, cache, updates }
}

/** Lets queued promise callbacks run (the fake answers on the microtask queue). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

describe('ConfigCache: request budget', () => {
  it('fetches each config source exactly once on first start, and the chain map only when the public config lacks it', async () => {
    const { cache, client } = setup()
    const snap = await cache.get()
    await settle()
    expect(client.calls).toEqual({ publicAllConfig: 1, allConfigMapping: 1, allGasFee: 1, limits: 1, allChainMapping: 0, bankDetails: 0 })
    expect(snap.stale).toBe(false)
    expect(snap.fetchedAt).not.toBeNull()

    const noNetworks = new FakeClient()
    noNetworks.bodies = rawBodies({ networkConfig: false })
    const second = setup({ client: noNetworks })
    const snap2 = await second.cache.get()
    expect(noNetworks.calls.allChainMapping).toBe(1)
    expect(noNetworks.calls.publicAllConfig).toBe(1)
    expect(snap2.chains.map((c) => c.symbol)).toEqual(['erc20', 'bep20', 'trc20'])
  })

  it('spends nothing with a fresh cache: repeated gets, and a new cache over the same store within the TTL', async () => {
    const first = setup()
    const a = await first.cache.get()
    await settle()
    const used = first.client.total()
    first.clock.t += 60_000
    await first.cache.get()
    await settle()
    expect(first.client.total()).toBe(used)

    // "Reopen": a new cache (new client) over the same stored rows, one minute later.
    const reopened = setup({ store: first.store, clock: first.clock })
    const b = await reopened.cache.get()
    await settle()
    expect(reopened.client.total()).toBe(0)
    expect(b).toEqual(a)
  })

  it('serves a stale source at once and revalidates it in the background, then announces the update', async () => {
    const { cache, client, clock, updates } = setup()
    await cache.get()
    await settle()
    const before = { ...client.calls }
    // Only allGasFee (5 min) and publicAllConfig (5 min) age out; limits (15 min) and the mapping (60 min) stay fresh.
    clock.t += DEFAULT_TTL_MS.allGasFee + 1
    client.bodies = rawBodies({ usdtFee: '5.25' })
    client.hold = true
    const served = await cache.get()
    // Answered before any background fetch completed: the old figures, marked stale.
    expect(client.held.length).toBe(2)
    expect(served.stale).toBe(true)
    expect(served.gasFees['54']?.['0']?.withdrawalFee).toBe('4.5')
    expect(updates).toHaveLength(0)

    client.release()
    await settle()
    expect(client.calls.allGasFee).toBe(before.allGasFee + 1)
    expect(client.calls.publicAllConfig).toBe(before.publicAllConfig + 1)
    expect(client.calls.limits).toBe(before.limits)
    expect(client.calls.allConfigMapping).toBe(before.allConfigMapping)
    expect(updates).toHaveLength(1)
    expect(updates[0]!.gasFees['54']?.['0']?.withdrawalFee).toBe('5.25')
    expect(updates[0]!.stale).toBe(false)
    expect((await cache.get()).gasFees['54']?.['0']?.withdrawalFee).toBe('5.25')
  })

  it('announces what a background revalidation brought even when no snapshot was built before (the first get after a restart)', async () => {
    const first = setup()
    await first.cache.get()
    await settle()
    first.clock.t += DEFAULT_TTL_MS.publicAllConfig + 1
    const reopened = setup({ store: first.store, clock: first.clock })
    reopened.client.bodies = rawBodies({ usdtFee: '6' })
    const served = await reopened.cache.get()
    expect(served.stale).toBe(true)
    await settle()
    expect(reopened.updates).toHaveLength(1)
    expect(reopened.updates[0]!.gasFees['54']?.['0']?.withdrawalFee).toBe('6')
  })

  it('with the service unreachable serves the last known config, marked stale, keeps the error, and does not hammer the service', async () => {
    const { cache, client, clock } = setup()
    const good = await cache.get()
    await settle()
    clock.t += DEFAULT_TTL_MS.limits + 1
    client.failWith = new ApiError({ kind: 'network', endpoint: 'allGasFee', message: 'connect ECONNREFUSED 127.0.0.1:9', retryable: true })
    const served = await cache.get()
    await settle()
    const after = client.total()
    expect(served.gasFees).toEqual(good.gasFees)
    const again = await cache.get()
    await settle()
    expect(again.stale).toBe(true)
    expect(again.coins).toEqual(good.coins)
    expect(cache.lastErrors().map((e) => e.kind)).toContain('network')
    // Right after the failure, get() does not ask again; after the retry pause it does.
    expect(client.total()).toBe(after)
    clock.t += 30_000
    await cache.get()
    await settle()
    expect(client.total()).toBeGreaterThan(after)

    // Back up: the operator's refresh clears the errors and the stale mark.
    client.failWith = null
    const fresh = await cache.refreshAll()
    expect(fresh.stale).toBe(false)
    expect(cache.lastErrors()).toEqual([])
  })

  it('with nothing cached and the service down, answers an empty stale snapshot with the error', async () => {
    const { cache, client } = setup()
    client.failWith = new ApiError({ kind: 'http', httpStatus: 503, endpoint: 'publicAllConfig', message: 'maintenance' })
    const snap = await cache.get()
    expect(snap.stale).toBe(true)
    expect(snap.fetchedAt).toBeNull()
    expect(snap.coins).toEqual([])
    expect(cache.lastErrors().length).toBeGreaterThan(0)
  })

  it('close() aborts fetches in flight, waits for them, and nothing reaches the store or onUpdate afterwards', async () => {
    const { cache, client, store, updates } = setup()
    client.hold = true
    const pending = cache.get()
    await settle()
    expect(client.held.length).toBe(4)
    await cache.close()
    expect(client.signals.every((s) => s.aborted)).toBe(true)
    client.release()
    await pending.catch(() => undefined)
    await settle()
    expect(store.puts).toBe(0)
    expect(updates).toHaveLength(0)
  })
})

describe('ConfigCache: snapshot merges', () => {
  it('merges gas fees with depositEnable, limits per direction, coins with networks and chains with details', async () => {
    const { cache } = setup()
    const snap = await cache.get()

    // The authenticated table wins over the public one and brings depositEnable; public-only entries stay.
    expect(snap.gasFees['54']).toEqual({
      '0': { withdrawalFee: '4.5', minimumWithdrawal: '10', nodeInSync: 1, depositEnable: 1 },
      '1': { withdrawalFee: '0.29', minimumWithdrawal: '1', nodeInSync: 0, depositEnable: 0 },
      '2': { withdrawalFee: '1', minimumWithdrawal: '10', nodeInSync: 1 }
    })
    expect(snap.gasFees['14']?.['0']).toEqual({ withdrawalFee: '0.00098', minimumWithdrawal: '0.005', nodeInSync: 1, depositEnable: 1 })

    expect(snap.limits).toEqual({
      onramp: { '1': { min: '100', max: '200000' }, '2': { min: '10', max: '4000.5' } },
      offramp: { '1': { min: '500', max: '1000000' } }
    })

    expect(snap.coins).toEqual([
      { id: 14, code: 'eth', name: 'Ether', tradeFloatPlaces: 6, networks: [0] },
      { id: 54, code: 'usdt', name: 'Tether', icon: 'https://example.test/usdt.png', tradeFloatPlaces: 2, networks: [0, 1, 2] }
    ])

    expect(snap.chains.map((c) => [c.id, c.symbol, c.name])).toEqual([
      [0, 'erc20', 'Ethereum'],
      [1, 'bep20', 'Binance Smart Chain'],
      [2, 'trc20', 'Tron']
    ])
    expect(snap.chains[0]!.detail).toMatchObject({
      addressRegex: '^(0x)[0-9A-Fa-f]{40}$',
      hashLink: 'https://etherscan.io/tx/',
      confirmations: 12
    })

    expect(snap.fiats).toEqual([
      { id: 1, symbol: 'INR' },
      { id: 2, symbol: 'TRY' }
    ])
    expect(snap.minimumBuyAmount).toEqual({ '54': { '0': '1000.5' } })
    expect(snap.minimumSellAmount).toEqual({ '1': '500' })
    expect(snap.gatewayFee).toEqual({ '1': { '0': '10', '10000': '0.008157600000000001' } })
  })

  it('the bank details: fetched once, then served from the cache until stale', async () => {
    const { cache, client, clock } = setup()
    const a = await cache.bank()
    expect(a.details).toMatchObject({ upi: { vpa: 'merchant@upi' } })
    expect(a.stale).toBe(false)
    await cache.bank()
    expect(client.calls.bankDetails).toBe(1)
    clock.t += DEFAULT_TTL_MS.bankDetails + 1
    const b = await cache.bank()
    expect(b.stale).toBe(true)
    await settle()
    expect(client.calls.bankDetails).toBe(2)
  })
})

describe('ConfigCache: coin limits (allCoinLimits)', () => {
  const shapeA = { status: 1, code: 200, data: { onramp: { '1': { min: 150, max: 150000.5 } } } }
  const shapeB = { status: 1, code: 200, data: { '54': { '0': 1000000, '1': '250000' }, '14': { '0': 0.008157600000000001 } } }

  it('keeps the followed fiat types in the background, both shapes, without holding up get() or the staleness', async () => {
    const client = new FakeClient()
    client.coinLimitBodies = { 1: shapeA, 5: shapeB }
    const { cache, updates } = setup({ client, coinLimitFiats: () => [1, 5] })
    const first = await cache.get()
    expect(first.coinLimits).toEqual({})
    await settle()
    expect(client.coinLimitCalls.sort()).toEqual([1, 5])
    const snap = updates.at(-1)!
    expect(snap.coinLimits).toEqual({
      '1': { shape: 'A', min: '150', max: '150000.5' },
      '5': { shape: 'B', byCoin: { '54': { '0': '1000000', '1': '250000' }, '14': { '0': '0.008157600000000001' } } }
    })
    expect(snap.stale).toBe(false)
    // Fresh: a later get asks nothing.
    await cache.get()
    await settle()
    expect(client.coinLimitCalls).toHaveLength(2)
  })

  it('a fiat a quote asks about is kept from then on; a shape A answer that does not name the fiat adds nothing', async () => {
    const client = new FakeClient()
    client.coinLimitBodies = { 2: shapeA }
    const { cache, updates } = setup({ client })
    await cache.get()
    await settle()
    expect(client.coinLimitCalls).toEqual([])
    cache.wantCoinLimits(2)
    cache.wantCoinLimits(2)
    await settle()
    expect(client.coinLimitCalls).toEqual([2])
    expect(updates.at(-1)!.coinLimits).toEqual({})
  })

  it('failing coin limits leave the config fresh and are not asked again before the retry pause', async () => {
    const client = new FakeClient()
    client.coinLimitsFail = true
    const { cache, clock } = setup({ client, coinLimitFiats: () => [1] })
    await cache.get()
    await settle()
    const snap = await cache.get()
    await settle()
    expect(snap.stale).toBe(false)
    expect(snap.coinLimits).toEqual({})
    expect(client.coinLimitCalls).toEqual([1])
    clock.t += 31_000
    await cache.get()
    await settle()
    expect(client.coinLimitCalls).toEqual([1, 1])
  })
})

// The sandbox's configuration data: fiat types, coins, chains, networks per coin,
// fees, limits, minimums and bank details. It is the single source every endpoint
// (config mappings, quotes, history, tickers) reads, so the answers agree with each
// other the way the live service's do. Amounts are decimal strings; choices where the
// spec is silent are documented in docs/sandbox.md; those a test can switch are
// readings (readings.ts, docs/spec-readings.md).
import { BTC_CHAIN_DETAIL, REFERENCE_CHAIN_DETAILS } from './reference-chains'
import { SPEC_CHAIN_ALIASES as CHAIN_ALIASES, SPEC_FIAT_SYMBOLS as FIAT_SYMBOLS } from './spec-tables'
import { mul } from '../shared/money'

export interface FiatDef {
  id: number
  symbol: string
  /** Decimal places of amounts in this fiat. */
  dp: number
  /** Units of this fiat per US dollar (prices are derived from USD mids). */
  perUsd: string
  onramp: { min: string; max: string }
  /** Threshold (fiat amount, as text) -> gateway fee in this fiat: the fee of the largest threshold <= amount applies. */
  gatewayFee: Record<string, string>
  /** allCoinLimits answers shape B (per coin and chain minimums) for these fiats. */
  perCoinLimits: boolean
}

export interface CoinDef {
  id: number
  code: string
  name: string
  /** USD mid price at start. */
  usd: string
  tradeDp: number
  balanceDp: number
  /** Chains the coin can be bought on (onramp). */
  networks: number[]
  /** Chains it can be sold on (offramp); spec 4.9. */
  offrampNetworks: number[]
  stable: boolean
  /** Sent as a numeric string in coinSymbolMapping (the live service mixes both). */
  idAsText: boolean
}

export interface GasEntry {
  withdrawalFee: string
  minimumWithdrawal: string
  nodeInSync: 0 | 1
  depositEnable: 0 | 1
  depositFee: string
  minimumDeposit: string
}

// ---------------------------------------------------------------- fiat (spec 2.1)

const fiatData: Omit<FiatDef, 'symbol'>[] = [
  {
    id: 1,
    dp: 2,
    perUsd: '83.2',
    onramp: { min: '100', max: '200000' },
    gatewayFee: { '0': '5', '2000': '10', '10000': '25', '50000': '50' },
    perCoinLimits: false
  },
  {
    id: 2,
    dp: 2,
    perUsd: '32.4',
    onramp: { min: '50', max: '100000' },
    gatewayFee: { '0': '2', '1000': '5', '10000': '15' },
    perCoinLimits: false
  },
  { id: 3, dp: 2, perUsd: '3.6725', onramp: { min: '20', max: '50000' }, gatewayFee: { '0': '1', '1000': '3' }, perCoinLimits: false },
  { id: 4, dp: 2, perUsd: '17.1', onramp: { min: '100', max: '200000' }, gatewayFee: { '0': '5', '5000': '12' }, perCoinLimits: false },
  {
    id: 5,
    dp: 0,
    perUsd: '24500',
    onramp: { min: '250000', max: '500000000' },
    gatewayFee: { '0': '5000', '10000000': '20000' },
    perCoinLimits: true
  },
  {
    id: 6,
    dp: 2,
    perUsd: '1500',
    onramp: { min: '5000', max: '10000000' },
    gatewayFee: { '0': '100', '500000': '300' },
    perCoinLimits: true
  },
  { id: 7, dp: 2, perUsd: '5.05', onramp: { min: '20', max: '50000' }, gatewayFee: { '0': '1', '1000': '4' }, perCoinLimits: false },
  { id: 8, dp: 2, perUsd: '3.75', onramp: { min: '20', max: '50000' }, gatewayFee: { '0': '1', '1000': '4' }, perCoinLimits: false }
]

export const FIATS: readonly FiatDef[] = fiatData.map((f) => ({ ...f, symbol: FIAT_SYMBOLS[f.id] ?? `F${f.id}` }))
export const INR = 1
/** Offramp is INR only (spec 4.9, section 8). */
export const OFFRAMP_LIMITS = { [INR]: { min: '500', max: '500000' } } as const
/** minimumSellAmount (allConfig), per fiat. */
export const MINIMUM_SELL_AMOUNT: Record<number, string> = { [INR]: '500' }

// ---------------------------------------------------------------- chains (spec 2.3)

export const BTC_CHAIN_ID = 10002

const CHAIN_NODE: Record<number, number> = {
  0: 1,
  1: 1,
  2: 1,
  3: 1,
  4: 1,
  5: 0,
  7: 0,
  8: 1,
  9: 1,
  10: 1,
  11: 1,
  12: 1,
  13: 1,
  14: 0,
  15: 1,
  21: 0,
  [BTC_CHAIN_ID]: 1
}

/** Native coin of a chain, by coin code (nativeToken -1 when the service lists no such coin). */
const NATIVE: Record<number, string> = { 0: 'eth', 1: 'bnb', 3: 'matic', 4: 'sol', 5: 'bnb', 7: 'neo', [BTC_CHAIN_ID]: 'btc' }

// ---------------------------------------------------------------- coins (spec 2.2)

export const COINS: readonly CoinDef[] = [
  {
    id: 54,
    code: 'usdt',
    name: 'Tether USD',
    usd: '1',
    tradeDp: 4,
    balanceDp: 2,
    networks: [1, 3, 0, 2],
    offrampNetworks: [1, 3, 0, 2],
    stable: true,
    idAsText: false
  },
  {
    id: 83,
    code: 'usdc',
    name: 'USD Coin',
    usd: '1',
    tradeDp: 4,
    balanceDp: 2,
    networks: [1, 3],
    offrampNetworks: [1, 3],
    stable: true,
    idAsText: false
  },
  {
    id: 84,
    code: 'busd',
    name: 'Binance USD',
    usd: '1',
    tradeDp: 4,
    balanceDp: 2,
    networks: [1],
    offrampNetworks: [1],
    stable: true,
    idAsText: true
  },
  {
    id: 6,
    code: 'eth',
    name: 'Ethereum',
    usd: '3050',
    tradeDp: 6,
    balanceDp: 6,
    networks: [0, 3],
    offrampNetworks: [0, 3],
    stable: false,
    idAsText: false
  },
  {
    id: 27,
    code: 'bnb',
    name: 'BNB',
    usd: '585',
    tradeDp: 6,
    balanceDp: 6,
    networks: [1, 5],
    offrampNetworks: [],
    stable: false,
    idAsText: false
  },
  {
    id: 31,
    code: 'matic',
    name: 'Polygon',
    usd: '0.72',
    tradeDp: 4,
    balanceDp: 4,
    networks: [3, 0],
    offrampNetworks: [],
    stable: false,
    idAsText: true
  },
  {
    id: 67,
    code: 'sol',
    name: 'Solana',
    usd: '152',
    tradeDp: 6,
    balanceDp: 6,
    networks: [4],
    offrampNetworks: [],
    stable: false,
    idAsText: false
  },
  {
    id: 1,
    code: 'btc',
    name: 'Bitcoin',
    usd: '64200',
    tradeDp: 8,
    balanceDp: 8,
    networks: [BTC_CHAIN_ID],
    offrampNetworks: [],
    stable: false,
    idAsText: false
  },
  {
    id: 17,
    code: 'neo',
    name: 'NEO',
    usd: '12.4',
    tradeDp: 0,
    balanceDp: 0,
    networks: [7],
    offrampNetworks: [],
    stable: false,
    idAsText: true
  },
  {
    id: 201,
    code: 'rage',
    name: 'Rage Fan',
    usd: '0.048',
    tradeDp: 2,
    balanceDp: 2,
    networks: [3],
    offrampNetworks: [],
    stable: false,
    idAsText: true
  },
  {
    id: 202,
    code: 'gari',
    name: 'Chingari',
    usd: '0.021',
    tradeDp: 2,
    balanceDp: 2,
    networks: [4],
    offrampNetworks: [],
    stable: false,
    idAsText: false
  },
  {
    id: 203,
    code: 'tlc',
    name: 'Tlchain',
    usd: '0.37',
    tradeDp: 2,
    balanceDp: 2,
    networks: [1],
    offrampNetworks: [],
    stable: false,
    idAsText: true
  }
]

const coinByCode = new Map(COINS.map((c) => [c.code, c]))
const coinById = new Map(COINS.map((c) => [c.id, c]))
export const coinIndexById = new Map(COINS.map((c, i) => [c.id, i]))

export const findCoinByCode = (code: string): CoinDef | undefined => coinByCode.get(code.trim().toLowerCase())
export const findCoinById = (id: number): CoinDef | undefined => coinById.get(id)
export const findFiat = (id: number): FiatDef | undefined => FIATS.find((f) => f.id === id)

// ---------------------------------------------------------------- chain details

/** A chain detail object of spec 2.3 (the sandbox's own transcription of the table). */
export interface ChainDetail {
  chainSymbol: string
  chainName?: string
  addressRegex?: string
  memoRegex?: string
  startingWith?: string[]
  networkId?: number
  nativeToken?: number
  node?: number
  hashLink?: string
  confirmations?: number
}

function buildChainDetails(): Map<number, ChainDetail> {
  const m = new Map<number, ChainDetail>()
  const all: [number, ChainDetail][] = [
    ...Object.entries(REFERENCE_CHAIN_DETAILS).map(([k, v]) => [Number(k), v] as [number, ChainDetail]),
    [BTC_CHAIN_ID, BTC_CHAIN_DETAIL]
  ]
  for (const [id, d] of all) {
    const native = NATIVE[id]
    m.set(id, {
      ...d,
      nativeToken: native === undefined ? -1 : (coinByCode.get(native)?.id ?? -1),
      node: CHAIN_NODE[id] ?? 0
    })
  }
  return m
}

export const CHAIN_DETAILS: ReadonlyMap<number, ChainDetail> = buildChainDetails()
export const CHAIN_IDS: readonly number[] = [...CHAIN_DETAILS.keys()].sort((a, b) => a - b)
export const chainIndexById = new Map(CHAIN_IDS.map((id, i) => [id, i]))

export function chainSymbolOf(chainId: number): string {
  return CHAIN_DETAILS.get(chainId)?.chainSymbol ?? `chain${chainId}`
}

/** chainSymbolMapping of allConfigMapping: the spec table plus its aliases (14, 15 and 10002 stay out, as live). */
export function chainSymbolMapping(): Record<string, number> {
  const out: Record<string, number> = {}
  for (const id of CHAIN_IDS) {
    if (id === 14 || id === 15 || id === BTC_CHAIN_ID) continue
    const d = CHAIN_DETAILS.get(id)
    if (d) out[d.chainSymbol] = id
  }
  return { ...out, ...CHAIN_ALIASES }
}

/** Resolves a network symbol or alias (case-insensitive) to a chain id, including chains outside the mapping. */
export function findChainBySymbol(symbol: string): number | undefined {
  const s = symbol.trim().toLowerCase()
  const alias = CHAIN_ALIASES[s]
  if (alias !== undefined) return alias
  for (const [id, d] of CHAIN_DETAILS) if (d.chainSymbol.toLowerCase() === s) return id
  return undefined
}

// ---------------------------------------------------------------- fees

const gas = (withdrawalFee: string, minimumWithdrawal: string, nodeInSync: 0 | 1 = 1, depositEnable: 0 | 1 = 1): GasEntry => ({
  withdrawalFee,
  minimumWithdrawal,
  nodeInSync,
  depositEnable,
  depositFee: '0',
  minimumDeposit: minimumWithdrawal
})

/** Withdrawal fee per coin code and chain id, in units of the coin. */
export const GAS: Readonly<Record<string, Readonly<Record<number, GasEntry>>>> = {
  usdt: { 1: gas('0.3', '5'), 3: gas('0.1', '2'), 0: gas('4.5', '20'), 2: gas('1', '10') },
  usdc: { 1: gas('0.3', '5'), 3: gas('0.1', '2') },
  busd: { 1: gas('0.3', '5', 1, 0) },
  eth: { 0: gas('0.0016', '0.005'), 3: gas('0.00005', '0.001') },
  bnb: { 1: gas('0.0005', '0.01'), 5: gas('0.0005', '0.01') },
  matic: { 3: gas('0.1', '1'), 0: gas('8', '20') },
  sol: { 4: gas('0.008', '0.05') },
  btc: { [BTC_CHAIN_ID]: gas('0.00012', '0.0005') },
  neo: { 7: gas('0', '1', 0) },
  rage: { 3: gas('20', '100') },
  gari: { 4: gas('40', '200') },
  tlc: { 1: gas('3', '20') }
}

export function gasEntry(coinCode: string, chainId: number): GasEntry | undefined {
  return GAS[coinCode]?.[chainId]
}

/** Fee rates (fractions of the fiat value). */
export const RATES = {
  onrampFee: '0.01',
  clientFee: '0.0025',
  offrampFee: '0.01',
  tds: '0.01',
  /** Buy price = mid * (1 + spread), sell price = mid * (1 - spread). */
  spread: '0.015'
} as const

const thresholdsDesc = new Map<number, [string, string][]>()

/** Gateway fee for an amount: the fee of the largest threshold not above it. */
export function gatewayFeeFor(fiat: FiatDef, amount: string, cmp: (a: string, b: string) => number): string {
  let sorted = thresholdsDesc.get(fiat.id)
  if (!sorted) {
    sorted = Object.entries(fiat.gatewayFee).sort((a, b) => cmp(b[0], a[0]))
    thresholdsDesc.set(fiat.id, sorted)
  }
  for (const [threshold, fee] of sorted) if (cmp(amount, threshold) >= 0) return fee
  return '0'
}

/** minimumBuyAmount (allConfig): per coin, per chain, in INR. */
export function minimumBuyAmountInr(coin: CoinDef, chainId: number): string {
  if (coin.code === 'neo') return '2000'
  if (coin.code === 'btc') return '1500'
  if (coin.code === 'rage' || coin.code === 'gari' || coin.code === 'tlc') return '300'
  if (chainId === 0) return '1000'
  return '100'
}

/** Shape B of allCoinLimits (fiats with perCoinLimits): a per coin and chain minimum in that fiat. */
export function perCoinMinimum(fiat: FiatDef, coin: CoinDef, chainId: number): string {
  const base = fiat.onramp.min
  if (coin.code === 'neo') return mul(base, '20')
  if (chainId === 0 || coin.code === 'btc') return mul(base, '4')
  return base
}

// ---------------------------------------------------------------- bank details (spec 2.8)

export const BANK_DETAILS = {
  upi: 'rampdesk.sandbox@icici',
  upiAct: 'Rampdesk Sandbox Payments',
  upiNotes: [
    { type: 1, msg: 'Pay only from a UPI handle registered in your own name.' },
    { type: -1, msg: 'Do not add remarks mentioning crypto to the payment.' },
    { type: 1, msg: 'Claim the payment with its 12-digit UTR within 30 minutes.' }
  ],
  bankNotes: [
    { type: 1, msg: 'Use IMPS for instant credit; NEFT may take up to 2 hours.' },
    { type: -1, msg: 'Cash deposits and cheques are refused and returned.' }
  ],
  bank: [
    {
      name: 'Rampdesk Sandbox Pvt Ltd',
      type: 'Current',
      branch: 'Andheri East, Mumbai',
      bank: 'ICICI Bank',
      ifsc: 'ICIC0000104',
      ac: '010405006712'
    },
    {
      name: 'Rampdesk Sandbox Pvt Ltd',
      type: 'Current',
      branch: 'Koramangala, Bengaluru',
      bank: 'HDFC Bank',
      ifsc: 'HDFC0000053',
      ac: '50200061283341'
    }
  ]
}

export const APP_ID = 3127
export const ID_BASE = 100001

// Display names for the integer ids the service uses for fiat types, chains and coins.
// The config mappings (allConfigMapping: symbol -> id) win when given; the tables of
// spec 2.1 / 2.3 fill in when they are not; anything still unknown shows as "#id"
// (the live-service notes: the live service sends ids beyond its own mapping tables).

/** allConfigMapping shape: symbol -> id, the id a number or a numeric string. */
export type SymbolMapping = Readonly<Record<string, number | string>>

/** Spec 2.1. */
export const FIAT_SYMBOLS: Readonly<Record<number, string>> = {
  1: 'INR',
  2: 'TRY',
  3: 'AED',
  4: 'MXN',
  5: 'VND',
  6: 'NGN',
  7: 'BRL',
  8: 'PEN'
}

/** Spec 2.3, canonical symbols (plus 14 yota and 15 ton, seen in chain details only). */
export const CHAIN_SYMBOLS: Readonly<Record<number, string>> = {
  0: 'erc20',
  1: 'bep20',
  2: 'trc20',
  3: 'matic20',
  4: 'spl',
  5: 'bep2',
  7: 'nep5',
  8: 'eos',
  9: 'klay',
  10: 'matic20-test',
  11: 'okc',
  12: 'wemix 3.0',
  13: 'arbitrum',
  14: 'yota',
  15: 'ton',
  21: 'energi'
}

/** Spec 2.3 aliases: another symbol for the same chain id. */
export const CHAIN_ALIASES: Readonly<Record<string, number>> = {
  eth: 0,
  bsc: 1,
  trx: 2,
  matic: 3,
  sol: 4,
  bnb: 5
}

type Id = number | string | null | undefined

function idKey(id: Id): string | undefined {
  if (typeof id === 'number') return Number.isInteger(id) ? String(id) : undefined
  if (typeof id === 'string' && /^-?\d+$/.test(id.trim())) return String(Number(id.trim()))
  return undefined
}

/** "#id" for anything we cannot name; "#?" when there is no usable id at all. */
function unknownName(id: Id): string {
  if (id === null || id === undefined || (typeof id === 'string' && id.trim() === '')) return '#?'
  return `#${String(id).trim()}`
}

/**
 * Finds the symbol for an id in a symbol -> id mapping. When several symbols share
 * the id (erc20 and eth both map to 0), the one in `preferred` wins so aliases never
 * replace the canonical name.
 */
function symbolFor(key: string, mapping: SymbolMapping | undefined, preferred?: string): string | undefined {
  if (!mapping) return undefined
  let first: string | undefined
  for (const [symbol, value] of Object.entries(mapping)) {
    if (idKey(value) !== key) continue
    if (preferred !== undefined && symbol.toLowerCase() === preferred.toLowerCase()) return symbol
    if (first === undefined) first = symbol
  }
  return first
}

/** Fiat display name: "INR", or "#12" for an unknown fiat type. */
export function fiatName(id: Id, mapping?: SymbolMapping): string {
  const key = idKey(id)
  if (key === undefined) return unknownName(id)
  const builtIn = FIAT_SYMBOLS[Number(key)]
  const symbol = symbolFor(key, mapping, builtIn) ?? builtIn
  return symbol ? symbol.toUpperCase() : unknownName(id)
}

/** Chain display name: "BEP20", "WEMIX 3.0", or "#10116" for an unknown chain. */
export function chainName(id: Id, mapping?: SymbolMapping): string {
  const key = idKey(id)
  if (key === undefined) return unknownName(id)
  const builtIn = CHAIN_SYMBOLS[Number(key)]
  const symbol = symbolFor(key, mapping, builtIn) ?? builtIn
  return symbol ? symbol.toUpperCase() : unknownName(id)
}

/** Coin display name: "USDT"; coin ids have no fixed table, so without a mapping it is "#id". */
export function coinName(id: Id, mapping?: SymbolMapping): string {
  const key = idKey(id)
  if (key === undefined) return unknownName(id)
  const symbol = symbolFor(key, mapping)
  return symbol ? symbol.toUpperCase() : unknownName(id)
}
/** The canonical chain symbol for a symbol or alias ("ETH" -> "erc20"); unknown symbols come back lowercased. */
export function canonicalChainSymbol(symbol: string): string {
  const s = symbol.trim().toLowerCase()
  const aliased = CHAIN_ALIASES[s]
  if (aliased !== undefined) return CHAIN_SYMBOLS[aliased] ?? s
  return s
}

/** Chain id for a symbol or alias, from the mapping first, then the spec tables. */
export function chainIdOf(symbol: string, mapping?: SymbolMapping): number | undefined {
  const s = symbol.trim().toLowerCase()
  if (mapping) {
    for (const [k, v] of Object.entries(mapping)) {
      const key = idKey(v)
      if (k.toLowerCase() === s && key !== undefined) return Number(key)
    }
  }
  const alias = CHAIN_ALIASES[s]
  if (alias !== undefined) return alias
  for (const [id, sym] of Object.entries(CHAIN_SYMBOLS)) if (sym === s) return Number(id)
  return undefined
}

// Which networks a coin can be sold on (offramp). Spec section 4.9 names them: usdt on
// bep20, matic20, erc20 and trc20; usdc on bep20 and matic20; busd on bep20; eth on erc20
// and matic20. The coin config lists a coin's onramp networks, which are more (usdt on
// spl, bnb on bep2, ...): asking for an offramp quote on one of those only spends the
// quote budget on a refusal, so the quote form and the quote service offer these alone.
import { canonicalChainSymbol, chainIdOf } from './names'

/** Spec 4.9, by coin code: the chain symbols in the section's order. */
export const OFFRAMP_NETWORKS: Readonly<Record<string, readonly string[]>> = {
  usdt: ['bep20', 'matic20', 'erc20', 'trc20'],
  usdc: ['bep20', 'matic20'],
  busd: ['bep20'],
  eth: ['erc20', 'matic20']
}

/** A chain as the config snapshot names it. */
export interface ChainRef {
  id: number
  symbol: string
}

/**
 * The chain ids a coin can be sold on, in the section's order. A symbol is found among
 * the config's chains by its canonical spelling (ETH, eth and erc20 are one chain); the
 * spec's chain table fills in for a chain the config does not describe. A coin the
 * section does not name can be sold on none.
 */
export function offrampNetworks(coinCode: string, chains: readonly ChainRef[]): number[] {
  const listed = OFFRAMP_NETWORKS[coinCode.trim().toLowerCase()] ?? []
  const out: number[] = []
  for (const symbol of listed) {
    const id = chains.find((c) => canonicalChainSymbol(c.symbol) === symbol)?.id ?? chainIdOf(symbol)
    if (id !== undefined && !out.includes(id)) out.push(id)
  }
  return out
}

/** Why a coin cannot be sold on a chain (spec 4.9), or undefined when it can. */
export function offrampNetworkRefusal(
  coin: { code: string; label: string },
  chainId: number,
  chainLabel: string,
  chains: readonly ChainRef[]
): string | undefined {
  const allowed = offrampNetworks(coin.code, chains)
  if (allowed.includes(chainId)) return undefined
  if (allowed.length === 0) {
    const coins = Object.keys(OFFRAMP_NETWORKS).map((c) => c.toUpperCase())
    return `${coin.label} cannot be sold: offramp quotes are for ${coins.slice(0, -1).join(', ')} and ${coins.at(-1)} only`
  }
  const names = (OFFRAMP_NETWORKS[coin.code.trim().toLowerCase()] ?? []).map((s) => s.toUpperCase()).join(', ')
  return `${coin.label} can be sold on ${names} only, not on ${chainLabel}`
}

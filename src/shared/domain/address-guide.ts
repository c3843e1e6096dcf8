// What the address check tells an operator beyond its checks: the address's own family
// (a Bitcoin, TRON, Solana... address) recognised by that family's real rules (prefixes,
// lengths, checksums: address.ts), never by a configuration's pattern, which may take
// anything (a network whose pattern is loose must not claim every address); the network
// of the same coin that takes it, when one does; a space pasted inside it, to take out;
// and each failure said once.
import {
  checkAddress,
  checksumSchemeFor,
  schemeVerdict,
  type AddressCheck,
  type AddressCheckResult,
  type ChainRules,
  type ChecksumScheme
} from './address'

/** Address families Rampdesk knows by their rules, each the form of one checksum scheme. */
export type AddressFamily = 'evm' | 'bitcoin' | 'tron' | 'solana' | 'ton' | 'bnb-beacon' | 'neo'

const FAMILIES: ReadonlyArray<{ family: AddressFamily; scheme: Exclude<ChecksumScheme, 'none'>; name: string }> = [
  { family: 'evm', scheme: 'eip55', name: 'an EVM address (the form of Ethereum, BNB Smart Chain, Polygon and other EVM networks)' },
  { family: 'bitcoin', scheme: 'btc', name: 'a Bitcoin address' },
  { family: 'tron', scheme: 'tron', name: 'a TRON address' },
  { family: 'solana', scheme: 'solana', name: 'a Solana address' },
  { family: 'ton', scheme: 'ton', name: 'a TON address' },
  { family: 'bnb-beacon', scheme: 'bep2', name: 'a BNB Beacon Chain address' },
  { family: 'neo', scheme: 'neo', name: 'a NEO address' }
]

export interface FamilyMatch {
  family: AddressFamily
  scheme: Exclude<ChecksumScheme, 'none'>
  /** With its article: "a Bitcoin address". */
  name: string
}

/**
 * The families whose rules take the address whole (form and checksum). The families'
 * forms do not overlap (base58check version bytes, lengths, prefixes), so there is at most
 * one; a typo in a checksum makes it none.
 */
export function addressFamily(address: string): FamilyMatch | null {
  const a = address.trim()
  if (a === '' || /\s/.test(a) || a.length > 256) return null
  for (const f of FAMILIES) if (schemeVerdict(f.scheme, a)?.ok) return { family: f.family, scheme: f.scheme, name: f.name }
  return null
}

/** "a"/"an" before a network or coin symbol as it is read aloud: ERC20 and SPL as letters ("an"), ARBITRUM as a word ("an"), TRC20 and TON ("a"). */
export function withArticle(symbol: string): string {
  const letters = (/^[A-Za-z]+/.exec(symbol.trim())?.[0] ?? '').toUpperCase()
  // Read as a word when it has a vowel and is long enough to say (MATIC, KLAY, YOTA), or a
  // short word everyone says as one (TON, SOL, ETH); otherwise letter by letter.
  const word = (letters.length >= 4 && /[AEIOUY]/.test(letters.slice(1))) || ['TON', 'SOL', 'ETH'].includes(letters)
  const vowelSound = word ? /^[AEIO]/.test(letters) : /^[AEFHILMNORSX]/.test(letters)
  return `${vowelSound ? 'an' : 'a'} ${symbol}`
}

/** A network as the address check offers it: the chain and its rules. */
export interface NetworkRules {
  id: number
  /** Shown as is: "TRC20". */
  label: string
  rules: ChainRules
}

/** What to tell the operator beyond the checks. */
export type AddressGuidance =
  /** Nothing to add: the address passes, or fails in its own network's form (a typo). */
  | { kind: 'none' }
  /** A space or line break inside it: take it out (the checks read it without). */
  | { kind: 'whitespace'; fixed: string; spaces: number }
  /** The form of another network of this coin, which takes it: check it as that network. */
  | { kind: 'other-network'; family: FamilyMatch; networks: NetworkRules[] }
  /** Another family's address that no network of this coin takes. */
  | { kind: 'foreign'; family: FamilyMatch }

/**
 * What to say about an address checked on `network`, one of the coin's `networks`: inner
 * whitespace first (its fix re-checks), then, for an address refused here, the family it
 * belongs to and the networks of this coin whose own rules (configuration and checksum)
 * take it. A network is suggested only when its checksum scheme is the family's: a network
 * with no checksum Rampdesk knows, whatever its pattern, never claims another's address.
 */
export function guideAddress(o: {
  address: string
  network: NetworkRules
  /** Every network of the coin (the one checked may be among them). */
  networks: readonly NetworkRules[]
  result: AddressCheckResult
}): AddressGuidance {
  const given = o.address.trim()
  if (/\s/.test(given)) return { kind: 'whitespace', fixed: given.replace(/\s+/g, ''), spaces: given.match(/\s+/g)?.length ?? 0 }
  if (o.result.ok) return { kind: 'none' }
  const family = addressFamily(given)
  if (!family || family.scheme === o.result.scheme) return { kind: 'none' }
  const networks = o.networks.filter(
    (n) => n.id !== o.network.id && checksumSchemeFor(n.rules.chainSymbol) === family.scheme && checkAddress(n.rules, given).ok
  )
  return networks.length ? { kind: 'other-network', family, networks } : { kind: 'foreign', family }
}

/**
 * The checks as the view lists them, each failure said once: a failed prefix is part of
 * a failed format the view could put in words, and a checksum that failed only because the
 * address is not in this network's form (AddressCheck.form) says what the format already
 * said. Passing checks are kept.
 */
export function checksToShow(result: AddressCheckResult): AddressCheck[] {
  const format = result.checks.find((c) => c.kind === 'format')
  const formatSaid =
    format !== undefined && !format.ok && format.detail.startsWith('does not match: ') && !/see the pattern/.test(format.detail)
  const prefix = result.checks.find((c) => c.kind === 'prefix')
  const formFailed =
    (format !== undefined && !format.ok && format.detail.startsWith('does not match')) || (prefix !== undefined && !prefix.ok)
  return result.checks.filter((c) => {
    if (c.ok) return true
    if (c.kind === 'prefix' && formatSaid) return false
    if (c.kind === 'checksum' && c.form && formFailed) return false
    return true
  })
}

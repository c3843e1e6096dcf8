// Test data: an address with its checksum broken by one character, for the address
// checker's unit tests and the e2e spec that types a mistyped address into the view.
import { BECH32_CHARS, checksumOk, checksumSchemeFor, type ChecksumScheme } from '../../src/shared/domain/address'

/** One chain symbol per scheme, to ask the real checker whether a candidate fails. */
const SYMBOL_OF_SCHEME: Record<Exclude<ChecksumScheme, 'none'>, string> = {
  eip55: 'erc20',
  tron: 'trc20',
  neo: 'nep5',
  btc: 'btc',
  bep2: 'bep2',
  solana: 'spl',
  ton: 'ton'
}

function guessScheme(address: string): ChecksumScheme {
  if (/^0x[0-9a-fA-F]{40}$/.test(address)) return 'eip55'
  if (/^(bnb1|BNB1)/.test(address)) return 'bep2'
  if (/^(bc1|BC1)/.test(address) || (/^[13]/.test(address) && address.length <= 35)) return 'btc'
  if (/^T/.test(address) && address.length === 34) return 'tron'
  if (/^A/.test(address) && address.length === 34) return 'neo'
  if (address.length === 48) return 'ton'
  if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return 'solana'
  return 'none'
}

function substitutions(address: string, positions: number[], alphabetFor: (c: string) => string): string[] {
  const out: string[] = []
  for (const p of positions) {
    const c = address[p]
    if (c === undefined) continue
    const alphabet = alphabetFor(c)
    const from = alphabet.indexOf(c)
    for (let k = 1; k < alphabet.length; k++) {
      const r: string = alphabet[(from + k + alphabet.length) % alphabet.length] ?? c
      if (r !== c) out.push(address.slice(0, p) + r + address.slice(p + 1))
    }
  }
  return out
}

const B58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * Changes one character so the checksum fails while the address keeps its length,
 * prefix and character set (so the config regex still passes). The scheme is taken
 * from chainSymbol, or guessed from the address' shape. Throws for chains without a
 * checksum, or in the rare case no single change can break it (an EVM address with
 * no hex letters).
 */
export function breakChecksum(address: string, chainSymbol?: string): string {
  const scheme = chainSymbol !== undefined ? checksumSchemeFor(chainSymbol) : guessScheme(address)
  const n = address.length
  const tail = (keep: number): number[] => Array.from({ length: Math.max(0, n - keep) }, (_, i) => n - 1 - i)
  let candidates: string[]
  switch (scheme) {
    case 'eip55': {
      // Flip the case of one letter: the digits stay, only the checksum is wrong.
      candidates = []
      for (let i = n - 1; i >= 2; i--) {
        const c = address[i] ?? ''
        if (/[a-fA-F]/.test(c))
          candidates.push(address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1))
      }
      break
    }
    case 'tron':
    case 'neo':
      candidates = substitutions(address, tail(1), () => B58_ALPHABET)
      break
    case 'btc':
      candidates = /^(bc1|BC1)/.test(address)
        ? substitutions(address, tail(4), () => (address === address.toUpperCase() ? BECH32_CHARS.toUpperCase() : BECH32_CHARS))
        : substitutions(address, tail(1), () => B58_ALPHABET)
      break
    case 'bep2':
      candidates = substitutions(address, tail(5), () => (address === address.toUpperCase() ? BECH32_CHARS.toUpperCase() : BECH32_CHARS))
      break
    case 'solana':
      // No checksum: the only thing to break is the 32-byte length, which the leading character decides.
      candidates = substitutions(address, [0, ...tail(1)], () => B58_ALPHABET)
      break
    case 'ton':
      candidates = substitutions(address, tail(2), () => ALNUM)
      break
    case 'none':
      throw new Error(`no checksum to break for ${chainSymbol ?? JSON.stringify(address)}`)
  }
  const broken = candidates.find((a) => !checksumOk(SYMBOL_OF_SCHEME[scheme], a))
  if (broken === undefined) throw new Error(`cannot break the checksum of ${address} with one change`)
  return broken
}

// Realistic sample addresses and transaction hashes for the sandbox's orders: each one
// passes every check the app's address view applies for its chain (EIP-55, base58check,
// bech32, TON CRC16, ...), so the data a client sees looks like the live service's.
// Drawn from the sandbox's seeded streams, so the same seed gives the same addresses.
import { bech32, bech32m, base58, base64url, createBase58check } from '@scure/base'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { crc16, eip55 } from './checksums'
import { checksumOf } from './spec-tables'

const b58check = createBase58check(sha256)

function randomBytes(n: number, rng: () => number): Uint8Array {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = Math.floor(rng() * 256) & 0xff
  return out
}

function randomChars(n: number, alphabet: string, rng: () => number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length) % alphabet.length] ?? alphabet[0]
  return s
}

function tonFriendly(hash: Uint8Array, tag = 0x11, workchain = 0): string {
  const raw = new Uint8Array(36)
  raw[0] = tag
  raw[1] = workchain & 0xff
  raw.set(hash, 2)
  const crc = crc16(raw.subarray(0, 34))
  raw[34] = crc >> 8
  raw[35] = crc & 0xff
  return base64url.encode(raw)
}

/**
 * A realistic address that passes every check for the chain (EIP-55 checksummed hex,
 * real TRON base58check, bech32 for BTC and bep2, ...), with a memo on chains whose
 * reference config takes one. Unknown chains get an EVM address.
 */
export function sampleAddress(chainSymbol: string, rng: () => number): { address: string; memo?: string } {
  const symbol = chainSymbol.trim().toLowerCase()
  const memo = (): string => String(100000 + Math.floor(rng() * 899999999))
  switch (checksumOf(symbol)) {
    case 'tron':
      return { address: b58check.encode(Uint8Array.of(0x41, ...randomBytes(20, rng))) }
    case 'neo':
      return { address: b58check.encode(Uint8Array.of(0x17, ...randomBytes(20, rng))) }
    case 'btc': {
      const pick = Math.floor(rng() * 4)
      if (pick === 0) return { address: bech32.encode('bc', [0, ...bech32.toWords(randomBytes(20, rng))]) }
      if (pick === 1) return { address: bech32m.encode('bc', [1, ...bech32m.toWords(randomBytes(32, rng))]) }
      return { address: b58check.encode(Uint8Array.of(pick === 2 ? 0x00 : 0x05, ...randomBytes(20, rng))) }
    }
    case 'bep2':
      return { address: bech32.encode('bnb', bech32.toWords(randomBytes(20, rng))), memo: memo() }
    case 'solana': {
      // A zero top byte would make a key whose base58 form is shorter than real ones.
      const key = randomBytes(32, rng)
      key[0] = 1 + ((key[0] ?? 0) % 255)
      return { address: base58.encode(key) }
    }
    case 'ton':
      return { address: tonFriendly(randomBytes(32, rng), rng() < 0.5 ? 0x11 : 0x51), memo: memo() }
    case 'eip55':
      return { address: eip55(bytesToHex(randomBytes(20, rng))) }
    case 'none':
      if (symbol === 'eos')
        return {
          address: randomChars(1, 'abcdefghijklmnopqrstuvwxyz', rng) + randomChars(11, 'abcdefghijklmnopqrstuvwxyz12345', rng),
          memo: memo()
        }
      return { address: eip55(bytesToHex(randomBytes(20, rng))) }
  }
}

/** A realistic transaction hash in the chain's own form. */
export function sampleTxHash(chainSymbol: string, rng: () => number): string {
  const bytes = randomBytes(32, rng)
  switch (checksumOf(chainSymbol)) {
    case 'eip55':
    case 'neo':
      return '0x' + bytesToHex(bytes)
    case 'solana': {
      const sig = randomBytes(64, rng)
      sig[0] = 1 + ((sig[0] ?? 0) % 255)
      return base58.encode(sig)
    }
    case 'bep2':
      return bytesToHex(bytes).toUpperCase()
    case 'ton':
      return base64url.encode(bytes).replace(/=+$/, '')
    default:
      return bytesToHex(bytes)
  }
}

// The sandbox's own copy of the tables the spec gives (merchant-api.md 2.1 and 2.3), and of
// which address checksum each chain uses (each chain's own public standard: EIP-55 for EVM
// chains, base58check for TRON and NEO, bech32 for Bitcoin and the BNB Beacon Chain, a
// 32-byte key for Solana, CRC16 for TON). Written here from those sources, not imported from
// the client (src/shared/domain): a misreading in the client's tables must not hide behind the
// same misreading in the simulator. test/unit/sandbox/spec-tables.test.ts compares the two.

/** Spec 2.1: fiat symbol -> id. */
export const SPEC_FIAT_IDS: Readonly<Record<string, number>> = {
  INR: 1,
  TRY: 2,
  AED: 3,
  MXN: 4,
  VND: 5,
  NGN: 6,
  BRL: 7,
  PEN: 8
}

/** Spec 2.1, the other way: fiat id -> symbol. */
export const SPEC_FIAT_SYMBOLS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(SPEC_FIAT_IDS).map(([symbol, id]) => [id, symbol])
)

/** Spec 2.3: chainSymbolMapping's symbols -> ids. */
export const SPEC_CHAIN_IDS: Readonly<Record<string, number>> = {
  erc20: 0,
  bep20: 1,
  trc20: 2,
  matic20: 3,
  spl: 4,
  bep2: 5,
  nep5: 7,
  eos: 8,
  klay: 9,
  'matic20-test': 10,
  okc: 11,
  'wemix 3.0': 12,
  arbitrum: 13,
  energi: 21
}

/** Spec 2.3: "Aliases that map to the same ids". */
export const SPEC_CHAIN_ALIASES: Readonly<Record<string, number>> = {
  eth: 0,
  bsc: 1,
  trx: 2,
  matic: 3,
  sol: 4,
  bnb: 5
}

/** Spec 2.3: "Ids seen in chain details but not in the symbol mapping". */
export const SPEC_DETAIL_ONLY_CHAINS: Readonly<Record<number, string>> = { 14: 'yota', 15: 'ton' }

export type SandboxChecksum = 'eip55' | 'tron' | 'neo' | 'btc' | 'bep2' | 'solana' | 'ton' | 'none'

/** The address checksum of each chain symbol or alias the sandbox knows (bitcoin is its own extra chain). */
export const CHECKSUM_BY_CHAIN: Readonly<Record<string, SandboxChecksum>> = {
  erc20: 'eip55',
  eth: 'eip55',
  bep20: 'eip55',
  bsc: 'eip55',
  matic20: 'eip55',
  matic: 'eip55',
  'matic20-test': 'eip55',
  okc: 'eip55',
  'wemix 3.0': 'eip55',
  arbitrum: 'eip55',
  klay: 'eip55',
  energi: 'eip55',
  trc20: 'tron',
  trx: 'tron',
  nep5: 'neo',
  btc: 'btc',
  bep2: 'bep2',
  bnb: 'bep2',
  spl: 'solana',
  sol: 'solana',
  ton: 'ton',
  yota: 'none',
  eos: 'none'
}

export function checksumOf(chainSymbol: string): SandboxChecksum {
  return CHECKSUM_BY_CHAIN[chainSymbol.trim().toLowerCase()] ?? 'none'
}

/** BIP-173's data alphabet. */
export const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

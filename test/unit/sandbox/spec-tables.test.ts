// The sandbox's tables of the spec (fiat ids, chain ids and aliases) and of each chain's
// address checksum are its own (src/sandbox/spec-tables.ts, checksums.ts). Here they are
// compared with the client's (src/shared/domain), and the sandbox's checksums with vectors
// from the standards, so that a misreading in either shows as a difference.
import { describe, expect, it } from 'vitest'
import { CHAIN_ALIASES, CHAIN_SYMBOLS, FIAT_SYMBOLS } from '../../../src/shared/domain/names'
import { checksumSchemeFor } from '../../../src/shared/domain/address'
import { chainSymbolMapping } from '../../../src/sandbox/catalogue'
import { crc16, eip55 } from '../../../src/sandbox/checksums'
import {
  CHECKSUM_BY_CHAIN,
  SPEC_CHAIN_ALIASES,
  SPEC_CHAIN_IDS,
  SPEC_DETAIL_ONLY_CHAINS,
  SPEC_FIAT_SYMBOLS
} from '../../../src/sandbox/spec-tables'

describe('the sandbox’s spec tables against the client’s', () => {
  it('fiat ids (spec 2.1)', () => {
    expect(SPEC_FIAT_SYMBOLS).toEqual(FIAT_SYMBOLS)
  })
  it('chain ids and the two ids seen only in chain details (spec 2.3)', () => {
    const sandbox = { ...Object.fromEntries(Object.entries(SPEC_CHAIN_IDS).map(([s, id]) => [id, s])), ...SPEC_DETAIL_ONLY_CHAINS }
    expect(sandbox).toEqual(CHAIN_SYMBOLS)
  })
  it('chain aliases (spec 2.3)', () => {
    expect(SPEC_CHAIN_ALIASES).toEqual(CHAIN_ALIASES)
  })
  it('the sandbox serves exactly the spec’s chainSymbolMapping', () => {
    expect(chainSymbolMapping()).toEqual({ ...SPEC_CHAIN_IDS, ...SPEC_CHAIN_ALIASES })
  })
  it('the checksum of every chain symbol and alias', () => {
    for (const [symbol, scheme] of Object.entries(CHECKSUM_BY_CHAIN)) expect(checksumSchemeFor(symbol), symbol).toBe(scheme)
  })
})

describe('the sandbox’s checksums against the standards’ vectors', () => {
  it('EIP-55 (the examples in the EIP)', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'
    ])
      expect(eip55(a.slice(2))).toBe(a)
  })
  it('CRC-16/XMODEM: the catalogue check value', () => {
    expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x31c3)
  })
})

import { describe, expect, it } from 'vitest'
import { chainName, coinName, fiatName } from '../../../../src/shared/domain/names'

describe('fiatName', () => {
  it('names the spec fiat ids 1-8', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((id) => fiatName(id))).toEqual(['INR', 'TRY', 'AED', 'MXN', 'VND', 'NGN', 'BRL', 'PEN'])
  })
  it('shows ids beyond the table as #id (the live service sends 9, 10, 12, 14)', () => {
    expect(fiatName(12)).toBe('#12')
    expect(fiatName('14')).toBe('#14')
  })
  it('prefers the config mapping and accepts numeric-string ids', () => {
    expect(fiatName(9, { INR: 1, USD: '9' })).toBe('USD')
    expect(fiatName('1', { INR: 1 })).toBe('INR')
    // A mapping missing an id falls back to the spec table before "#id".
    expect(fiatName(2, { INR: 1 })).toBe('TRY')
  })
  it('never throws on junk ids', () => {
    expect(fiatName(null)).toBe('#?')
    expect(fiatName(undefined)).toBe('#?')
    expect(fiatName('abc')).toBe('#abc')
    expect(fiatName(1.5)).toBe('#1.5')
  })
})

describe('chainName', () => {
  it('names the spec chains, 14 yota and 15 ton included', () => {
    expect(chainName(0)).toBe('ERC20')
    expect(chainName(12)).toBe('WEMIX 3.0')
    expect(chainName(10)).toBe('MATIC20-TEST')
    expect(chainName(14)).toBe('YOTA')
    expect(chainName(15)).toBe('TON')
    expect(chainName(21)).toBe('ENERGI')
  })
  it('keeps the canonical symbol when aliases share the id', () => {
    const mapping = { eth: 0, erc20: 0, bsc: '1', bep20: 1, trx: 2, trc20: 2 }
    expect(chainName(0, mapping)).toBe('ERC20')
    expect(chainName(1, mapping)).toBe('BEP20')
    expect(chainName(2, mapping)).toBe('TRC20')
  })
  it('shows chain ids beyond the mapping as #id', () => {
    expect(chainName(10002)).toBe('#10002')
    expect(chainName(10116, { erc20: 0 })).toBe('#10116')
  })
})

describe('coinName', () => {
  it('uses the mapping, where coin ids come as numbers and strings in the same object', () => {
    const mapping = { usdt: 54, eth: '1', btc: 3 }
    expect(coinName(54, mapping)).toBe('USDT')
    expect(coinName('1', mapping)).toBe('ETH')
    expect(coinName(3, mapping)).toBe('BTC')
  })
  it('has no built-in coin ids: #id without a mapping or for unknown ids', () => {
    expect(coinName(54)).toBe('#54')
    expect(coinName(999, { usdt: 54 })).toBe('#999')
  })
})

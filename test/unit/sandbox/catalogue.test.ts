import { describe, expect, it } from 'vitest'
import {
  BTC_CHAIN_ID,
  CHAIN_DETAILS,
  COINS,
  FIATS,
  chainSymbolMapping,
  findChainBySymbol,
  findCoinByCode
} from '../../../src/sandbox/catalogue'
import { checkAddress, compileConfigRegex } from '../../../src/shared/domain/address'
import { sampleAddress } from '../../../src/sandbox/sample-addresses'
import { mulberry32 } from '../../../src/sandbox/rng'

describe('sandbox catalogue', () => {
  it('has the fiat types 1-8 of spec 2.1', () => {
    expect(FIATS.map((f) => [f.symbol, f.id])).toEqual([
      ['INR', 1],
      ['TRY', 2],
      ['AED', 3],
      ['MXN', 4],
      ['VND', 5],
      ['NGN', 6],
      ['BRL', 7],
      ['PEN', 8]
    ])
  })

  it('maps the chain symbols and aliases of spec 2.3; 14, 15 and the btc chain only in chain details', () => {
    const m = chainSymbolMapping()
    expect(m).toMatchObject({
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
    })
    expect(m).toMatchObject({ eth: 0, bsc: 1, trx: 2, matic: 3, sol: 4, bnb: 5 })
    expect(Object.values(m)).not.toContain(14)
    expect(Object.values(m)).not.toContain(15)
    expect([...CHAIN_DETAILS.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 21, BTC_CHAIN_ID])
    expect(CHAIN_DETAILS.get(14)?.chainSymbol).toBe('yota')
    expect(CHAIN_DETAILS.get(15)?.chainSymbol).toBe('ton')
    expect(findChainBySymbol('BSC')).toBe(1)
    expect(findChainBySymbol('btc')).toBe(BTC_CHAIN_ID)
  })

  it('supports the networks spec 4.9 names', () => {
    const nets = (code: string) =>
      findCoinByCode(code)
        ?.offrampNetworks.map((id) => CHAIN_DETAILS.get(id)?.chainSymbol)
        .sort()
    expect(nets('usdt')).toEqual(['bep20', 'erc20', 'matic20', 'trc20'])
    expect(nets('usdc')).toEqual(['bep20', 'matic20'])
    expect(nets('busd')).toEqual(['bep20'])
    expect(nets('eth')).toEqual(['erc20', 'matic20'])
    for (const code of ['eth', 'usdt', 'usdc', 'busd', 'bnb', 'matic', 'sol', 'btc', 'neo', 'rage', 'gari', 'tlc'])
      expect(findCoinByCode(code)).toBeDefined()
  })

  it('every chain a coin uses has an address regex that accepts real addresses, with explorer links', () => {
    const rng = mulberry32(7)
    const used = new Set(COINS.flatMap((c) => c.networks))
    for (const id of used) {
      const d = CHAIN_DETAILS.get(id)
      expect(d, `chain ${id}`).toBeDefined()
      if (!d) continue
      expect(d.hashLink).toMatch(/^https:\/\//)
      const re = compileConfigRegex(d.addressRegex ?? '')
      expect(re.ok).toBe(true)
      for (let i = 0; i < 20; i++) {
        const { address, memo } = sampleAddress(d.chainSymbol, rng)
        expect(re.ok && re.re.test(address), `${d.chainSymbol} ${address}`).toBe(true)
        expect(checkAddress(d, address, memo).ok, `${d.chainSymbol} ${address}`).toBe(true)
      }
    }
  })

  it('EOS, bep2 and TON carry memo regexes; EVM chains have none', () => {
    expect(CHAIN_DETAILS.get(8)?.memoRegex).not.toBe('')
    expect(CHAIN_DETAILS.get(5)?.memoRegex).not.toBe('')
    expect(CHAIN_DETAILS.get(15)?.memoRegex).not.toBe('')
    expect(CHAIN_DETAILS.get(1)?.memoRegex).toBe('')
    expect(CHAIN_DETAILS.get(0)?.nativeToken).toBe(findCoinByCode('eth')?.id)
  })
})

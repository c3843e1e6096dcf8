// The networks a coin can be sold on, as spec 4.9 lists them, found among the config's
// chains by any spelling of their symbol, with the spec's chain table behind it.
import { describe, expect, it } from 'vitest'
import { OFFRAMP_NETWORKS, offrampNetworkRefusal, offrampNetworks } from '../../../../src/shared/domain/offramp-networks'

const chains = [
  { id: 0, symbol: 'erc20' },
  { id: 1, symbol: 'bep20' },
  { id: 2, symbol: 'trc20' },
  { id: 3, symbol: 'matic20' },
  { id: 4, symbol: 'spl' },
  { id: 10, symbol: 'matic20-test' }
]

describe('offrampNetworks', () => {
  it('is spec 4.9, word for word', () => {
    expect(OFFRAMP_NETWORKS).toEqual({
      usdt: ['bep20', 'matic20', 'erc20', 'trc20'],
      usdc: ['bep20', 'matic20'],
      busd: ['bep20'],
      eth: ['erc20', 'matic20']
    })
  })

  it('maps each coin to chain ids in the section order; other coins to none', () => {
    expect(offrampNetworks('usdt', chains)).toEqual([1, 3, 0, 2])
    expect(offrampNetworks('USDC', chains)).toEqual([1, 3])
    expect(offrampNetworks('busd', chains)).toEqual([1])
    expect(offrampNetworks('eth', chains)).toEqual([0, 3])
    expect(offrampNetworks('bnb', chains)).toEqual([])
    expect(offrampNetworks('sol', chains)).toEqual([])
  })

  it('finds a chain by an alias or another case, and falls back to the spec table', () => {
    const live = [
      { id: 0, symbol: 'ETH' },
      { id: 1, symbol: 'BSC' },
      { id: 3, symbol: 'Matic' }
    ]
    expect(offrampNetworks('usdt', live)).toEqual([1, 3, 0, 2])
    expect(offrampNetworks('usdt', [])).toEqual([1, 3, 0, 2])
    // A deployment numbering the chains otherwise: its ids win.
    expect(offrampNetworks('busd', [{ id: 56, symbol: 'bep20' }])).toEqual([56])
  })

  it('says why a sale is refused', () => {
    const usdt = { code: 'usdt', label: 'USDT' }
    expect(offrampNetworkRefusal(usdt, 1, 'BEP20', chains)).toBeUndefined()
    expect(offrampNetworkRefusal(usdt, 4, 'SPL', chains)).toBe('USDT can be sold on BEP20, MATIC20, ERC20, TRC20 only, not on SPL')
    expect(offrampNetworkRefusal({ code: 'bnb', label: 'BNB' }, 1, 'BEP20', chains)).toBe(
      'BNB cannot be sold: offramp quotes are for USDT, USDC, BUSD and ETH only'
    )
  })
})

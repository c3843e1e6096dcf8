// What the renderer and scale benches type and select: search texts split by length at
// the view's short-search boundary, and filters never asked before in one pass.
import { describe, expect, it } from 'vitest'
import { filterValueSteps, newValueFilters, searchTexts } from '../../../bench/lib/order-inputs'
import { SHORT_SEARCH_CHARS } from '../../../src/renderer/src/lib/search-pause'
import type { ChannelOutput, OrderRow } from '../../../src/shared/ipc/contract'

const row = (r: Partial<OrderRow>): OrderRow => r as OrderRow

describe('searchTexts', () => {
  it('takes long texts (prefixes and a wallet end) and 1-2 character ones, each once', () => {
    const t = searchTexts([
      row({
        orderId: 104967,
        walletAddress: '0x3dc8EaDF00112233445566778899aabbccddeeff',
        merchantRecognitionId: 'rd-6mwabc',
        transactionHash: 'e800156772e4ffff'
      }),
      row({ orderId: 104998, walletAddress: null, merchantRecognitionId: null, transactionHash: null })
    ])
    expect(t.long).toEqual(['104967', '0x3dc8EaDF', 'ccddeeff', 'rd-6mw', 'e800156772e4', '104998'])
    expect(t.short).toEqual(['1', '10', '0x', 'rd'])
    // The split is the view's: long ones are sent at once, short ones after the pause.
    expect(t.long.every((x) => x.length >= SHORT_SEARCH_CHARS)).toBe(true)
    expect(t.short.every((x) => x.length < SHORT_SEARCH_CHARS)).toBe(true)
  })
})

describe('newValueFilters', () => {
  it('sets every select alone, then status x fiat and fiat x coin, no filter twice', () => {
    const cfg = {
      fiats: [
        { id: 1, symbol: 'INR' },
        { id: 2, symbol: 'TRY' },
        { id: 5, symbol: 'AED' }
      ],
      coins: [
        { id: 54, code: 'USDT' },
        { id: 3, code: 'ETH' }
      ],
      chains: [
        { id: 7, symbol: 'BEP20' },
        { id: 1, symbol: 'ERC20' }
      ]
    } as unknown as ChannelOutput<'config:get'>
    const steps = filterValueSteps(cfg)
    const groups = steps.filter((s) => s.label === 'Status').length
    expect(steps.filter((s) => s.label !== 'Status').map((s) => `${s.key}=${s.value}`)).toEqual([
      'fiatType=1',
      'fiatType=2',
      'fiatType=5',
      'coinId=54',
      'coinId=3',
      'chainId=7',
      'chainId=1'
    ])
    const filters = newValueFilters(cfg)
    expect(filters).toHaveLength(groups + 7 + groups * 3 + 3 * 2)
    expect(new Set(filters.map((f) => JSON.stringify(f))).size).toBe(filters.length)
    expect(filters).toContainEqual({ type: 1, statusGroup: steps[0]!.value, fiatType: 5 })
    expect(filters).toContainEqual({ type: 1, fiatType: 2, coinId: 3 })
  })
})

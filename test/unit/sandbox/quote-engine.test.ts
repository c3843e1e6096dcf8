import { describe, expect, it } from 'vitest'
import { FIATS, findCoinByCode } from '../../../src/sandbox/catalogue'
import { SandboxError } from '../../../src/sandbox/errors'
import { onrampBounds, quoteOfframp, quoteOnramp, resolveTarget } from '../../../src/sandbox/quote-engine'

const INR = FIATS[0]!
const codeOf = (f: () => unknown): number => {
  try {
    f()
  } catch (e) {
    if (e instanceof SandboxError) return e.code
    throw e
  }
  return 0
}

describe('quote engine', () => {
  it('lets coinCode win over coinId and network over chainId', () => {
    const t = resolveTarget({ coinId: 6, coinCode: 'usdt', chainId: 0, network: 'trc20' }, 'offramp')
    expect(t.coin.code).toBe('usdt')
    expect(t.chainId).toBe(2)
    expect(resolveTarget({ coinId: 6, chainId: 3 }, 'offramp').coin.code).toBe('eth')
    expect(resolveTarget({ coinCode: 'USDT', network: 'BSC' }, 'onramp').chainId).toBe(1)
  })

  it('refuses unknown coins, unknown networks and unsupported pairs with 406', () => {
    expect(codeOf(() => resolveTarget({ coinCode: 'doge', chainId: 1 }, 'onramp'))).toBe(406)
    expect(codeOf(() => resolveTarget({ coinId: 9999, chainId: 1 }, 'onramp'))).toBe(406)
    expect(codeOf(() => resolveTarget({ coinCode: 'usdt', network: 'nope' }, 'onramp'))).toBe(406)
    expect(codeOf(() => resolveTarget({ coinCode: 'usdc', network: 'trc20' }, 'offramp'))).toBe(406)
    expect(codeOf(() => resolveTarget({ coinCode: 'sol', network: 'spl' }, 'offramp'))).toBe(406)
    expect(() => resolveTarget({ coinCode: 'usdc', network: 'trc20' }, 'offramp')).toThrow(/usdc is not supported for offramp on trc20/)
  })

  it('computes an onramp quote from the rate and the fee tables', () => {
    const t = resolveTarget({ coinCode: 'usdt', network: 'bep20' }, 'onramp')
    const q = quoteOnramp(INR, t, '1000', '84')
    // 1% + 0.25% + gateway 5 (threshold 0) = 17.5; (1000 - 17.5) / 84 - 0.3 gas = 11.396..., 4 places down.
    expect(q).toMatchObject({ rate: '84', onrampFee: '10.00', clientFee: '2.50', gatewayFee: '5', gasFee: '0.3', quantity: '11.3964' })
    expect(quoteOnramp(INR, t, '2000', '84').gatewayFee).toBe('10')
  })

  it('answers 413 outside the limits, including per coin minimums', () => {
    const t = resolveTarget({ coinCode: 'usdt', network: 'bep20' }, 'onramp')
    expect(codeOf(() => quoteOnramp(INR, t, '99', '84'))).toBe(413)
    expect(codeOf(() => quoteOnramp(INR, t, '200001', '84'))).toBe(413)
    const erc = resolveTarget({ coinCode: 'usdt', network: 'erc20' }, 'onramp')
    expect(onrampBounds(INR, erc).min).toBe('1000')
    expect(codeOf(() => quoteOnramp(INR, erc, '500', '84'))).toBe(413)
  })

  it('computes an offramp quote with 1% TDS and refuses amounts outside the INR limits', () => {
    const t = resolveTarget({ coinCode: 'usdt', network: 'trc20' }, 'offramp')
    const q = quoteOfframp(t, '100', '82')
    // gross 8200; fee 82, client 20.5, gateway 10 (>= 2000), tds 82 -> 8005.5
    expect(q).toMatchObject({
      gross: '8200.00',
      onrampFee: '82.00',
      clientFee: '20.50',
      gatewayFee: '10',
      tdsFee: '82.00',
      fiatAmount: '8005.50'
    })
    expect(codeOf(() => quoteOfframp(t, '5', '82'))).toBe(413)
    expect(codeOf(() => quoteOfframp(t, '10000', '82'))).toBe(413)
    expect(findCoinByCode('usdt')).toBeDefined()
  })
})

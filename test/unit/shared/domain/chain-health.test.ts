// Chain health on open orders: an out-of-sync node flags every open order of that coin on
// that chain, closed deposits only the sales (which deposit the coin there), and a chain
// the configuration reports healthy flags nothing.
import { describe, expect, it } from 'vitest'
import { chainFlags, chainProblems } from '../../../../src/shared/domain/chain-health'
import type { ConfigSnapshot } from '../../../../src/shared/ipc/contract'

const fee = (nodeInSync: number, depositEnable?: number) => ({
  withdrawalFee: '1',
  minimumWithdrawal: '2',
  nodeInSync,
  ...(depositEnable === undefined ? {} : { depositEnable })
})
const config = (gasFees: ConfigSnapshot['gasFees']) => ({
  gasFees,
  coins: [{ id: 54, code: 'usdt', name: 'Tether', tradeFloatPlaces: 2, networks: [3, 14] }],
  chains: [
    { id: 3, symbol: 'trc20', name: 'Tron', detail: {} },
    { id: 14, symbol: 'BEP20', name: 'BSC', detail: {} }
  ]
})
const open = [
  ...Array.from({ length: 7 }, (_, i) => ({ type: 1 as const, orderId: 100 + i, coinId: 54, chainId: 3 })),
  { type: 2 as const, orderId: 200, coinId: 54, chainId: 3 },
  { type: 1 as const, orderId: 300, coinId: 54, chainId: 14 }
]

describe('chainFlags', () => {
  it('flags nothing while every chain is in sync with deposits open', () => {
    expect(chainFlags(config({ '54': { '3': fee(1, 1), '14': fee(1) } }), open)).toEqual([])
  })
  it('an out-of-sync node flags every open order of that coin on that chain, and only there', () => {
    const flags = chainFlags(config({ '54': { '3': fee(0, 1), '14': fee(1) } }), open)
    expect(flags).toHaveLength(1)
    expect(flags[0]!.problem).toBe('node_out_of_sync')
    expect(flags[0]!.orders.map((o) => o.orderId)).toEqual([100, 101, 102, 103, 104, 105, 106, 200])
    expect(flags[0]!.text).toBe('7 withdrawals and 1 sale of USDT on TRC20 while its node is out of sync')
  })
  it('closed deposits flag only the sales (an onramp order deposits no crypto)', () => {
    const flags = chainFlags(config({ '54': { '3': fee(1, 0), '14': fee(1, 0) } }), open)
    expect(flags.map((f) => [f.chainId, f.problem, f.orders.map((o) => o.orderId)])).toEqual([[3, 'deposits_closed', [200]]])
    expect(flags[0]!.text).toBe('1 sale of USDT on TRC20 while its deposits are closed')
  })
  it('writes coin and chain symbols in capitals, and an unknown coin or chain as #id', () => {
    const flags = chainFlags({ ...config({ '9': { '77': fee(0) } }) }, [{ type: 1, orderId: 1, coinId: 9, chainId: 77 }])
    expect(flags[0]!.text).toBe('1 withdrawal of #9 on #77 while its node is out of sync')
  })
  it('a chain the configuration does not list has no problem', () => {
    expect(chainProblems({}, 54, 3)).toEqual([])
  })
})

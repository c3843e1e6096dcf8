// Open orders on a chain the service says is unwell: its node out of sync (nodeInSync 0:
// withdrawals on it may be delayed, and deposits on it seen late) or its deposits closed
// (depositEnable 0: a customer selling that coin on that chain cannot send it). Worked out
// from the configuration's withdrawal-fee table (allGasFee, coin -> chain), so the flag
// clears with the first configuration answer that says the chain recovered. Pure.
import type { ConfigSnapshot, OrderRef, OrderType } from '../ipc/contract'
import { chainName, coinName } from './names'
import { counted } from './plural'

export type ChainProblem = 'node_out_of_sync' | 'deposits_closed'

export interface OpenOrderOnChain {
  type: OrderType
  orderId: number
  coinId: number
  chainId: number
}

export interface ChainFlag {
  coinId: number
  chainId: number
  problem: ChainProblem
  orders: OrderRef[]
  /** "7 withdrawals of USDT on TRC20 while its node is out of sync" */
  text: string
}

type Health = Pick<ConfigSnapshot, 'gasFees' | 'chains' | 'coins'>

const WHILE: Record<ChainProblem, string> = {
  node_out_of_sync: 'while its node is out of sync',
  deposits_closed: 'while its deposits are closed'
}

/** Which orders a problem touches: an onramp order ends in a withdrawal on the chain; an offramp order starts with a deposit on it. */
const TOUCHES: Record<ChainProblem, readonly OrderType[]> = {
  node_out_of_sync: [1, 2],
  deposits_closed: [2]
}

/** The problems the configuration reports for one coin on one chain. */
export function chainProblems(gasFees: ConfigSnapshot['gasFees'], coinId: number, chainId: number): ChainProblem[] {
  const e = gasFees[String(coinId)]?.[String(chainId)]
  if (!e) return []
  const out: ChainProblem[] = []
  if (e.nodeInSync === 0) out.push('node_out_of_sync')
  if (e.depositEnable === 0) out.push('deposits_closed')
  return out
}

/** One flag per (coin, chain, problem) with the open orders it touches, in the configuration's order of coins and chains. */
export function chainFlags(config: Health, open: readonly OpenOrderOnChain[]): ChainFlag[] {
  const byPlace = new Map<string, OpenOrderOnChain[]>()
  for (const o of open) {
    const k = `${o.coinId}:${o.chainId}`
    const list = byPlace.get(k)
    if (list) list.push(o)
    else byPlace.set(k, [o])
  }
  const flags: ChainFlag[] = []
  for (const [k, orders] of [...byPlace].sort(([a], [b]) => a.localeCompare(b))) {
    const [coinId, chainId] = k.split(':').map(Number) as [number, number]
    for (const problem of chainProblems(config.gasFees, coinId, chainId)) {
      const touched = orders.filter((o) => TOUCHES[problem].includes(o.type))
      if (!touched.length) continue
      const on = touched.filter((o) => o.type === 1).length
      const off = touched.length - on
      const what = [on ? counted(on, 'withdrawal') : null, off ? counted(off, 'sale') : null].filter((x) => x !== null).join(' and ')
      const coin = config.coins.find((c) => c.id === coinId)?.code.toUpperCase() ?? coinName(coinId)
      const chain = config.chains.find((c) => c.id === chainId)?.symbol.toUpperCase() ?? chainName(chainId)
      flags.push({
        coinId,
        chainId,
        problem,
        orders: touched.map((o) => ({ type: o.type, orderId: o.orderId })),
        text: `${what} of ${coin} on ${chain} ${WHILE[problem]}`
      })
    }
  }
  return flags
}

// A test's say over a chain's health: nodeInSync and depositEnable of one coin on one chain,
// set through the control API (POST /__sandbox/chains) over the catalogue's values, so that
// allGasFee and the public configuration report a node out of sync or deposits closed and
// later recovered. Kept per sandbox, never in the shared catalogue.
import { GAS, findCoinByCode, findCoinById, type GasEntry } from './catalogue'
import { SandboxError } from './errors'

export interface ChainHealthSpec {
  coinId?: number
  coinCode?: string
  chainId: number
  nodeInSync?: 0 | 1
  depositEnable?: 0 | 1
}

export interface ChainHealthRow {
  coinId: number
  coinCode: string
  chainId: number
  nodeInSync: 0 | 1
  depositEnable: 0 | 1
}

export class ChainHealth {
  private readonly over = new Map<string, Pick<GasEntry, 'nodeInSync' | 'depositEnable'>>()

  /** The catalogue's entry with this sandbox's health over it (undefined where the coin has no such chain). */
  entry(coinCode: string, chainId: number): GasEntry | undefined {
    const g = GAS[coinCode]?.[chainId]
    const o = this.over.get(`${coinCode}:${chainId}`)
    return g && o ? { ...g, ...o } : g
  }

  /** A coin's chains and their entries (chain id as the key's string), health applied. */
  entries(coinCode: string): [string, GasEntry][] {
    return Object.keys(GAS[coinCode] ?? {}).map((ch) => [ch, this.entry(coinCode, Number(ch))!])
  }

  set(spec: ChainHealthSpec): ChainHealthRow {
    const coin =
      spec.coinCode !== undefined ? findCoinByCode(spec.coinCode) : spec.coinId !== undefined ? findCoinById(spec.coinId) : undefined
    if (!coin) throw new SandboxError(400, 'name the coin by coinId or coinCode')
    const g = this.entry(coin.code, spec.chainId)
    if (!g) throw new SandboxError(400, `${coin.code} has no chain ${spec.chainId}`)
    const next = { nodeInSync: spec.nodeInSync ?? g.nodeInSync, depositEnable: spec.depositEnable ?? g.depositEnable }
    this.over.set(`${coin.code}:${spec.chainId}`, next)
    return { coinId: coin.id, coinCode: coin.code, chainId: spec.chainId, ...next }
  }

  /** Every coin and chain whose health a test set. */
  list(): ChainHealthRow[] {
    return [...this.over].map(([k, v]) => {
      const [code, chain] = k.split(':') as [string, string]
      return { coinId: findCoinByCode(code)!.id, coinCode: code, chainId: Number(chain), ...v }
    })
  }
}

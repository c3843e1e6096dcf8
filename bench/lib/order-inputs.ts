// What the benchmarks ask of the orders view, shared by the renderer bench (through the
// UI) and the scale bench (through orders:query, as the view sends it): the filter
// values an operator sets (each select of the orders view to a value), and the searches
// typed, long (3+ characters: prefixes and substrings of stored values) and short
// (1-2 characters, which the view sends once typing pauses).
import type { ChannelOutput, OrderFilter, OrderRow } from '../../src/shared/ipc/contract'
import { STATUS_GROUPS } from '../../src/shared/domain/status'

type Config = ChannelOutput<'config:get'>

export interface FilterStep {
  /** The orders view's select, by its label. */
  label: 'Status' | 'Fiat' | 'Coin' | 'Network'
  /** The option's text in that select. */
  text: string
  key: 'statusGroup' | 'fiatType' | 'coinId' | 'chainId'
  value: string | number
}

/** Each select of the orders view set to a value (the ones this configuration knows). */
export function filterValueSteps(cfg: Config): FilterStep[] {
  const steps: FilterStep[] = STATUS_GROUPS.map((g) => ({ label: 'Status', text: g, key: 'statusGroup', value: g }))
  for (const sym of ['INR', 'TRY', 'AED']) {
    const id = cfg.fiats.find((f) => f.symbol.toUpperCase() === sym)?.id
    if (id !== undefined) steps.push({ label: 'Fiat', text: sym, key: 'fiatType', value: id })
  }
  for (const code of ['USDT', 'ETH']) {
    const id = cfg.coins.find((c) => c.code.toUpperCase() === code)?.id
    if (id !== undefined) steps.push({ label: 'Coin', text: code, key: 'coinId', value: id })
  }
  for (const sym of ['BEP20', 'ERC20']) {
    const id = cfg.chains.find((c) => c.symbol.toUpperCase() === sym)?.id
    if (id !== undefined) steps.push({ label: 'Network', text: sym, key: 'chainId', value: id })
  }
  return steps
}

/** The onramp filter with these steps' values set (later steps win on the same select). */
export function filterOf(steps: readonly FilterStep[], type: 1 | 2 = 1): OrderFilter {
  const f: Record<string, unknown> = { type }
  for (const s of steps) f[s.key] = s.value
  return f as OrderFilter
}

/**
 * Filters never asked before in one pass: every select alone, then every status group
 * with every fiat, then every fiat with every coin (what an operator narrowing down sets).
 */
export function newValueFilters(cfg: Config): OrderFilter[] {
  const steps = filterValueSteps(cfg)
  const of = (label: FilterStep['label']) => steps.filter((s) => s.label === label)
  const out = steps.map((s) => filterOf([s]))
  for (const g of of('Status')) for (const f of of('Fiat')) out.push(filterOf([g, f]))
  for (const f of of('Fiat')) for (const c of of('Coin')) out.push(filterOf([f, c]))
  return out
}

/**
 * Search texts taken from stored rows: long ones (an order id, the start of a wallet,
 * of a merchant reference and of a hash, the end of a wallet) and short ones (the first
 * one or two characters of an order id, a wallet, a merchant reference). Each once.
 */
export function searchTexts(rows: readonly OrderRow[]): { long: string[]; short: string[] } {
  const long = new Set<string>()
  const short = new Set<string>()
  for (const r of rows) {
    const id = String(r.orderId)
    long.add(id)
    short.add(id.slice(0, 1)).add(id.slice(0, 2))
    if (r.walletAddress) {
      long.add(r.walletAddress.slice(0, 10)).add(r.walletAddress.slice(-8))
      short.add(r.walletAddress.slice(0, 2))
    }
    if (r.merchantRecognitionId) {
      long.add(r.merchantRecognitionId.slice(0, 6))
      short.add(r.merchantRecognitionId.slice(0, 2))
    }
    if (r.transactionHash) long.add(r.transactionHash.slice(0, 12))
  }
  const keep = (s: Set<string>, ok: (t: string) => boolean) => [...s].filter((t) => t.trim() === t && ok(t))
  return { long: keep(long, (t) => t.length >= 3), short: keep(short, (t) => t.length >= 1 && t.length <= 2) }
}

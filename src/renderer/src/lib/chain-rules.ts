// A chain's rules out of the config snapshot (whose detail is an open record) in the
// shape the shared address checks read.
import { ChainDetail } from '../../../shared/api/schemas'
import type { ChainRules } from '../../../shared/domain/address'

export function chainRules(symbol: string, detail: Record<string, unknown>): ChainRules & { memoUsed: boolean } {
  const parsed = ChainDetail.safeParse({ chainSymbol: symbol, ...detail })
  const d = parsed.success ? parsed.data : { chainSymbol: symbol }
  const rules: ChainRules = { chainSymbol: d.chainSymbol }
  if (d.addressRegex !== undefined) rules.addressRegex = d.addressRegex
  if (d.memoRegex !== undefined) rules.memoRegex = d.memoRegex
  if (d.startingWith !== undefined) rules.startingWith = d.startingWith
  if (d.hashLink !== undefined) rules.hashLink = d.hashLink
  return { ...rules, memoUsed: typeof d.memoRegex === 'string' && d.memoRegex !== '' }
}

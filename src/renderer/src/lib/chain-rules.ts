// A chain's rules out of the config snapshot (whose detail is an open record) in the
// shape the shared address checks read. Only the rule fields are parsed: a malformed
// field the check does not read (networkId, confirmations...) must not cost the rules.
import { ChainDetail } from '../../../shared/api/schemas'
import type { ChainRules } from '../../../shared/domain/address'

const RuleFields = ChainDetail.pick({ chainSymbol: true, addressRegex: true, memoRegex: true, startingWith: true, hashLink: true })

export function chainRules(symbol: string, detail: Record<string, unknown>): ChainRules & { memoUsed: boolean } {
  const parsed = RuleFields.safeParse({ chainSymbol: symbol, ...detail })
  const d = parsed.success ? parsed.data : { chainSymbol: symbol }
  const rules: ChainRules = { chainSymbol: d.chainSymbol }
  if (d.addressRegex !== undefined) rules.addressRegex = d.addressRegex
  if (d.memoRegex !== undefined) rules.memoRegex = d.memoRegex
  if (d.startingWith !== undefined) rules.startingWith = d.startingWith
  if (d.hashLink !== undefined) rules.hashLink = d.hashLink
  return { ...rules, memoUsed: typeof d.memoRegex === 'string' && d.memoRegex !== '' }
}

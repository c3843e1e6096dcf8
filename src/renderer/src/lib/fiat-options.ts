// The orders view's fiat filter: the fiats holding orders of the tab's type first, with how
// many (the operator's preferred fiats first among them), then the other fiats the
// configuration names, marked as holding none. From the coverage main keeps (sync:coverage).
import type { Coverage, OrderType } from '../../../shared/ipc/contract'

export interface FiatOption {
  id: number
  symbol: string
  /** Orders held in this fiat; null when not known (a service listing every fiat together). */
  orders: number | null
}

export function fiatOptions(
  type: OrderType,
  coverage: Coverage | null,
  fiats: readonly { id: number; symbol: string }[],
  preferred: readonly number[],
  symbolOf: (id: number) => string
): FiatOption[] {
  const rank = (id: number) => (preferred.includes(id) ? preferred.indexOf(id) : preferred.length)
  const scopes = (coverage?.scopes ?? []).filter((s) => s.type === type && s.fiatType !== 0)
  const held = scopes.filter((s) => s.orders > 0).sort((a, b) => rank(a.fiatType) - rank(b.fiatType) || b.orders - a.orders)
  const out: FiatOption[] = held.map((s) => ({ id: s.fiatType, symbol: symbolOf(s.fiatType), orders: s.orders }))
  const merged = (coverage?.scopes ?? []).some((s) => s.type === type && s.fiatType === 0)
  for (const f of [...fiats].sort((a, b) => rank(a.id) - rank(b.id)))
    if (!out.some((o) => o.id === f.id)) out.push({ id: f.id, symbol: f.symbol.toUpperCase(), orders: merged || !coverage ? null : 0 })
  return out
}

/** "INR (2,034)", "AED (no orders)", "MXN". */
export function fiatOptionLabel(o: FiatOption, count: (n: number) => string): string {
  return o.orders === null ? o.symbol : o.orders === 0 ? `${o.symbol} (no orders)` : `${o.symbol} (${count(o.orders)})`
}

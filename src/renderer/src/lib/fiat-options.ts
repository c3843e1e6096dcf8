// The orders view's fiat filter: the fiats holding orders of the tab's type first, with how
// many (the operator's preferred fiats first among them), then the other fiats the
// configuration names, each as its probe left it: holding none only where the service
// answered so; not checked yet, could not be checked, or not offered otherwise. From the
// coverage main keeps (sync:coverage).
import type { Coverage, OrderType, ScopeCoverage } from '../../../shared/ipc/contract'

/** What is known of a fiat holding no orders here: a probe found none, or why it is not known. */
export type FiatNote = 'empty' | 'unchecked' | 'failed' | 'refused'

export interface FiatOption {
  id: number
  symbol: string
  /** Orders held in this fiat; null when not known (a service listing every fiat together, or no order held yet). */
  orders: number | null
  /** For a fiat holding no orders here: what its probe found; null when not said (no coverage yet, every fiat listed together). */
  note: FiatNote | null
}

const NOTE_OF: Record<ScopeCoverage['probe'], FiatNote> = {
  empty: 'empty',
  refused: 'refused',
  failed: 'failed',
  unprobed: 'unchecked',
  probing: 'unchecked',
  active: 'empty'
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
  const out: FiatOption[] = held.map((s) => ({ id: s.fiatType, symbol: symbolOf(s.fiatType), orders: s.orders, note: null }))
  const merged = (coverage?.scopes ?? []).some((s) => s.type === type && s.fiatType === 0)
  const known = !merged && coverage !== null
  for (const f of [...fiats].sort((a, b) => rank(a.id) - rank(b.id))) {
    if (out.some((o) => o.id === f.id)) continue
    const probe = scopes.find((s) => s.fiatType === f.id)?.probe
    const note: FiatNote | null = known ? (probe ? NOTE_OF[probe] : 'unchecked') : null
    out.push({ id: f.id, symbol: f.symbol.toUpperCase(), orders: note === 'empty' ? 0 : null, note })
  }
  return out
}

const NOTE_TEXT: Record<FiatNote, string> = {
  empty: 'no orders',
  unchecked: 'not checked yet',
  failed: 'could not be checked',
  refused: 'not offered'
}

/** "INR (2,034)", "AED (no orders)", "BRL (not checked yet)", "MXN". */
export function fiatOptionLabel(o: FiatOption, count: (n: number) => string): string {
  if (o.orders !== null && o.orders > 0) return `${o.symbol} (${count(o.orders)})`
  return o.note === null ? o.symbol : `${o.symbol} (${NOTE_TEXT[o.note]})`
}

// Which orders of a type a scope covers: those of one fiat type, or those of every fiat (a
// service found not to filter by fiat is synced as one scope per order type). The contract
// and the sync cursors write a scope's fiat type as a number, 0 standing for every fiat:
// fiatScope() reads that number, so that code selecting orders by scope meets the union
// and never the number that stands for it.

export type FiatScope = { readonly kind: 'every' } | { readonly kind: 'one'; readonly fiatType: number }

export const EVERY_FIAT: FiatScope = Object.freeze({ kind: 'every' })

export const oneFiat = (fiatType: number): FiatScope => ({ kind: 'one', fiatType })

/** The fiat type that stands for every fiat where a scope is written as a number. */
export const EVERY_FIAT_TYPE = 0

/** A scope written as a fiat type (the contract's, the sync cursors'). */
export const fiatScope = (fiatType: number): FiatScope => (fiatType === EVERY_FIAT_TYPE ? EVERY_FIAT : oneFiat(fiatType))

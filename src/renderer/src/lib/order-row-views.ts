// The orders table's row model: every text and attribute a row shows, formatted once per
// row of a fetched page and kept with that page, so the table's markup only places
// strings. Scrolling back over a page, or a row re-rendered by a page's signal, costs no
// formatting; a page replaced (a new answer, a live patch) is a new array and is formatted
// again; a new locale or configuration makes new models.
import { fiatDecimals } from '../../../shared/money'
import { GONE_NOTE, statusInfo, statusTooltip, type StatusTone } from '../../../shared/domain/status'
import type { OrderRow } from '../../../shared/ipc/contract'
import { amountText, dateTime, dateTimeShort } from './format'

export interface OrderRowView {
  orderId: number
  status: number
  watched: boolean
  /** The status in the operator's words ("Complete"); its number and meaning are in statusTitle only. */
  statusLabel: string
  statusTone: StatusTone
  statusTitle: string
  /** After the status of an order the service no longer has ("no longer listed"), else empty. */
  statusNote: string
  fiat: AmountView
  crypto: AmountView
  coinNetwork: string
  wallet: string
  walletTitle: string
  merchant: string
  merchantTitle: string
  /** In the column's width ("Nov 22, 01:23 AM"). */
  updated: string
  /** The whole instant, seconds included. */
  updatedTitle: string
  /** The operator handling the order ("handled by Ana"), or empty. */
  handledBy: string
  /** Their initials, for the table's mark ("AL" for "Ana Lopez", "AN" for "ana"). */
  handlerMonogram: string
}

export interface AmountView {
  text: string
  /** The full decimal, for the title. */
  title: string | undefined
  /** The unit after the amount, empty when none is shown. */
  unit: string
}

/** What formatting a row needs from the app: its locale and the configuration's labels. */
export interface RowLabels {
  locale: string
  /** The year dates are written without (the current one). */
  year?: number
  fiatLabel(id: number | null): string
  coinLabel(id: number): string
  chainLabel(id: number): string
  coinDp(id: number): number
}

function amount(value: string | null, dp: number, unit: string, locale: string): AmountView {
  if (value === null || value === '') return { text: '—', title: undefined, unit: '' }
  let text: string
  try {
    text = amountText(value, dp, locale)
  } catch {
    // A value that is not a decimal is shown as it came rather than hidden.
    text = value
  }
  return { text, title: value, unit }
}

/** A fiat amount to its currency's minor unit ("1,350,000 VND", "150.00 INR"). */
function fiatAmount(value: string | null, symbol: string, locale: string): AmountView {
  return amount(value, fiatDecimals(symbol), symbol, locale)
}

export function orderRowView(r: OrderRow, l: RowLabels): OrderRowView {
  const s = statusInfo(r.type, r.status)
  return {
    orderId: r.orderId,
    status: r.status,
    watched: r.watched,
    statusLabel: s.label,
    statusTone: s.tone,
    statusTitle: r.goneAt
      ? `${statusTooltip(r.type, r.status)} The last status seen: the service no longer lists this order (since ${dateTime(r.goneAt, l.locale)}).`
      : `${statusTooltip(r.type, r.status)}${s.terminal ? ' Final.' : ''}`,
    statusNote: r.goneAt ? GONE_NOTE : '',
    fiat: fiatAmount(r.fiatAmount, l.fiatLabel(r.fiatType), l.locale),
    crypto: amount(r.cryptoAmount, l.coinDp(r.coinId), l.coinLabel(r.coinId), l.locale),
    coinNetwork: `${l.coinLabel(r.coinId)} · ${l.chainLabel(r.chainId)}`,
    wallet: r.walletAddress ?? '—',
    walletTitle: r.walletAddress ?? '',
    merchant: r.merchantRecognitionId ?? '—',
    merchantTitle: r.merchantRecognitionId ?? '',
    updated: dateTimeShort(r.updatedAt, l.locale, l.year ?? new Date().getFullYear()),
    updatedTitle: dateTime(r.updatedAt, l.locale),
    handledBy: r.handledBy ?? '',
    handlerMonogram: monogram(r.handledBy ?? '')
  }
}

/** Initials of a name: of its first two words, or its first two letters. */
export function monogram(name: string): string {
  const words = name
    .trim()
    .split(/[\s._-]+/)
    .filter(Boolean)
  const letters = words.length >= 2 ? words[0]!.slice(0, 1) + words[1]!.slice(0, 1) : (words[0] ?? '').slice(0, 2)
  return letters.toUpperCase()
}

/**
 * Row models of fetched pages, made as rows are first shown and kept per page array
 * (weakly: a page the window evicts takes its models with it). One instance per set of
 * labels; make a new one when the locale or the configuration changes.
 */
export class OrderRowViews {
  readonly #pages = new WeakMap<readonly OrderRow[], Array<OrderRowView | undefined>>()
  private readonly labels: RowLabels

  constructor(labels: RowLabels) {
    // A few coins, chains and fiats label thousands of rows: each label is looked up
    // once (the app's lookups scan the configuration's lists, through its state proxies).
    this.labels = {
      locale: labels.locale,
      year: labels.year ?? new Date().getFullYear(),
      fiatLabel: once((id: number | null) => labels.fiatLabel(id)),
      coinLabel: once((id: number) => labels.coinLabel(id)),
      chainLabel: once((id: number) => labels.chainLabel(id)),
      coinDp: once((id: number) => labels.coinDp(id))
    }
  }

  /** The model of `page[index]`, or undefined when the page has no such row. */
  at(page: readonly OrderRow[], index: number): OrderRowView | undefined {
    const r = page[index]
    if (!r) return undefined
    let views = this.#pages.get(page)
    if (!views) {
      views = new Array<OrderRowView | undefined>(page.length)
      this.#pages.set(page, views)
    }
    return (views[index] ??= orderRowView(r, this.labels))
  }
}

/** f with its answer kept per key. */
function once<K, T>(f: (key: K) => T): (key: K) => T {
  const kept = new Map<K, T>()
  return (key) => {
    if (kept.has(key)) return kept.get(key) as T
    const v = f(key)
    kept.set(key, v)
    return v
  }
}

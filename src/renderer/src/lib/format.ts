// Small display helpers for times, ages and counts, in the operator's locale (the OS
// locale in Electron, the browser's language in the harness: app.locale). Amounts go
// through amountText (Money.svelte and the orders table) and formatDecimal: decimal
// strings, never floats.
import { formatDecimal } from '../../../shared/money'

/** "4 s", "3 min", "2 h 5 min", "3 d". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`
  return `${Math.floor(h / 24)} d`
}

/** "12 s ago", or "never" for a missing time. */
export function ago(at: number | null | undefined, now: number): string {
  if (at === null || at === undefined) return 'never'
  if (at > now) return 'just now'
  return `${duration(now - at)} ago`
}

// Building an Intl formatter costs far more than using one: one per locale, kept.
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>()
const countFormats = new Map<string, Intl.NumberFormat>()

function kept<F>(cache: Map<string, F>, locale: string, make: (l: string) => F): F {
  let f = cache.get(locale)
  if (!f) {
    try {
      f = make(locale)
    } catch {
      // A locale tag Intl does not take (a malformed OS setting) falls back to its default.
      f = make('en-US')
    }
    cache.set(locale, f)
  }
  return f
}

/** Local date and time, seconds included, as the locale writes them, for tables and details. */
export function dateTime(v: number | string | null | undefined, locale: string): string {
  if (v === null || v === undefined || v === '') return '—'
  const d = new Date(v)
  if (Number.isNaN(d.getTime())) return String(v)
  const f = kept(
    dateTimeFormats,
    locale,
    (l) =>
      new Intl.DateTimeFormat(l, {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit'
      })
  )
  return f.format(d)
}

const shortDateTimeFormats = new Map<string, Intl.DateTimeFormat>()
const shortDateFormats = new Map<string, Intl.DateTimeFormat>()

/**
 * Date and time in a table column's width: "Nov 22, 01:23 AM" within `year`, the date
 * alone ("Nov 22, 2025") for another year; dateTime gives the whole instant for its title.
 */
export function dateTimeShort(v: number | string | null | undefined, locale: string, year: number): string {
  if (v === null || v === undefined || v === '') return '—'
  const d = new Date(v)
  if (Number.isNaN(d.getTime())) return String(v)
  if (d.getFullYear() !== year)
    return kept(shortDateFormats, locale, (l) => new Intl.DateTimeFormat(l, { year: 'numeric', month: 'short', day: 'numeric' })).format(d)
  return kept(
    shortDateTimeFormats,
    locale,
    (l) => new Intl.DateTimeFormat(l, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
  ).format(d)
}

const timeFormats = new Map<string, Intl.DateTimeFormat>()

/** The time of day to the second ("12:03:15 PM"), for what was quoted or seen a moment ago. */
export function timeOfDay(v: number, locale: string): string {
  return kept(timeFormats, locale, (l) => new Intl.DateTimeFormat(l, { hour: '2-digit', minute: '2-digit', second: '2-digit' })).format(
    new Date(v)
  )
}

/** A whole count ("1,00,000" in en-IN, "100,000" in en-US). */
export function count(n: number, locale: string): string {
  return kept(countFormats, locale, (l) => new Intl.NumberFormat(l, { maximumFractionDigits: 0 })).format(n)
}

// formatDecimal builds its text from BigInt and Intl on every call; a scrolling table shows
// the same few thousand amounts again and again, so their text is kept.
const amountTexts = new Map<string, string>()

/** An amount rounded to `dp` places for display, grouped as the locale writes numbers (throws on a malformed decimal). */
export function amountText(value: string, dp: number, locale: string): string {
  const key = `${locale}|${dp}|${value}`
  let t = amountTexts.get(key)
  if (t === undefined) {
    t = formatDecimal(value, dp, locale)
    if (amountTexts.size >= 5000) amountTexts.clear()
    amountTexts.set(key, t)
  }
  return t
}

const clockFormats = new Map<string, Intl.DateTimeFormat>()

/** Local hours and minutes ("14:05", "2:05 PM"), for "checked at" marks. */
export function clockTime(v: number, locale: string): string {
  return kept(clockFormats, locale, (l) => new Intl.DateTimeFormat(l, { hour: '2-digit', minute: '2-digit' })).format(new Date(v))
}

/**
 * An amount as an order's detail shows it: every decimal place the service sent (at least
 * `minDp`), grouped as the locale writes numbers, nothing rounded away. A value that is not a
 * plain decimal (an exponent, a word) is shown as it came.
 */
export function fullAmountText(value: unknown, minDp: number, locale: string): string {
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : ''
  if (!/^-?\d+(\.\d+)?$/.test(text)) return String(value)
  const places = text.split('.')[1]?.length ?? 0
  return amountText(text, Math.max(minDp, places), locale)
}

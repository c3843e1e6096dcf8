// Small display helpers for times and ages; amounts go through Money.svelte and
// formatDecimal (decimal strings, never floats).

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

/** Local date and time, seconds included, for tables and details. */
export function dateTime(v: number | string | null | undefined): string {
  if (v === null || v === undefined || v === '') return '—'
  const d = new Date(v)
  if (Number.isNaN(d.getTime())) return String(v)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

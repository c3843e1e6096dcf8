// The orders' date filter as one control: the presets it offers, and the range it holds in
// words for its button ("Any time", "Sep 1 – Sep 15", "From Sep 1"). Days are local
// calendar days written YYYY-MM-DD, as a date input holds them. Pure, so unit-tested.

export type DatePreset = 'today' | 'last7' | 'last30' | 'month' | 'any'

export const DATE_PRESETS: readonly { id: DatePreset; label: string }[] = [
  { id: 'today', label: 'Today' },
  { id: 'last7', label: 'Last 7 days' },
  { id: 'last30', label: 'Last 30 days' },
  { id: 'month', label: 'This month' },
  { id: 'any', label: 'Any time' }
]

/** A local calendar day as YYYY-MM-DD. */
export function dayText(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`
}

/** The range a preset stands for, counted from `today` (local); "any" clears both ends. */
export function presetRange(preset: DatePreset, today: Date): { from: string; to: string } {
  const day = (offset: number) => dayText(new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset))
  switch (preset) {
    case 'today':
      return { from: day(0), to: day(0) }
    case 'last7':
      return { from: day(-6), to: day(0) }
    case 'last30':
      return { from: day(-29), to: day(0) }
    case 'month':
      return { from: dayText(new Date(today.getFullYear(), today.getMonth(), 1)), to: day(0) }
    case 'any':
      return { from: '', to: '' }
  }
}

/** The preset a range is, if it is one (so its button can say "Last 7 days"). */
export function presetOf(from: string, to: string, today: Date): DatePreset | null {
  return (
    DATE_PRESETS.find((p) => {
      const r = presetRange(p.id, today)
      return r.from === from && r.to === to
    })?.id ?? null
  )
}

/** "Any time", "Today", "Last 7 days", "Sep 1 – Sep 15", "From Sep 1", "Until Sep 15" (the year when not this one). */
export function rangeLabel(from: string, to: string, locale: string, today: Date): string {
  const preset = presetOf(from, to, today)
  if (preset) return DATE_PRESETS.find((p) => p.id === preset)!.label
  const write = (d: string) => {
    const [y, m, day] = d.split('-').map(Number) as [number, number, number]
    const date = new Date(y, m - 1, day)
    if (Number.isNaN(date.getTime())) return d
    const opts: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', ...(y !== today.getFullYear() ? { year: 'numeric' } : {}) }
    try {
      return new Intl.DateTimeFormat(locale, opts).format(date)
    } catch {
      return new Intl.DateTimeFormat('en-US', opts).format(date)
    }
  }
  if (from && to) return from === to ? write(from) : `${write(from)} – ${write(to)}`
  if (from) return `From ${write(from)}`
  return `Until ${write(to)}`
}

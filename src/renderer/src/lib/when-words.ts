// When something was, as an operator says it: the day in words where it is near.

/** "today 18:04", "yesterday 18:04", or the date and time further back. */
export function whenWords(at: number, now: number, locale: string): string {
  const day = (t: number) => new Date(t).toDateString()
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(new Date(at))
  if (day(at) === day(now)) return `today ${time}`
  if (day(at) === day(now - 24 * 60 * 60_000)) return `yesterday ${time}`
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(at))
}

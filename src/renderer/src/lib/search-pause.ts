// When the orders view sends what is typed in its search box. A search of one or two
// characters ("0", "0x", "rd") matches most orders: counting them keeps main busy for
// tens of ms (up to 70 ms on 100,000 orders before the count is cached), and the keys
// typed after it wait behind that count. So a short search is sent once typing pauses,
// as the operator who means it does; anything longer, and clearing the box, go at once.
// Its query is asked for ahead, once typing has paused longer than between a person's
// keys (SHORT_SEARCH_ASK_AFTER_MS), so its answer is there when the pause ends rather
// than a query's time after it; keys typed at a person's pace ask nothing ahead.

/** Searches shorter than this wait for a pause in typing. */
export const SHORT_SEARCH_CHARS = 3
/** The pause a short search waits for. */
export const SHORT_SEARCH_PAUSE_MS = 250

/** When a short search's query is asked for ahead, into its pause (the answer is shown at the pause's end). */
export const SHORT_SEARCH_ASK_AFTER_MS = 150

/** How long the view waits before sending this search text: 0 for at once. */
export function searchPause(text: string): number {
  const t = text.trim()
  return t.length > 0 && t.length < SHORT_SEARCH_CHARS ? SHORT_SEARCH_PAUSE_MS : 0
}

// When the orders view sends its search: one or two characters (which match most
// orders) once typing pauses; anything longer, and an empty box, at once.
import { describe, expect, it } from 'vitest'
import { searchPause, SHORT_SEARCH_CHARS, SHORT_SEARCH_PAUSE_MS } from '../../../../src/renderer/src/lib/search-pause'

describe('searchPause', () => {
  it('holds a search of one or two characters for a pause in typing', () => {
    expect(SHORT_SEARCH_CHARS).toBe(3)
    for (const text of ['0', '0x', 'r', 'rd', ' 7 ', '  ab']) expect(searchPause(text)).toBe(SHORT_SEARCH_PAUSE_MS)
  })

  it('sends three characters and more at once, as it does an empty box (a search cleared)', () => {
    for (const text of ['0x2', 'rd-', '243489', '0x249A5f70', '', '   ']) expect(searchPause(text)).toBe(0)
  })
})

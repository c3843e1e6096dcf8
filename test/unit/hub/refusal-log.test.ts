// Refusals summarised per source: the first in a period logged, the rest counted into one line.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RefusalLog } from '../../../src/hub/refusal-log'

afterEach(() => void vi.useRealTimers())

describe('RefusalLog', () => {
  it('logs the first refusal of a source, then one summary line per source for the period', () => {
    vi.useFakeTimers()
    const lines: string[] = []
    const log = new RefusalLog({ warn: (l) => void lines.push(l) }, { windowMs: 60_000 })
    for (let i = 0; i < 1000; i++) log.refused('203.0.113.9', i % 10 ? 401 : 431, 'POST /rpc/x: no bearer token')
    log.refused('198.51.100.1', 404, 'GET /nope: no such path')
    expect(lines).toEqual([
      'refused 431 POST /rpc/x: no bearer token from 203.0.113.9',
      'refused 404 GET /nope: no such path from 198.51.100.1'
    ])
    vi.advanceTimersByTime(60_000)
    expect(lines.slice(2)).toEqual(['refused 999 more requests from 203.0.113.9 in the last 60 s: 401 ×900, 431 ×99'])
    // A new period starts afresh.
    log.refused('203.0.113.9', 401, 'again')
    expect(lines.at(-1)).toBe('refused 401 again from 203.0.113.9')
  })

  it('counts sources past its cap together, so a spread-out flood costs a bounded number of lines', () => {
    vi.useFakeTimers()
    const lines: string[] = []
    const log = new RefusalLog({ warn: (l) => void lines.push(l) }, { maxSources: 5 })
    for (let i = 0; i < 10_000; i++) log.refused(`10.0.${i >> 8}.${i & 255}`, 401, 'x')
    log.close()
    expect(lines.length).toBeLessThanOrEqual(5 + 1 + 1)
    expect(lines.at(-1)).toMatch(/^refused 9,994 more requests from \(other sources\) in the last 60 s: 401 ×9,994$/)
  })
})

// The change-detection bench's ledger: latency from each change to the first report of
// its order, per detector and per label, and what is still unreported.
import { describe, expect, it } from 'vitest'
import { ChangeLog } from '../../../bench/lib/change-log'

function ledger() {
  let t = 1_000
  const log = new ChangeLog(() => t)
  return { log, at: (ms: number) => (t = ms) }
}

describe('ChangeLog', () => {
  it('measures each change to the first report of its order, separately per detector', () => {
    const { log, at } = ledger()
    const fast = log.detector('fast')
    const slow = log.detector('slow')
    at(1_000)
    log.record('1:7', 'unwatched')
    at(1_400)
    fast('1:7')
    at(5_000)
    slow('1:7')
    fast('1:7') // already reported: no second sample
    expect(log.latencies('fast')).toEqual([400])
    expect(log.latencies('slow')).toEqual([4_000])
    expect(log.unseen('fast')).toBe(0)
  })

  it('counts a change superseded before it was reported up to the report of the later one', () => {
    const { log, at } = ledger()
    const d = log.detector('d')
    at(0)
    log.record('2:9', 'watched')
    at(3_000)
    log.record('2:9', 'watched')
    at(10_000)
    d('2:9')
    expect(log.latencies('d', 'watched').sort((a, b) => a - b)).toEqual([7_000, 10_000])
  })

  it('keeps watched and unwatched apart, ignores reports of orders that did not change, and tracks what is unseen', () => {
    const { log, at } = ledger()
    const d = log.detector('d')
    at(0)
    log.record('1:1', 'watched')
    log.record('1:2', 'unwatched')
    log.record('1:3', 'unwatched')
    at(2_000)
    d('1:1')
    d('1:99')
    expect(log.made()).toBe(3)
    expect(log.made('unwatched')).toBe(2)
    expect(log.latencies('d', 'watched')).toEqual([2_000])
    expect(log.latencies('d', 'unwatched')).toEqual([])
    expect(log.unseen('d')).toBe(2)
    expect(log.unseen('d', 'watched')).toBe(0)
    at(9_000)
    expect(log.oldestUnseenMs('d')).toBe(9_000)
    d('1:2')
    d('1:3')
    expect(log.oldestUnseenMs('d')).toBe(0)
  })

  it('owes a change only to detectors that existed when it was made', () => {
    const { log } = ledger()
    log.record('1:1', 'unwatched')
    const late = log.detector('late')
    late('1:1')
    expect(log.latencies('late')).toEqual([])
    expect(log.unseen('late')).toBe(0)
  })
})

// Where a reconnecting desktop resumes: live, a replay from a little before its last id, or a
// resync when it is too far behind (or ahead of a restored database).
import { describe, expect, it } from 'vitest'
import { MAX_REPLAY, REPLAY_OVERLAP, resumeOf } from '../../../src/hub/event-stream'

describe('resumeOf', () => {
  it('is live without a usable Last-Event-ID', () => {
    for (const v of [undefined, '', 'abc', '-1', '1e3', '9'.repeat(20)]) expect(resumeOf(v, 500)).toEqual({ kind: 'live' })
  })
  it('replays from REPLAY_OVERLAP before the id named, within MAX_REPLAY of the newest', () => {
    expect(resumeOf('400', 500)).toEqual({ kind: 'replay', after: 0 })
    expect(resumeOf(String(5000), 6000)).toEqual({ kind: 'replay', after: 5000 - REPLAY_OVERLAP })
    expect(resumeOf(String(50_000 - MAX_REPLAY), 50_000)).toEqual({ kind: 'replay', after: 50_000 - MAX_REPLAY - REPLAY_OVERLAP })
  })
  it('sends a resync past MAX_REPLAY behind, or for an id the hub never gave', () => {
    expect(resumeOf('0', 50_000)).toEqual({ kind: 'resync', latest: 50_000 })
    expect(resumeOf(String(50_000 - MAX_REPLAY - 1), 50_000)).toEqual({ kind: 'resync', latest: 50_000 })
    expect(resumeOf('700', 500)).toEqual({ kind: 'resync', latest: 500 })
  })
})

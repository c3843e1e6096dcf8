// A scope's sync state holds only combinations that can be true: a waiting scope has no
// mode or progress, a running one no next run; what every version has sent still parses.
import { describe, expect, it } from 'vitest'
import { events, SyncState } from '../../../../src/shared/ipc/contract'
import { runningState, syncState } from '../../../support/sync-state'

describe('SyncState', () => {
  it('reads a waiting and a running scope as every version sends them', () => {
    expect(SyncState.parse(syncState({ nextRunAt: 5_000 }))).toEqual(syncState({ nextRunAt: 5_000 }))
    const running = runningState({ mode: 'full', progress: { pages: 2, orders: 731 } })
    expect(events['sync:state'].parse(running)).toEqual(running)
  })

  it('refuses a scope not running with a run’s mode or progress, or running without them', () => {
    const waiting = syncState()
    const running = runningState()
    for (const impossible of [
      { ...waiting, mode: 'poll' },
      { ...waiting, progress: { pages: 1, orders: 10 } },
      { ...running, mode: null },
      { ...running, progress: null },
      { ...running, nextRunAt: 5_000 }
    ])
      expect(SyncState.safeParse(impossible).success, JSON.stringify(impossible)).toBe(false)
  })
})

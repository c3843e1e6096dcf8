// The leader's sync states, as a follower reads them off the leader_coverage row: only those
// written for the row's version (an older leader bumps the version without them), and none
// when they do not read.
import { describe, expect, it } from 'vitest'
import { statesFor } from '../../../../src/hub/pg/pg-leader-coverage'

describe('statesFor', () => {
  const states = [{ type: 1, fiatType: 1, running: false }]
  it("answers the states stamped with the row's version", () => {
    expect(statesFor(7, `7 ${JSON.stringify(states)}`)).toEqual(states)
  })
  it('answers none for another version, no stamp or no states', () => {
    expect(statesFor(8, `7 ${JSON.stringify(states)}`)).toBeNull()
    expect(statesFor(7, JSON.stringify(states))).toBeNull()
    expect(statesFor(7, null)).toBeNull()
  })
  it('answers none, without throwing, for states that do not read', () => {
    expect(statesFor(7, '7 [{"type":1,')).toBeNull()
    expect(statesFor(7, '7 {"type":1}')).toBeNull()
  })
})

// Which sync states make the orders view refetch: those whose scope wrote orders.
import { describe, expect, it } from 'vitest'
import { SyncWrites } from '../../../../src/renderer/src/lib/sync-writes'

const state = (type: 1 | 2, fiatType: number, writeMark?: string) => ({ type, fiatType, writeMark })

describe('SyncWrites', () => {
  it('says written for a new mark of a scope, not for the same mark again', () => {
    const w = new SyncWrites()
    expect(w.wrote(state(1, 1, 'a:1'))).toBe(true)
    expect(w.wrote(state(1, 1, 'a:1'))).toBe(false)
    expect(w.wrote(state(1, 1, 'a:2'))).toBe(true)
    expect(w.wrote(state(1, 1, 'a:2'))).toBe(false)
  })

  it('keeps each scope apart', () => {
    const w = new SyncWrites([state(1, 1, 'a:1'), state(2, 1, 'a:1')])
    expect(w.wrote(state(1, 1, 'a:1'))).toBe(false)
    expect(w.wrote(state(2, 1, 'a:1'))).toBe(false)
    expect(w.wrote(state(1, 2, 'a:1'))).toBe(true)
    expect(w.wrote(state(2, 1, 'a:3'))).toBe(true)
    expect(w.wrote(state(1, 1, 'a:1'))).toBe(false)
  })

  it('takes the states known when the view loaded as already shown', () => {
    const w = new SyncWrites([state(1, 1, 'a:4')])
    expect(w.wrote(state(1, 1, 'a:4'))).toBe(false)
  })

  it('counts every state without a mark (a hub of an older version) as written, and the next marked one too', () => {
    const w = new SyncWrites([state(1, 1, 'a:4')])
    expect(w.wrote(state(1, 1))).toBe(true)
    expect(w.wrote(state(1, 1))).toBe(true)
    expect(w.wrote(state(1, 1, 'a:4'))).toBe(true)
    expect(w.wrote(state(1, 1, 'a:4'))).toBe(false)
  })
})

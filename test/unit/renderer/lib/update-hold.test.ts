// While the operator is on the orders table, updates wait, counted, until asked for or the
// operator leaves; while they are not, updates apply at once.
import { describe, expect, it } from 'vitest'
import { UpdateHold, waitingText } from '../../../../src/renderer/src/lib/update-hold.svelte'

function hold() {
  let applied = 0
  const h = new UpdateHold(() => void applied++)
  return { h, applied: () => applied }
}

describe('UpdateHold', () => {
  it('applies updates at once while nobody is on the table', () => {
    const { h, applied } = hold()
    h.arrive('1:100')
    h.arrive(null)
    expect(applied()).toBe(2)
    expect(h.state).toEqual({ kind: 'live' })
    expect(h.waiting).toBeNull()
  })

  it('counts each order once while held, and a sync without events apart', () => {
    const { h, applied } = hold()
    h.engage('detail', true)
    h.arrive('1:100')
    h.arrive('1:100')
    h.arrive('1:101')
    expect(h.waiting).toEqual({ orders: 2, synced: false })
    h.arrive(null)
    expect(h.waiting).toEqual({ orders: 2, synced: true })
    expect(applied()).toBe(0)
  })

  it('applies what waits when the operator leaves the table by the last way they were on it', () => {
    const { h, applied } = hold()
    h.engage('pointer', true)
    h.engage('focus', true)
    h.arrive('2:5')
    h.engage('pointer', false)
    expect(applied()).toBe(0)
    expect(h.state).toEqual({ kind: 'held', by: ['focus'], waiting: { orders: 1, synced: false } })
    h.engage('focus', false)
    expect(applied()).toBe(1)
    expect(h.state).toEqual({ kind: 'live' })
    // Leaving with nothing waiting applies nothing.
    h.engage('detail', true)
    h.engage('detail', false)
    expect(applied()).toBe(1)
  })

  it('applies on request and stays held for what comes next', () => {
    const { h, applied } = hold()
    h.engage('detail', true)
    h.show()
    expect(applied()).toBe(0)
    h.arrive('1:7')
    h.show()
    expect(applied()).toBe(1)
    expect(h.state).toEqual({ kind: 'held', by: ['detail'], waiting: null })
    h.arrive('1:7')
    expect(h.waiting).toEqual({ orders: 1, synced: false })
  })

  it('forgets what waits when the rows are fetched again for a new filter', () => {
    const { h, applied } = hold()
    h.engage('focus', true)
    h.arrive('1:1')
    h.discard()
    expect(h.waiting).toBeNull()
    h.engage('focus', false)
    expect(applied()).toBe(0)
  })

  it('says what waits', () => {
    expect(waitingText({ orders: 5, synced: false })).toBe('5 updates')
    expect(waitingText({ orders: 1, synced: true })).toBe('1 update')
    expect(waitingText({ orders: 0, synced: true })).toBe('New orders synced')
  })
})

// The connection pool's fairness: a source over its own cap is refused; a full pool makes room
// for a smaller holder by closing the largest holder's oldest connection.
import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { ConnectionPool } from '../../../src/hub/connection-pool'

const socket = () => {
  const s = new EventEmitter() as EventEmitter & { destroyed: boolean; destroy(): void }
  s.destroyed = false
  s.destroy = () => {
    if (s.destroyed) return
    s.destroyed = true
    s.emit('close')
  }
  return s as unknown as Socket & { destroyed: boolean }
}

describe('ConnectionPool', () => {
  it('refuses a source over its own cap', () => {
    const pool = new ConnectionPool(10, 2)
    expect(pool.admit('a', socket()).ok).toBe(true)
    expect(pool.admit('a', socket()).ok).toBe(true)
    expect(pool.admit('a', socket())).toEqual({ ok: false, reason: 'source' })
    expect(pool.admit('b', socket()).ok).toBe(true)
  })

  it('when full, closes the largest holder’s oldest connection for a newcomer from elsewhere', () => {
    const pool = new ConnectionPool(4, 4)
    const a = [socket(), socket(), socket()]
    for (const s of a) pool.admit('a', s)
    pool.admit('b', socket())
    const r = pool.admit('c', socket())
    expect(r).toMatchObject({ ok: true, evicted: a[0] })
    expect(a[0]!.destroyed).toBe(true)
    expect(pool.size).toBe(4)
    expect(pool.counts()).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
        ['c', 1]
      ])
    )
  })

  it('does not evict for a source that already holds as many as the largest holder', () => {
    const pool = new ConnectionPool(4, 4)
    for (let i = 0; i < 2; i++) pool.admit('a', socket())
    for (let i = 0; i < 2; i++) pool.admit('b', socket())
    expect(pool.admit('b', socket())).toEqual({ ok: false, reason: 'full' })
    expect(pool.admit('c', socket()).ok).toBe(true)
  })

  it('forgets a connection when it closes', () => {
    const pool = new ConnectionPool(2, 2)
    const s = socket()
    pool.admit('a', s)
    s.destroy()
    expect(pool.size).toBe(0)
    expect(pool.of('a')).toBe(0)
  })
})

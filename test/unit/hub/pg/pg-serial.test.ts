// Statements for a task that retries by itself run one after another, and a failure that
// lasts is said once, with what it was for, then once when the database answers again.
import { describe, expect, it } from 'vitest'
import { SerialQueries } from '../../../../src/hub/pg/pg-serial'

describe('SerialQueries', () => {
  it('runs each statement after the one queued before it ended', async () => {
    const said: string[] = []
    const q = new SerialQueries((m) => void said.push(m))
    const order: string[] = []
    const slow = q.run(async () => {
      await new Promise((r) => setTimeout(r, 30))
      order.push('slow')
    }, 'a')
    const fast = q.run(async () => void order.push('fast'), 'a')
    await Promise.all([slow, fast])
    expect(order).toEqual(['slow', 'fast'])
    await q.idle()
    expect(said).toEqual([])
  })

  it('says a lasting failure once, and once that the database answers again, per task', async () => {
    const said: string[] = []
    const q = new SerialQueries((m) => void said.push(m))
    const fail = () => Promise.reject(new Error('connection refused'))
    const ok = () => Promise.resolve()
    for (let i = 0; i < 3; i++) await q.run(fail, 'could not read the coverage')
    await q.run(fail, 'could not share an answer')
    await q.run(ok, 'could not read the coverage')
    await q.run(ok, 'could not read the coverage')
    expect(said).toEqual([
      'could not read the coverage: connection refused; retrying',
      'could not share an answer: connection refused; retrying',
      'could not read the coverage: the database answers again'
    ])
  })

  it('does not pile reads up: one queued and not started stands for the next', async () => {
    const q = new SerialQueries(() => undefined)
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const held = q.run(() => gate, 'a write')
    let reads = 0
    const read = () => q.read(async () => void reads++, 'a read')
    const first = read()
    expect(read()).toBe(first)
    expect(read()).toBe(first)
    release()
    await held
    await first
    expect(reads).toBe(1)
    // Once it started, a read is queued anew.
    await read()
    expect(reads).toBe(2)
  })
})

// The spool on the hub's own disk: what it took survives a restart, a line a crash cut short
// is left out, it refuses past its bound, and it drains into the store in order, each entry
// once, with appends that arrive meanwhile kept for the next drain.
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DeliverySpool, readSpoolText, SpoolFullError } from '../../../../src/hub/kept/delivery-spool'
import type { KeptDelivery } from '../../../../src/hub/kept/kept-delivery'

let dir: string
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'rampdesk-spool-')), 'spool')
})
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }))

const d = (orderId: number): KeptDelivery => ({
  contentKey: `c${orderId}`,
  dedupeKey: `k${orderId}`,
  receivedAt: 1,
  hub: 'h',
  orderType: 1,
  orderId,
  status: 5,
  body: Buffer.from(`{"orderId":${orderId}}`).toString('base64'),
  headers: { 'content-type': 'application/json', 'x-payload': 'p', 'x-signature': 's', 'user-agent': null },
  relay: true,
  log: { headers: {}, payloadHeader: 'p', body: `{"orderId":${orderId}}`, verified: true }
})

describe('the delivery spool', () => {
  it('keeps what it took across a restart, in order', async () => {
    const spool = DeliverySpool.open(dir)
    await Promise.all([1, 2, 3].map((i) => spool.append(d(i))))
    await spool.close()
    const again = DeliverySpool.open(dir)
    expect(again.entries).toBe(3)
    const got: number[] = []
    expect(await again.drain(async (b) => void got.push(...b.map((x) => x.orderId!)))).toBe(3)
    expect(got).toEqual([1, 2, 3])
    expect(again.isEmpty()).toBe(true)
    expect(readdirSync(dir)).toEqual([])
  })

  it('leaves out a line a crash cut short, and a damaged one', async () => {
    const spool = DeliverySpool.open(dir)
    await spool.append(d(1))
    await spool.close()
    const [file] = readdirSync(dir)
    appendFileSync(join(dir, file!), '0123456789abcdef {"contentKey":"c2","ord') // no newline: cut short
    const text = readSpoolText(`${'f'.repeat(16)} {"a":1}\n`)
    expect(text).toEqual({ entries: [], damaged: 1 })
    const again = DeliverySpool.open(dir)
    const got: number[] = []
    await again.drain(async (b) => void got.push(...b.map((x) => x.orderId!)))
    expect(got).toEqual([1])
  })

  it('refuses past its bound', async () => {
    const spool = DeliverySpool.open(dir, 1_000)
    let n = 0
    await expect(
      (async () => {
        for (;;) {
          await spool.append(d(n))
          n++
        }
      })()
    ).rejects.toBeInstanceOf(SpoolFullError)
    expect(n).toBeGreaterThan(0)
    expect(spool.bytes).toBeLessThanOrEqual(1_000)
    await spool.close()
  })

  it('stops at a batch the store refuses and hands each entry over once in all', async () => {
    const spool = DeliverySpool.open(dir)
    for (let i = 1; i <= 5; i++) await spool.append(d(i))
    const got: number[] = []
    let fail = true
    const keep = async (b: KeptDelivery[]) => {
      if (b[0]!.orderId === 3 && fail) throw new Error('store down')
      got.push(...b.map((x) => x.orderId!))
    }
    await expect(spool.drain(keep, 2)).rejects.toThrow('store down')
    expect(spool.entries).toBe(5)
    fail = false
    expect(await spool.drain(keep, 2)).toBe(3)
    expect(got).toEqual([1, 2, 3, 4, 5])
    expect(spool.isEmpty()).toBe(true)
  })

  it('keeps appends that arrive while it drains for the next drain', async () => {
    const spool = DeliverySpool.open(dir)
    await spool.append(d(1))
    const got: number[] = []
    let late: Promise<void> = Promise.resolve()
    await spool.drain(async (b) => {
      late = spool.append(d(2))
      await late
      got.push(...b.map((x) => x.orderId!))
    })
    await late
    expect(got).toEqual([1])
    expect(spool.entries).toBe(1)
    await spool.drain(async (b) => void got.push(...b.map((x) => x.orderId!)))
    expect(got).toEqual([1, 2])
  })

  it('counts an earlier run’s files when it opens, and numbers new files after them', async () => {
    const spool = DeliverySpool.open(dir)
    await spool.append(d(1))
    await spool.close()
    writeFileSync(join(dir, 'unrelated.txt'), 'x')
    const again = DeliverySpool.open(dir)
    await again.append(d(2))
    await again.close()
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith('spool-'))
        .sort()
    ).toEqual(['spool-000000000001.jsonl', 'spool-000000000002.jsonl'])
    expect(DeliverySpool.open(dir).entries).toBe(2)
  })
})

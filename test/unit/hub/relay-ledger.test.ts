// What the hub has relayed: no payload twice, no order and status twice inside the window,
// and a relay that reached nobody gives its claim back.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openHubDatabase } from '../../../src/hub/hub-db'
import { relayContent, RelayLedger, RELAYED_PAYLOAD_MEMORY_MS } from '../../../src/hub/relay-ledger'
import type { Sql } from '../../../src/main/store/database'

let dir: string
let sql: Sql
let t: number
let ledger: RelayLedger
const WINDOW = 5 * 60_000

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-ledger-'))
  sql = openHubDatabase(dir)
  t = 1_700_000_000_000
  ledger = new RelayLedger(sql, () => t, WINDOW)
})
afterEach(() => {
  sql.close()
  rmSync(dir, { recursive: true, force: true })
})

const d = (payload: string, status = 5, content = `${payload}:${status}`) => ({ payload, content, orderType: 1, orderId: 42, status })

describe('RelayLedger', () => {
  it('claims a delivery once; the same order and status again only after the window', () => {
    const first = ledger.claim(d('p1'))
    expect(first.ok).toBe(true)
    expect(ledger.claim(d('p2'))).toEqual({ ok: false, reason: 'order 42 status 5 was already relayed 0 s ago' })
    expect(ledger.claim(d('p3', 6)).ok).toBe(true)
    t += WINDOW
    expect(ledger.claim(d('p4')).ok).toBe(true)
  })

  it('never relays the same signed payload twice, for 30 days', () => {
    expect(ledger.claim(d('same')).ok).toBe(true)
    t += WINDOW * 10
    expect(ledger.claim(d('same', 7))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^this signed payload was already relayed/)
    })
    t += RELAYED_PAYLOAD_MEMORY_MS
    expect(ledger.claim(d('same', 7)).ok).toBe(true)
  })

  it('never relays the same content twice, for 30 days, whatever its attempt counters say', () => {
    const a = relayContent(JSON.stringify({ orderId: 42, status: 5, webhookTrials: 1 }))
    const b = relayContent(JSON.stringify({ webhookTrials: 3, status: 5, orderId: 42 }))
    expect(a).toBe(b)
    expect(ledger.claim(d('p1', 5, a)).ok).toBe(true)
    t += WINDOW * 10
    expect(ledger.claim(d('p2', 5, b))).toMatchObject({ ok: false, reason: expect.stringMatching(/^this delivery \(the same content\)/) })
  })

  it('gives the claim back when the relay reached nobody, keeps it when it was delivered', () => {
    const a = ledger.claim(d('a'))
    if (!a.ok) throw new Error('claim')
    ledger.settle(a.keys, false)
    const b = ledger.claim(d('a'))
    if (!b.ok) throw new Error('claimed again')
    ledger.settle(b.keys, true)
    expect(ledger.claim(d('a')).ok).toBe(false)
  })

  it('prunes what can no longer collide', () => {
    ledger.claim(d('x'))
    t += WINDOW + 1
    expect(ledger.prune()).toBe(1)
    t += RELAYED_PAYLOAD_MEMORY_MS
    expect(ledger.prune()).toBe(2)
    expect(sql.value('SELECT COUNT(*) FROM webhook_relays')).toBe(0)
  })
})

// Claims and notes in the profile database: the current claim, the notes, the search by a
// note's text or the handler's name, and a hub's copy applied once per backend id.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { claimEntry } from '../../../../src/main/store/order-claims-repo'
import { onramp } from './order-fixtures'

let dir: string
let store: LocalStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-claims-'))
  store = openLocalStore(dir)
  store.orders.applyHistoryPage({
    type: 1,
    fiatType: 1,
    records: [
      onramp({ orderId: 11 }),
      onramp({ orderId: 12, merchantRecognitionId: 'MR-12', walletAddress: '0x12', referenceId: 'R12', transactionHash: '0x1212' })
    ]
  })
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const ref = { type: 1 as const, orderId: 11 }

describe('OrderClaimsRepo', () => {
  it('claims, keeps "since" when renewed, hands over with a new since, and releases', () => {
    expect(store.claims.claim(1, 11)).toBeNull()
    store.claims.record(claimEntry(null, { ...ref, action: 'claim' }, 'Ana', 1_000))
    expect(store.claims.claim(1, 11)).toEqual({ operator: 'Ana', since: 1_000 })
    store.claims.record(claimEntry(store.claims.claim(1, 11), { ...ref, action: 'claim' }, 'ana', 2_000))
    expect(store.claims.claim(1, 11)).toEqual({ operator: 'ana', since: 1_000 })
    store.claims.record(claimEntry(store.claims.claim(1, 11), { ...ref, action: 'hand', to: 'Ben' }, 'Ana', 3_000))
    expect(store.claims.claim(1, 11)).toEqual({ operator: 'Ben', since: 3_000 })
    expect(store.claims.handlers(1, [11, 12])).toEqual(new Map([[11, 'Ben']]))
    store.claims.record(claimEntry(store.claims.claim(1, 11), { ...ref, action: 'release' }, 'Ana', 4_000))
    expect(store.claims.claim(1, 11)).toBeNull()
    expect(store.claims.handlers(1, [11])).toEqual(new Map())
  })

  it('refuses to take an order someone else handles, and a release of an order nobody handles', () => {
    expect(() => claimEntry({ operator: 'Ana', since: 1 }, { ...ref, action: 'claim' }, 'Ben', 2)).toThrow(/Ana is handling this order/)
    expect(() => claimEntry(null, { ...ref, action: 'release' }, 'Ben', 2)).toThrow(/Nobody is handling/)
  })

  it('keeps the first of two claims made at the same moment elsewhere: the later one changes nothing and the copy moves past it', () => {
    expect(store.claims.record({ ...ref, kind: 'claim', actor: 'Ana', at: 1_000 }, 7)).toMatchObject({ claim: { operator: 'Ana' } })
    // Ben's hub saw the order free too; his claim reaches this copy after Ana's.
    expect(store.claims.record({ ...ref, kind: 'claim', actor: 'Ben', at: 1_001 }, 8)).toBeNull()
    expect(store.claims.claim(1, 11)).toEqual({ operator: 'Ana', since: 1_000 })
    expect(store.claims.lastSourceId()).toBe(8)
    // A hand-over still moves it.
    store.claims.record({ ...ref, kind: 'hand', to: 'Ben', actor: 'Ana', at: 2_000 }, 9)
    expect(store.claims.claim(1, 11)).toEqual({ operator: 'Ben', since: 2_000 })
  })

  it('lists notes oldest first with author and time', () => {
    store.claims.record({ ...ref, kind: 'note', text: 'second', actor: 'Ben', at: 2_000 })
    const first = store.claims.record({ ...ref, kind: 'note', text: 'Customer called about the bank', actor: 'Ana', at: 1_000 })!
    expect(first.note).toMatchObject({ author: 'Ana', at: 1_000, text: 'Customer called about the bank' })
    expect(store.claims.notes(1, 11).map((n) => [n.author, n.text])).toEqual([
      ['Ana', 'Customer called about the bank'],
      ['Ben', 'second']
    ])
    expect(store.claims.notes(1, 12)).toEqual([])
  })

  it("records a hub's entry once per backend id, and tells the newest id it holds", () => {
    const e = { ...ref, kind: 'note' as const, text: 'from the hub', actor: 'Ana', at: 5 }
    expect(store.claims.record(e, 7)?.note).toMatchObject({ id: 7, text: 'from the hub' })
    expect(store.claims.record(e, 7)).toBeNull()
    expect(store.claims.notes(1, 11)).toHaveLength(1)
    expect(store.claims.lastSourceId()).toBe(7)
  })

  it("finds an order by a note's text or its handler's name, in the narrow and the broad plan", () => {
    store.claims.record({ ...ref, kind: 'note', text: 'Customer sent a screenshot of the refund', actor: 'Ana', at: 1 })
    store.claims.record({ type: 1, orderId: 12, kind: 'claim', actor: 'Zoltan', at: 2 })
    const ids = (search: string) => store.orders.query({ type: 1, search }).rows.map((r) => r.orderId)
    expect(ids('screenshot')).toEqual([11])
    expect(ids('zolt')).toEqual([12])
    // Two characters: the start of a handler's name only.
    expect(ids('zo')).toEqual([12])
    expect(ids('nothing like it')).toEqual([])
    store.orders.reads.searchPlan.broadMatches = 0
    expect(ids('screenshot')).toEqual([11])
    expect(ids('zolt')).toEqual([12])
  })
})

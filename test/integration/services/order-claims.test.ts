// Claims and notes on a profile without a hub: kept in the profile's database, authored by the
// computer's user, audited, and sent to the windows as order:handling.
import { userInfo } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
beforeAll(async () => {
  h = await startServicesHarness()
})
afterAll(async () => {
  await h?.close()
})

describe('orders:claim and orders:note on a live profile without a hub', () => {
  it('claims, notes, hands over and releases, each told to the windows and in the audit log', async () => {
    const s = h.services.session()
    await s.monitor.syncNow()
    const { rows } = await h.call('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })
    const ref = { type: rows[0]!.type, orderId: rows[0]!.orderId }
    const me = userInfo().username
    const seq = h.lastSeq()

    const { claim } = await h.call('orders:claim', { ...ref, action: 'claim' })
    expect(claim?.operator).toBe(me)
    await h.waitFor('order:handling', (p) => p.orderId === ref.orderId && p.claim?.operator === me, seq)
    const note = await h.call('orders:note', { ...ref, text: 'Called the customer back' })
    expect(note).toMatchObject({ author: me, text: 'Called the customer back' })
    await h.waitFor('order:handling', (p) => p.note?.id === note.id, seq)

    const got = await h.call('orders:get', ref)
    expect(got).toMatchObject({ claim: { operator: me }, notes: [note], row: { handledBy: me } })
    const listed = await h.call('orders:query', { filter: { type: ref.type, search: me }, sort: 'updatedAt:desc', offset: 0, limit: 50 })
    expect(listed.rows.find((r) => r.orderId === ref.orderId)?.handledBy).toBe(me)

    expect((await h.call('orders:claim', { ...ref, action: 'hand', to: 'Priya' })).claim?.operator).toBe('Priya')
    const taken = await h.envelope('orders:claim', { ...ref, action: 'claim' })
    expect(taken.ok ? null : taken.error.message).toMatch(/Priya is handling this order/)
    expect((await h.call('orders:claim', { ...ref, action: 'release' })).claim).toBeNull()
    const { rows: audit } = await h.call('audit:list', { limit: 20 })
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['order.claim', 'order.note', 'order.hand', 'order.release']))
    expect(h.contractViolations).toEqual([])
  })
})

// A live profile, set up through the handlers as an operator does, pointed at a sandbox
// that reads the spec differently from the client's old habits: parameter types held to
// the spec (409 "wrong parameter type" otherwise), `since` exclusive, ties in updatedAt in
// a hidden row order, and orders changing while the app pages. Every order syncs, and after the service goes quiet the database
// equals the ground truth.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { startServicesHarness, type ServicesHarness } from '../services/harness'

const SECRET = `strict-${randomBytes(12).toString('hex')}`

let h: ServicesHarness
let sb: Sandbox

beforeAll(async () => {
  sb = await startSandbox({
    seed: 17,
    orders: 1200,
    autoGenerate: false,
    apiKey: 'strict-key',
    apiSecret: SECRET,
    readings: { paramTypes: 'strict', since: 'exclusive', tieOrder: 'hidden', churnPerHistoryRequest: 3 }
  })
  h = await startServicesHarness()
})
afterAll(async () => {
  await h?.close()
  await sb?.close()
})

async function syncedQuietly(): Promise<void> {
  await h.call('sync:now', {})
  for (let i = 0; i < 600; i++) {
    const { states } = await h.call('sync:state', {})
    if (states.length > 0 && states.every((s) => !s.running && s.lastSuccessAt !== null && s.lastError === null)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`sync did not settle: ${JSON.stringify((await h.call('sync:state', {})).states)}`)
}

it('syncs every order under strict types, exclusive since, hidden tie order and churn, and equals the truth', async () => {
  const profile = await h.call('profiles:create', { name: 'Strict live', baseUrl: sb.url, apiKey: sb.apiKey })
  await h.call('secrets:set', { profileId: profile.id, secret: SECRET })
  await h.call('profiles:switch', { id: profile.id })
  await syncedQuietly()
  // Churn while paging moved orders under the first sync; the service now goes quiet.
  sb.control.setReadings({ churnPerHistoryRequest: 0 })
  await syncedQuietly()
  for (const type of [1, 2] as const) {
    const truth = sb.control.groundTruth({ type, fiatType: 1 })
    const r = await h.call('orders:query', { filter: { type, fiatType: 1 }, sort: 'orderId:asc', offset: 0, limit: 1000 })
    expect(r.total).toBe(truth.length)
    const all = [...r.rows]
    for (let offset = 1000; offset < r.total; offset += 1000)
      all.push(...(await h.call('orders:query', { filter: { type, fiatType: 1 }, sort: 'orderId:asc', offset, limit: 1000 })).rows)
    expect(all.map((o) => [o.orderId, o.status])).toEqual(
      truth.map((o) => [o.orderId, o.status]).sort((a, b) => (a[0] as number) - (b[0] as number))
    )
  }
  // The diagnostics say what the service took: the spec's types, no refusal left standing.
  const d = await h.call('diagnostics:get', {})
  const history = d.endpoints.find((e) => e.endpoint === 'merchantHistory')!
  expect(history.calls).toBeGreaterThan(2)
  expect(history.encodings.find((e) => e.field === 'fiatType')).toMatchObject({ spec: 'string', encoding: 'string' })
  expect(d.unreadableOrders).toBe(0)
})

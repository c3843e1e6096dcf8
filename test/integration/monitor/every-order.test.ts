// Every order found, over the real services and a real hub, with default settings:
// a sandbox holding onramp orders in INR, TRY, AED and BRL and offramp orders in INR and
// TRY, numbering onramp and offramp apart (the same id in both). After the first sync the
// desktop and a viewer of the hub show every order, per type and per fiat (asserted before
// a second sync); after the second (the readings checked by then) the coverage
// says which fiats hold orders and how many, with nothing left unprobed or unchecked; an
// order in a fiat nobody has seen yet, looked for by its id, is found and synced at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox, StartSandboxOptions } from '../../../src/sandbox'
import type { ChannelInput, ChannelName, ChannelOutput, Coverage, OrderType } from '../../../src/shared/ipc/contract'
import { startServicesHarness, type ServicesHarness } from '../services/harness'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture, type TeamDesktop } from '../hub/support'

const SANDBOX: StartSandboxOptions = {
  orders: 1500,
  seed: 23,
  autoGenerate: false,
  orderIds: 'perType',
  orderFiats: { onramp: [1, 2, 3, 7], offramp: [1, 2] }
}

type Caller = <C extends ChannelName>(channel: C, input: ChannelInput<C>) => Promise<ChannelOutput<C>>

/** What a desktop shows per type and fiat, against the sandbox's ground truth. */
async function expectEveryOrder(call: Caller, sb: Sandbox): Promise<void> {
  for (const type of [1, 2] as const) {
    const truth = sb.control.groundTruth({ type })
    const all = await call('orders:query', { filter: { type }, sort: 'orderId:asc', offset: 0, limit: 1 })
    expect(all.total, `type ${type}`).toBe(truth.length)
    for (const fiat of [...new Set(truth.map((o) => o.fiatType))]) {
      const shown = await call('orders:query', { filter: { type, fiatType: fiat }, sort: 'orderId:asc', offset: 0, limit: 1000 })
      const want = truth.filter((o) => o.fiatType === fiat)
      expect(shown.total, `type ${type} fiat ${fiat}`).toBe(want.length)
      if (want.length <= 1000)
        expect(shown.rows.map((r) => `${r.orderId}:${r.status}`).sort()).toEqual(want.map((o) => `${o.orderId}:${o.status}`).sort())
    }
  }
}

function expectCoverage(c: Coverage, sb: Sandbox): void {
  const active = c.scopes.filter((s) => s.probe === 'active').map((s) => `${s.type}:${s.fiatType}:${s.orders}`)
  const want = ([1, 2] as OrderType[]).flatMap((type) => {
    const truth = sb.control.groundTruth({ type })
    return [...new Set(truth.map((o) => o.fiatType))].map((f) => `${type}:${f}:${truth.filter((o) => o.fiatType === f).length}`)
  })
  expect(active.sort()).toEqual(want.sort())
  expect(c.scopes.filter((s) => s.probe === 'unprobed' || s.probe === 'probing' || s.probe === 'failed')).toEqual([])
  expect(c.readings.find((r) => r.key === 'sinceField')).toMatchObject({ value: 'updatedAt', state: 'checked' })
  expect(c.readings.find((r) => r.key === 'firstPage')).toMatchObject({ value: '1', state: 'checked' })
  expect(c.gaps.filter((g) => g.kind !== 'freshness')).toEqual([])
}

describe('every order, on the desktop, with default settings', () => {
  let h: ServicesHarness
  beforeAll(async () => {
    h = await startServicesHarness({ sandbox: SANDBOX })
    await h.services.session().monitor.syncNow()
  }, 120_000)
  afterAll(async () => {
    await h?.close()
  })

  it('shows every order of both types in every fiat after the first sync, and says so', async () => {
    const sb = h.services.sandbox()!
    expect(sb.control.groundTruth({ type: 1 }).some((o) => sb.control.order(o.orderId, 2))).toBe(true)
    expect((await h.call('settings:get', {})).fiatTypes).toEqual([1])
    await expectEveryOrder(h.call, sb)
    // The readings are checked before the first poll relies on since: the second says so.
    await h.services.session().monitor.syncNow()
    await expectEveryOrder(h.call, sb)
    expectCoverage(await h.call('sync:coverage', {}), sb)
    expect(h.contractViolations).toEqual([])
  })

  it('finds an order in a fiat nobody has seen yet when it is looked for, and syncs that fiat', async () => {
    const sb = h.services.sandbox()!
    const o = sb.control.createOrder({ type: 1, fiatType: 4, coinCode: 'usdt', network: 'bep20', fiatAmount: 5000, hold: true })
    const before = await h.call('sync:coverage', {})
    expect(before.scopes.find((s) => s.type === 1 && s.fiatType === 4)?.probe).toBe('empty')
    const search = { filter: { type: 1 as const, search: String(o.orderId) }, sort: 'orderId:asc' as const, offset: 0, limit: 5 }
    expect((await h.call('orders:query', search)).total).toBe(0)
    await waitUntil(async () => (await h.call('orders:query', search)).total === 1, 20_000, 'the MXN order synced')
    const after = await h.call('sync:coverage', {})
    expect(after.scopes.find((s) => s.type === 1 && s.fiatType === 4)).toMatchObject({ probe: 'active', orders: 1 })
  })
})

describe('every order, through the hub', () => {
  let f: HubFixture
  let desk: TeamDesktop
  beforeAll(async () => {
    f = await startHubFixture({ sandbox: SANDBOX })
    await f.hub.session().monitor.syncNow()
    desk = await startTeamDesktop(f.url, await f.addOperator('vera', 'viewer'), 'Team (vera)')
    await waitUntil(() => desk.services.teamSession()?.connection.connected === true, 10_000, 'viewer connected')
  }, 120_000)
  afterAll(async () => {
    await desk?.close()
    await f?.close()
  })

  it('a viewer sees every order of both types in every fiat, and the hub’s coverage', async () => {
    await expectEveryOrder(desk.call, f.sandbox)
    await f.hub.session().monitor.syncNow()
    await expectEveryOrder(desk.call, f.sandbox)
    expectCoverage(await desk.call('sync:coverage', {}), f.sandbox)
  })
})

// The desktop side of several hubs: a Team profile naming two hubs, each a hub
// process of its own in front of one merchant (the sandbox), on two data directories (the
// second restored from a backup of the first, so the operator's token works on both; a
// shared PostgreSQL store comes later). The desktop's real services use the first; the
// first is killed with SIGKILL; within 10 s the desktop is on the second (team:access says
// so, the windows are told), its calls are answered there, and an order that changes after
// the kill reaches it through the second hub's stream.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { statusInfo } from '../../../src/shared/domain/status'
import type { TeamAccess } from '../../../src/shared/ipc/contract'
import { REPO_ROOT, startHubProcess, type HubProcess } from '../../attack/hub/hub-process'
import { startTeamDesktop, waitUntil, type TeamDesktop } from './support'
import { hubCliArgs } from '../../support/hub-cli'

const dir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-failover-'))
let service: Sandbox | null = null
const hubs: HubProcess[] = []
let desk: TeamDesktop | null = null
afterAll(async () => {
  await desk?.close()
  for (const h of hubs) await h.stop().catch(() => undefined)
  await service?.close()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[]) => execFileSync(process.execPath, hubCliArgs(args), { cwd: REPO_ROOT, stdio: 'pipe' }).toString()

describe('a Team profile with two hubs', () => {
  it('moves to the second hub within 10 s of the first being killed, and says so', async () => {
    service = await startSandbox({ orders: 40, seed: 21, autoGenerate: false })
    const a = await startHubProcess({ service })
    hubs.push(a)
    const token = await a.addOperator('ada', 'admin')
    // The second hub starts from a backup of the first: the same operators (a shared store later).
    cli(['backup', join(dir, 'backup'), '--data-dir', a.dataDir])
    cli(['restore', join(dir, 'backup'), '--data-dir', join(dir, 'b')])
    const b = await startHubProcess({ service, dataDir: join(dir, 'b') })
    hubs.push(b)

    desk = await startTeamDesktop(a.url, token, 'Team', {}, [b.url])
    await desk.waitFor('team:access', (x) => x.team?.connected === true && x.team.hubUrl === a.url)
    expect((await desk.call('team:access', {})).team).toMatchObject({ hubUrl: a.url, operator: 'ada', connected: true })
    const before = await desk.call('orders:query', { filter: { type: 1 }, offset: 0, limit: 1 })
    expect(before.total).toBeGreaterThan(0)

    const killedAt = Date.now()
    process.kill(a.pid, 'SIGKILL')
    const moved = (await desk.waitFor('team:access', (x) => x.team?.hubUrl === b.url && x.team.connected, 15_000)) as TeamAccess
    const movedMs = Date.now() - killedAt
    expect(moved.team).toMatchObject({ hubUrl: b.url, operator: 'ada', role: 'admin', connected: true })
    expect(movedMs).toBeLessThan(10_000)
    // Calls are answered by the second hub.
    expect((await desk.call('team:access', {})).team?.hubUrl).toBe(b.url)
    expect((await desk.call('orders:query', { filter: { type: 1 }, offset: 0, limit: 1 })).total).toBeGreaterThan(0)

    // An order that changes after the kill reaches the desktop through the second hub.
    const order = service.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await desk.call('sync:now', {})
    await desk.waitFor('order:created', (r) => r.orderId === order.orderId, 20_000)
    let last = order
    while (!statusInfo(1, last.status).terminal) last = service.control.advanceOrder(order.orderId)
    await desk.call('sync:now', {})
    await desk.waitFor('order:changed', (p) => p.row.orderId === order.orderId && p.newStatus === last.status, 20_000)
    await waitUntil(async () => (await desk!.call('team:access', {})).team?.connected === true, 5_000, 'still connected')
    console.log(`failover: the desktop was on the second hub ${movedMs} ms after the first was killed`)
  }, 180_000)
})

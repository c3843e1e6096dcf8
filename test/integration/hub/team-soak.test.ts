// The scene: a hub on the sandbox and six desktops (their real services, Team
// profiles of six operators) polling tickers every second for a minute, two fiats
// between them so the team's demand for priceTicker (2 fiats every 6 s = 20 a minute)
// is twice what the service allows (10). The hub is restarted half way while every
// desktop stays connected, and orders move while it is down. Checked for real, at the
// service's side of a proxy: not one 429; every desktop call answered (the prices from
// the hub, or the last ones marked stale while it restarts); every order change seen by
// every desktop; the API secret in no answer, event, log line or desktop file.
//
// This runs in real time (HUB_SOAK_SECONDS, default 60): the ticker service's and the
// monitor's timers are real timers, and the rate windows being proven are the service's
// real minute. It is its own file so that vitest runs it beside the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventPayload, TeamRole } from '../../../src/shared/ipc/contract'
import { filesContaining } from '../services/harness'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture, type TeamDesktop } from './support'

const SECONDS = Number(process.env.HUB_SOAK_SECONDS ?? 60)
const ROLES: TeamRole[] = ['viewer', 'viewer', 'operator', 'operator', 'admin', 'viewer']

let f: HubFixture
let adminToken: string
const desks: TeamDesktop[] = []

beforeAll(async () => {
  f = await startHubFixture({ recordService: true, sandbox: { orders: 200, autoGenerate: false } })
  adminToken = await f.addOperator('root', 'admin')
  await f.call(adminToken, 'settings:update', { tickerPollSeconds: 6, historyPollSeconds: 10, watchPollSeconds: 5 })
  for (const [i, role] of ROLES.entries())
    desks.push(await startTeamDesktop(f.url, await f.addOperator(`desk${i + 1}`, role), `Team ${i + 1}`))
  for (const d of desks) await waitUntil(() => d.services.teamSession()?.connection.connected === true, 15_000, 'desktop connected')
}, 120_000)
afterAll(async () => {
  for (const d of desks) await d.close()
  await f?.close()
})

interface CallRecord {
  desk: number
  at: number
  ok: boolean
  stale: boolean
  error?: string
}

describe('six desktops on one hub', () => {
  it(
    `poll tickers every second for ${SECONDS} s through a hub restart: 0 × 429, every call answered, no order change missed`,
    async () => {
      const held = Array.from({ length: 6 }, () => f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' }))
      await f.call(adminToken, 'sync:now')
      for (const d of desks) for (const o of held) await d.waitFor('order:created', (r) => r.orderId === o.orderId)
      for (const d of desks) await d.call('tickers:visibility', { view: 'main', visible: true })

      const calls: CallRecord[] = []
      const started = Date.now()
      const end = started + SECONDS * 1000
      const moves: Array<{ orderId: number; status: number }> = []
      const loops = desks.map(async (d, i) => {
        for (let n = 0; Date.now() < end; n++) {
          const next = started + (n + 1) * 1000
          const env = await d.envelope('tickers:get', { fiatType: i % 2 === 0 ? 1 : 2 })
          calls.push({
            desk: i,
            at: Date.now(),
            ok: env.ok && env.value.rows.length > 0,
            stale: env.ok && env.value.rows.every((r) => r.stale),
            error: env.ok ? undefined : env.error.message
          })
          await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())))
        }
      })

      // Half way: the hub goes down, orders move at the service, the hub comes back.
      const restart = (async () => {
        await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 2))
        await f.stopHub()
        for (const o of held.slice(0, 3)) moves.push(f.sandbox.control.advanceOrder(o.orderId))
        await new Promise((r) => setTimeout(r, 2000))
        for (const o of held.slice(3)) moves.push(f.sandbox.control.advanceOrder(o.orderId))
        await f.startHub()
        await f.call(adminToken, 'sync:now')
        // And after the restart, a change seen live.
        await new Promise((r) => setTimeout(r, 3000))
        moves.push(f.sandbox.control.advanceOrder(held[0]!.orderId))
        await f.call(adminToken, 'sync:now')
      })()
      await Promise.all([...loops, restart])

      // Every call answered, every one with prices.
      const expected = desks.length * (SECONDS - 2)
      expect(calls.length).toBeGreaterThanOrEqual(expected)
      expect(calls.filter((c) => !c.ok)).toEqual([])
      // The ones made while the hub was down said so: the prices were marked stale.
      expect(calls.some((c) => c.stale)).toBe(true)

      // Not one 429 at the service, which saw the hub alone and far fewer price fetches than the desktops made.
      const answers = f.serviceAnswers
      expect(answers.filter((a) => a.status === 429)).toEqual([])
      const tickerFetches = answers.filter((a) => a.path.endsWith('/priceTicker')).length
      expect(tickerFetches).toBeGreaterThan(0)
      expect(tickerFetches).toBeLessThanOrEqual(10 * Math.ceil((SECONDS + 10) / 60) + 2)
      expect(calls.length).toBeGreaterThan(tickerFetches * 10)

      // Every desktop saw every order change, each once.
      for (const d of desks)
        for (const m of moves) {
          await waitUntil(
            () =>
              d.events.some(
                (e) =>
                  e.event === 'order:changed' &&
                  (e.payload as EventPayload<'order:changed'>).row.orderId === m.orderId &&
                  (e.payload as EventPayload<'order:changed'>).newStatus === m.status
              ),
            15_000,
            `order ${m.orderId} → ${m.status} on a desktop`
          )
          const seen = d.events.filter(
            (e) =>
              e.event === 'order:changed' &&
              (e.payload as EventPayload<'order:changed'>).row.orderId === m.orderId &&
              (e.payload as EventPayload<'order:changed'>).newStatus === m.status
          )
          expect(seen).toHaveLength(1)
        }
    },
    (SECONDS + 90) * 1000
  )

  it('leaves the API secret in no answer, event, log line or desktop file', async () => {
    const secret = f.sandbox.apiSecret
    for (const d of desks) {
      for (const a of d.answers) expect(a).not.toContain(secret)
      for (const e of d.events) expect(JSON.stringify(e.payload)).not.toContain(secret)
      expect(await filesContaining(d.dataDir, secret)).toEqual([])
    }
    expect(f.logs.length).toBeGreaterThan(0)
    for (const l of f.logs) expect(l).not.toContain(secret)
  })
})

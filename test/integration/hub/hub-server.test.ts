// The hub over HTTP against a sandbox: bearer tokens and roles (401, 403 and what each
// role may do), the web harness's envelopes, the guards (Origin, body size, rate),
// revocation taking effect at once (in the hub and from the command line), the audit
// log with names, watches per operator, one request to the service for the whole team,
// and the API secret in no answer, event or log line.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../../src/hub/commands'
import { startWebHarness } from '../../../src/web/server'
import { createServices } from '../../../src/main/services'
import { memorySafeStorage } from '../../support/memory-safe-storage'
import { startHubFixture, waitUntil, type HubFixture } from './support'
import { request } from 'undici'
import { localhostDispatcher } from '../../support/localhost-names'

let f: HubFixture
let viewer: string
let operator: string
let admin: string
const answers: string[] = []

beforeAll(async () => {
  f = await startHubFixture()
  viewer = await f.addOperator('vera', 'viewer')
  operator = await f.addOperator('otto', 'operator')
  admin = await f.addOperator('ada', 'admin')
})
afterAll(async () => {
  await f?.close()
})

const rpc = async (token: string | null, channel: string, input: unknown = {}, headers?: Record<string, string>) => {
  const a = await f.rpc(token, channel, input, headers)
  answers.push(a.text)
  return a
}

describe('tokens and roles', () => {
  it('answers 401 without a token, with an unknown one and with a malformed header', async () => {
    for (const [token, headers] of [
      [null, {}],
      ['rdh_' + 'A'.repeat(43), {}],
      [viewer.slice(0, -2), {}],
      [null, { authorization: `Basic ${viewer}` }]
    ] as const) {
      const a = await rpc(token, 'config:get', {}, headers)
      expect(a.status).toBe(401)
      expect(a.headers['www-authenticate']).toBe('Bearer realm="rampdesk-hub"')
      expect(a.json).toMatchObject({ ok: false, error: { kind: 'unauthorized' } })
    }
  })

  it('refuses setWebhookUrl to a viewer (403) and an operator, and lets an admin set it', async () => {
    const url = `${f.url}/webhook`
    for (const token of [viewer, operator]) {
      const a = await rpc(token, 'webhooks:setUrl', { url })
      expect(a.status).toBe(403)
      expect(a.json?.error?.message).toMatch(/webhooks:setUrl needs the admin role/)
    }
    expect(f.sandbox.control.webhookUrl()).toBeUndefined()
    const ok = await rpc(admin, 'webhooks:setUrl', { url })
    expect(ok.status).toBe(200)
    expect(ok.json?.ok).toBe(true)
    expect(f.sandbox.control.webhookUrl()).toBe(url)
  })

  it('lets a viewer read and an operator quote, but not a viewer', async () => {
    const cfg = await f.call<{ coins: unknown[] }>(viewer, 'config:get')
    expect(cfg.coins.length).toBeGreaterThan(0)
    const q = { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '5000' }
    expect((await rpc(viewer, 'quotes:get', q)).status).toBe(403)
    const quote = await f.call<{ rate: string }>(operator, 'quotes:get', q)
    expect(Number(quote.rate)).toBeGreaterThan(0)
  })

  it('lets an operator check an order with the service now, but not a viewer (it spends the team budget)', async () => {
    const truth = f.sandbox.control.groundTruth({ type: 1, fiatType: 1 })[0]!
    expect((await rpc(viewer, 'orders:check', { type: 1, orderId: truth.orderId })).status).toBe(403)
    const r = await f.call<{ kind: string; status: number }>(operator, 'orders:check', { type: 1, orderId: truth.orderId })
    expect(r).toMatchObject({ kind: 'status', status: truth.status })
  })

  it('tells each desktop its role and channels', async () => {
    const access = await f.call<{ team: { operator: string; role: string }; channels: string[] }>(operator, 'team:access')
    expect(access.team).toMatchObject({ operator: 'otto', role: 'operator', hubUrl: f.url })
    expect(access.channels).toContain('quotes:get')
    expect(access.channels).not.toContain('webhooks:setUrl')
    expect(access.channels).not.toContain('profiles:list')
  })

  it('never serves the desktop’s own channels, whatever the role', async () => {
    for (const c of ['profiles:list', 'secrets:test', 'app:openExternal', 'orders:export']) {
      const a = await rpc(admin, c, c === 'secrets:test' ? { profileId: 'sandbox' } : {})
      expect(a.status).toBe(403)
      expect(a.json?.error?.message).toMatch(/answered by each desktop/)
    }
  })
})

describe('the contract over HTTP', () => {
  it('answers the same envelopes as the web harness', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-web-'))
    const services = await createServices({
      dataDir,
      exportDir: dataDir,
      version: '0',
      shellKind: 'web',
      safeStorage: memorySafeStorage(),
      sandbox: { orders: 10, autoGenerate: false }
    })
    await services.start()
    const web = await startWebHarness({ handlers: services.handlers, subscribe: services.subscribe, staticDir: dataDir })
    try {
      // The harness is reached by its per-launch <name>.localhost, resolved as a browser does.
      const login = await request(web.openUrl, { dispatcher: localhostDispatcher })
      await login.body.dump()
      const cookie = String(login.headers['set-cookie']).split(';')[0]!
      const viaWeb = async (channel: string, body: string) => {
        const r = await request(`${web.url}rpc/${channel}`, {
          dispatcher: localhostDispatcher,
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie, origin: web.url.replace(/\/$/, '') },
          body
        })
        return { status: r.statusCode, text: await r.body.text() }
      }
      for (const [channel, body] of [
        ['tickers:get', '{"fiatType":"INR"}'],
        ['orders:query', '{"filter":{"type":3},"offset":0,"limit":5}'],
        ['orders:get', '{"type":1}'],
        ['nope:nothing', '{}'],
        ['config:get', '{"x'],
        ['orders:get', '{"type":1,"orderId":999999999}']
      ] as const) {
        const hub = await rpc(admin, channel, body)
        const w = await viaWeb(channel, body)
        expect({ channel, status: hub.status, text: hub.text }).toEqual({ channel, status: w.status, text: w.text })
      }
    } finally {
      await web.close()
      await services.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('refuses any request with an Origin header, a body over the cap and one that is not JSON', async () => {
    const fromPage = await rpc(admin, 'config:get', {}, { origin: f.url })
    expect(fromPage.status).toBe(403)
    expect(fromPage.json?.error?.message).toMatch(/not web pages/)
    const big = await rpc(operator, 'webhooks:verify', JSON.stringify({ payload: 'a'.repeat(3 * 1024 * 1024), signature: 'b' }))
    expect(big.status).toBe(413)
    expect((await rpc(admin, 'config:get', '{"x'))?.status).toBe(400)
    expect((await rpc(admin, 'config:get', '{}', { 'content-type': 'text/plain' })).status).toBe(415)
  })

  it('caps each operator’s request rate, not the others’', async () => {
    const capped = await startHubFixture({ server: { rateLimitPerMinute: 60, rateBurst: 3 } })
    try {
      const a = await capped.addOperator('a', 'viewer')
      const b = await capped.addOperator('b', 'viewer')
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push((await capped.rpc(a, 'sync:state')).status)
      expect(statuses).toEqual([200, 200, 200, 429, 429])
      const refused = await capped.rpc(a, 'sync:state')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect((await capped.rpc(b, 'sync:state')).status).toBe(200)
    } finally {
      await capped.close()
    }
  })
})

describe('revocation', () => {
  it('refuses a token revoked by an admin at once and closes its streams', async () => {
    const token = await f.addOperator('temp', 'operator')
    const s = f.stream(token)
    await waitUntil(() => s.connection.connected, 5000, 'stream open')
    expect((await rpc(token, 'sync:state')).status).toBe(200)
    await f.call(admin, 'team:revokeOperator', { name: 'temp' })
    expect((await rpc(token, 'sync:state')).status).toBe(401)
    await waitUntil(() => !s.connection.connected, 2000, 'stream closed')
    await waitUntil(() => s.states.some((x) => /refused this operator token/.test(x.error ?? '')), 3000, 'refusal seen')
    await s.close()
  })

  it('refuses a token revoked from the command line at once and closes its streams within a second', async () => {
    const token = await f.addOperator('leaver', 'viewer')
    const s = f.stream(token)
    await waitUntil(() => s.connection.connected, 5000, 'stream open')
    const out: string[] = []
    const code = await runCli(['operator', 'revoke', 'leaver', '--data-dir', f.dataDir], {
      out: (l) => out.push(l),
      err: (l) => out.push(l)
    })
    expect(code).toBe(0)
    expect((await rpc(token, 'config:get')).status).toBe(401)
    await waitUntil(() => !s.connection.connected, 2500, 'stream closed')
    await s.close()
  })

  it('keeps the last admin', async () => {
    const a = await rpc(admin, 'team:revokeOperator', { name: 'ada' })
    expect(a.json?.error?.message).toMatch(/last admin/)
  })
})

describe('one service client for the team', () => {
  it('fans one price fetch out to every operator', async () => {
    const before = f.hub.session().client.stats().priceTicker
    const all = await Promise.all([viewer, operator, admin].map((t) => f.call<{ rows: unknown[] }>(t, 'tickers:get', { fiatType: 2 })))
    for (const r of all) expect(r.rows.length).toBeGreaterThan(0)
    for (let i = 0; i < 5; i++) await f.call(viewer, 'tickers:get', { fiatType: 2 })
    expect(f.hub.session().client.stats().priceTicker - before).toBe(1)
  })

  it('refreshes the configuration once however many operators ask', async () => {
    const stats = () => f.hub.session().client.stats().allConfigMapping
    const before = stats()
    await Promise.all([operator, admin, operator].map((t) => f.call(t, 'config:refresh')))
    await f.call(operator, 'config:refresh')
    expect(stats() - before).toBe(1)
  })

  it('keeps watches per operator and marks rows and events for each', async () => {
    const truth = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await f.call(admin, 'sync:now')
    await waitUntil(
      async () => (await f.call<unknown>(viewer, 'orders:get', { type: 1, orderId: truth.orderId })) !== null,
      10_000,
      'order synced'
    )
    const mine = f.stream(operator)
    const theirs = f.stream(admin)
    await waitUntil(() => mine.connection.connected && theirs.connection.connected)
    await f.call(operator, 'orders:watch', { type: 1, orderId: truth.orderId, watch: true })
    const get = (t: string) => f.call<{ row: { watched: boolean } }>(t, 'orders:get', { type: 1, orderId: truth.orderId })
    expect((await get(operator)).row.watched).toBe(true)
    expect((await get(admin)).row.watched).toBe(false)
    expect((await f.call<{ rows: Array<{ orderId: number; watched: boolean }> }>(operator, 'orders:watched')).rows[0]).toMatchObject({
      orderId: truth.orderId,
      watched: true
    })
    f.sandbox.control.advanceOrder(truth.orderId)
    await f.call(admin, 'sync:now')
    const match = (p: { row: { orderId: number } }) => p.row.orderId === truth.orderId
    const a = (await mine.waitFor('order:changed', match as never)) as { row: { watched: boolean } }
    const b = (await theirs.waitFor('order:changed', match as never)) as { row: { watched: boolean } }
    expect(a.row.watched).toBe(true)
    expect(b.row.watched).toBe(false)
    await f.call(operator, 'orders:watch', { type: 1, orderId: truth.orderId, watch: false })
    expect(f.hub.session().store.watches.has(1, truth.orderId)).toBe(false)
    await mine.close()
    await theirs.close()
  })
})

describe('the audit log', () => {
  it('names the operator of every action and refusal, for admins only', async () => {
    expect((await rpc(viewer, 'audit:list', { limit: 50 })).status).toBe(403)
    const { rows } = await f.call<{ rows: Array<{ operator: string; action: string; detail: Record<string, unknown> }> }>(
      admin,
      'audit:list',
      {
        limit: 500
      }
    )
    const seen = rows.map((r) => `${r.operator} ${r.action}`)
    expect(seen).toContain('ada webhooks:setUrl')
    expect(seen).toContain('vera refused')
    expect(seen).toContain('otto quotes:get')
    expect(seen).toContain('ada team:revokeOperator')
    expect(seen).toContain('(command line) team:revokeOperator')
    expect(seen).toContain('otto orders:watch')
    const refusal = rows.find((r) => r.operator === 'vera' && r.action === 'refused')!
    expect(refusal.detail).toMatchObject({ role: 'viewer' })
  })
})

describe('the API secret', () => {
  it('is in no answer and no log line', () => {
    expect(answers.length).toBeGreaterThan(20)
    for (const a of answers) expect(a).not.toContain(f.sandbox.apiSecret)
    expect(f.logs.length).toBeGreaterThan(3)
    for (const l of f.logs) expect(l).not.toContain(f.sandbox.apiSecret)
  })
})

// The support log of a running app: the services on the embedded sandbox write one line
// per API call, per sync run, per webhook and per failed call into <dataDir>/logs, with
// no wallet address, signature or payload in them; the shell without a file manager
// answers the folder instead of opening it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness({ sandbox: { orders: 120, autoGenerate: false, seed: 5 } })
  await h.waitFor('sync:state', (s) => !s.running && s.lastSuccessAt !== null)
}, 60_000)
afterAll(async () => {
  await h?.close()
})

type Line = Record<string, unknown> & { level: string; msg: string }

function logLines(): Line[] {
  const dir = join(h.dataDir, 'logs')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as Line)
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`the log never showed ${what}`)
}

describe('the support log', () => {
  it('has the start, the active profile, every API call and the first sync runs', () => {
    const lines = logLines()
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'started', version: '0.0.0-test', shell: 'web' })
    expect(lines.some((l) => l.msg === 'profile active' && l.profile === 'sandbox')).toBe(true)
    const calls = lines.filter((l) => l.msg === 'api call')
    expect(calls.length).toBeGreaterThan(0)
    for (const c of calls) {
      expect(c).toMatchObject({ profile: 'sandbox', endpoint: expect.any(String), attempt: expect.any(Number), retry: expect.any(Boolean) })
      expect(c.latencyMs).toBeGreaterThanOrEqual(0)
      expect(c.budgetWaitMs).toBeGreaterThanOrEqual(0)
    }
    const runs = lines.filter((l) => l.msg === 'sync run')
    expect(runs.some((r) => r.outcome === 'ok' && typeof r.pages === 'number' && typeof r.durationMs === 'number')).toBe(true)
  })

  it('logs each failed attempt with its status and error, the retries as retries, and the channel that failed', async () => {
    h.services.sandbox()!.control.setFault('quotes', { errorRate: 1, errorStatus: 503, remaining: 10 })
    const r = await h.envelope('quotes:get', { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '1000' })
    h.services.sandbox()!.control.clearFaults()
    expect(r.ok).toBe(false)
    await until(() => logLines().some((l) => l.msg === 'channel failed' && l.channel === 'quotes:get'), 'the failed channel')
    const attempts = logLines().filter((l) => l.msg === 'api call' && l.endpoint === 'quotes')
    expect(attempts.length).toBeGreaterThan(1)
    for (const a of attempts) expect(a).toMatchObject({ level: 'warn', status: 503, error: expect.any(String) })
    expect(attempts.map((a) => a.retry)).toEqual(attempts.map((_, i) => i > 0))
    expect(logLines().find((l) => l.msg === 'channel failed')).toMatchObject({ level: 'warn', kind: 'api', status: 503 })
  })

  it('logs each webhook the inbox receives, verified, with its order and never its payload', async () => {
    await h.call('settings:update', { inbox: { enabled: true, host: '127.0.0.1', port: 0 } })
    await h.call('webhooks:sendDummy', { target: 'inbox' })
    await h.waitFor('webhook:delivery')
    await until(() => logLines().some((l) => l.msg === 'webhook'), 'the webhook')
    const hook = logLines().find((l) => l.msg === 'webhook')!
    expect(hook).toMatchObject({ level: 'info', verified: true, profile: 'sandbox' })
    expect(hook).not.toHaveProperty('payload')
    expect(hook).not.toHaveProperty('body')
    expect(logLines().some((l) => l.msg === 'webhook inbox listening')).toBe(true)
  })

  it('holds no wallet address, signature or signed payload of the service', async () => {
    const text = readdirSync(join(h.dataDir, 'logs'))
      .map((f) => readFileSync(join(h.dataDir, 'logs', f), 'utf8'))
      .join('\n')
    const truth = h.services.sandbox()!.control.groundTruth()
    const addresses = truth.map((o) => String((o.record as { walletAddress?: unknown }).walletAddress ?? '')).filter((a) => a.length > 8)
    expect(addresses.length).toBeGreaterThan(50)
    for (const a of addresses) expect(text).not.toContain(a)
    const deliveries = await h.call('webhooks:deliveries', { offset: 0, limit: 50 })
    expect(deliveries.rows.length).toBeGreaterThan(0)
    for (const d of deliveries.rows) {
      expect(text).not.toContain(d.payload.slice(0, 40))
      expect(text).not.toContain(d.body.slice(0, 40))
    }
  })

  it('app:openLogs answers the folder where there is no file manager (the browser harness)', async () => {
    expect(await h.call('app:openLogs', {})).toEqual({ dir: join(h.dataDir, 'logs'), opened: false })
  })
})

// The config cache through the services on a real sandbox: the first start fetches each
// source once; a start with a fresh cache (the same data dir reopened within the TTL)
// spends no request budget; a stale entry is served at once and revalidated in the
// background ('config:updated'); with the service failing or unreachable the last known
// config is served, marked stale, with the error kept.
import { createServer } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { DEFAULT_TTL_MS } from '../../../src/main/config/config-cache'
import { startServicesHarness, type ServicesHarness } from './harness'

const CONFIG_ENDPOINTS = ['publicAllConfig', 'allConfigMapping', 'allGasFee', 'limits', 'allChainMapping'] as const
const clock = { offsetMs: 0 }
const now = (): number => Date.now() + clock.offsetMs

let dataDir: string
let liveSandbox: Sandbox
const open: ServicesHarness[] = []

async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok))
  const port = (srv.address() as { port: number }).port
  await new Promise<void>((ok) => srv.close(() => ok()))
  return port
}

async function start(): Promise<ServicesHarness> {
  const h = await startServicesHarness({ dataDir, keepDataDir: true, now })
  open.push(h)
  return h
}

async function stop(h: ServicesHarness): Promise<void> {
  await h.close()
  open.splice(open.indexOf(h), 1)
}

const configStats = (h: ServicesHarness) => {
  const s = h.services.session().client.stats()
  return Object.fromEntries(CONFIG_ENDPOINTS.map((n) => [n, s[n]]))
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-config-'))
  liveSandbox = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    seed: 5,
    orders: 20,
    autoGenerate: false,
    apiKey: 'live-config-key',
    apiSecret: 'live-config-secret-0123456789'
  })
})
afterAll(async () => {
  for (const h of [...open]) await h.close()
  await liveSandbox?.close()
  await rm(dataDir, { recursive: true, force: true })
})

describe('config cache through the services', () => {
  it('first start fetches each config source once', async () => {
    const h = await start()
    const snap = await h.call('config:get', {})
    await h.services.session().config.revalidate()
    expect(configStats(h)).toEqual({ publicAllConfig: 1, allConfigMapping: 1, allGasFee: 1, limits: 1, allChainMapping: 0 })
    expect(snap.stale).toBe(false)
    expect(snap.coins.length).toBeGreaterThan(0)
    expect(snap.chains.length).toBeGreaterThan(0)
    expect(Object.keys(snap.limits.onramp).length).toBeGreaterThan(0)
    expect(Object.keys(snap.limits.offramp)).toContain('1')
    // A coin's networks all have chain details.
    const chainIds = new Set(snap.chains.map((c) => c.id))
    for (const c of snap.coins) for (const n of c.networks) expect(chainIds.has(n), `chain ${n} of ${c.code}`).toBe(true)
    // The authenticated gas table's depositEnable made it into the merge.
    const withDeposit = Object.values(snap.gasFees)
      .flatMap((byChain) => Object.values(byChain))
      .filter((e) => e.depositEnable !== undefined)
    expect(withDeposit.length).toBeGreaterThan(0)
    await stop(h)
  })

  it('a start with a fresh cache (same data dir, within the TTL) spends no request budget on config', async () => {
    clock.offsetMs += 60_000
    const h = await start()
    const snap = await h.call('config:get', {})
    await h.services.session().config.revalidate()
    expect(configStats(h)).toEqual({ publicAllConfig: 0, allConfigMapping: 0, allGasFee: 0, limits: 0, allChainMapping: 0 })
    const budget = await h.call('budget:get', {})
    for (const e of budget.entries.filter((x) => (CONFIG_ENDPOINTS as readonly string[]).includes(x.endpoint)))
      expect(e.usedInWindow, e.endpoint).toBe(0)
    expect(snap.stale).toBe(false)
    expect(snap.coins.length).toBeGreaterThan(0)
    await stop(h)
  })

  it('a stale entry is served at once and revalidated in the background', async () => {
    clock.offsetMs += DEFAULT_TTL_MS.allGasFee + 1_000
    const h = await start()
    const before = h.lastSeq()
    const snap = await h.call('config:get', {})
    // Served from the cache before the refresh landed.
    expect(snap.stale).toBe(true)
    expect(snap.coins.length).toBeGreaterThan(0)
    expect(h.events.filter((e) => e.seq > before && e.event === 'config:updated')).toEqual([])
    const updated = await h.waitFor('config:updated', (s) => !s.stale, before)
    expect(updated.fetchedAt).not.toBeNull()
    expect(updated.fetchedAt!).toBeGreaterThan(snap.fetchedAt!)
    // Only the sources whose TTL ran out were asked for.
    expect(configStats(h)).toEqual({ publicAllConfig: 1, allConfigMapping: 0, allGasFee: 1, limits: 0, allChainMapping: 0 })
    expect((await h.call('config:get', {})).stale).toBe(false)
    await stop(h)
  })

  it('with the service failing, the last known config is served, marked stale, and the error is kept', async () => {
    clock.offsetMs += DEFAULT_TTL_MS.limits + 1_000
    const h = await start()
    const known = h.services.session().config.snapshot()
    h.services.sandbox()!.control.setFault('*', { errorRate: 1, errorStatus: 503 })
    try {
      const served = await h.call('config:get', {})
      await h.services.session().config.revalidate()
      const after = await h.call('config:get', {})
      expect(after.stale).toBe(true)
      expect(after.coins).toEqual(known.coins)
      expect(after.gasFees).toEqual(known.gasFees)
      expect(served.coins).toEqual(known.coins)
      const errors = h.services.session().config.lastErrors()
      expect(errors.length).toBeGreaterThan(0)
      expect(errors.every((e) => e.httpStatus === 503 || e.code === 503)).toBe(true)
    } finally {
      h.services.sandbox()!.control.clearFaults()
    }
    const refreshed = await h.call('config:refresh', {})
    expect(refreshed.stale).toBe(false)
    expect(h.services.session().config.lastErrors()).toEqual([])
    await stop(h)
  })

  it('a live profile pointed at a closed port serves its last known config, stale, with the network error', async () => {
    const h = await start()
    const p = await h.call('profiles:create', { name: 'Live config', baseUrl: liveSandbox.url, apiKey: liveSandbox.apiKey })
    await h.call('secrets:set', { profileId: p.id, secret: liveSandbox.apiSecret })
    await h.call('profiles:switch', { id: p.id })
    const good = await h.call('config:get', {})
    expect(good.stale).toBe(false)
    expect(good.coins.length).toBeGreaterThan(0)

    clock.offsetMs += 60 * 60_000 + 1_000
    await h.call('profiles:update', { id: p.id, patch: { baseUrl: `http://127.0.0.1:${await closedPort()}` } })
    // Another port is another origin: the secret was deleted with the move. Entered again, and reconnected,
    // so the session's first fetches are signed and fail on the network alone.
    expect((await h.call('secrets:status', { profileId: p.id })).has).toBe(false)
    await h.call('secrets:set', { profileId: p.id, secret: liveSandbox.apiSecret })
    await h.call('profiles:switch', { id: p.id })
    const served = await h.call('config:get', {})
    await h.services.session().config.revalidate()
    expect(served.coins).toEqual(good.coins)
    expect(served.chains).toEqual(good.chains)
    expect(served.stale).toBe(true)
    const errors = h.services.session().config.lastErrors()
    expect(errors.length).toBeGreaterThan(0)
    expect(errors.every((e) => e.kind === 'network')).toBe(true)
    const bank = await h.call('bank:get', {})
    expect(bank.stale).toBe(true)
    expect(bank.error?.kind).toBe('network')
    expect(h.contractViolations).toEqual([])
    await stop(h)
  })
})

// Profiles through the handlers: a live profile against a second standalone sandbox (its
// own key and secret) reached through a counting proxy; the secret stored write-only in
// whatever backend the SecretStore picks and never seen again in any output, event or
// file under the data dir; connection tests in plain words; a clean switch (no event of
// the old profile, only the new profile's orders, the old session's requests aborted and
// none after); delete removes the secret and the database.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { SecretStore } from '../../../src/main/secrets/secret-store'
import type { Profile } from '../../../src/shared/ipc/contract'
import { filesContaining, startCountingProxy, startServicesHarness, type CountingProxy, type ServicesHarness } from './harness'

const LIVE_SECRET = `live-${randomBytes(16).toString('hex')}`
const WRONG_SECRET = `wrong-${randomBytes(16).toString('hex')}`
const MARK = 'LIVEB-'

let h: ServicesHarness
let live: Sandbox
let proxy: CountingProxy
let profile: Profile

beforeAll(async () => {
  live = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    seed: 3,
    orders: 60,
    autoGenerate: false,
    apiKey: 'live-b-key',
    apiSecret: LIVE_SECRET
  })
  proxy = await startCountingProxy(live.url)
  h = await startServicesHarness()
})
afterAll(async () => {
  await h?.close()
  await proxy?.close()
  await live?.close()
})

const idsOf = (rows: { orderId: number; merchantRecognitionId: string | null }[]) =>
  rows.map((r) => `${r.orderId}:${r.merchantRecognitionId}`).sort()

async function allOrders(type: 1 | 2) {
  const r = await h.call('orders:query', { filter: { type }, sort: 'orderId:asc', offset: 0, limit: 1000 })
  expect(r.rows.length).toBe(r.total)
  return r.rows
}

/** Every order of a type, in every fiat: the app finds and syncs each fiat the service holds orders in. */
function truthIds(sb: Sandbox, type: 1 | 2) {
  return sb.control
    .groundTruth({ type })
    .map((o) => `${o.orderId}:${String(o.record.merchantRecognitionId)}`)
    .sort()
}

describe('live profile through the handlers', () => {
  it('creates a live profile (audit-logged)', async () => {
    profile = await h.call('profiles:create', { name: 'Live B', baseUrl: proxy.url, apiKey: live.apiKey })
    expect(profile).toMatchObject({ kind: 'live', name: 'Live B', baseUrl: proxy.url, serviceName: 'service', apiKey: 'live-b-key' })
    const list = await h.call('profiles:list', {})
    expect(list.profiles.map((p) => p.id)).toContain(profile.id)
    expect(list.activeId).toBe('sandbox')
    const audit = await h.call('audit:list', { limit: 20 })
    expect(audit.rows.some((r) => r.action === 'profile.create' && r.detail.id === profile.id)).toBe(true)
    // No secret yet: status says so, a connection test says what to do.
    expect(await h.call('secrets:status', { profileId: profile.id })).toEqual({ has: false, backend: 'none', plaintextWarning: false })
    const t = await h.call('secrets:test', { profileId: profile.id })
    expect(t.ok).toBe(false)
    expect(t.message).toMatch(/^Nothing was sent.*no API secret is stored for profile.*Add the API secret of this profile in Settings/)
    expect(t.error?.kind).toBe('missing_secret')
  })

  it('stores the secret write-only in the backend the secret store chooses', async () => {
    const set = await h.call('secrets:set', { profileId: profile.id, secret: LIVE_SECRET })
    expect(['keychain', 'safeStorage']).toContain(set.backend)
    console.log(`secret backend chosen: ${set.backend}`)
    const status = await h.call('secrets:status', { profileId: profile.id })
    expect(status).toEqual({ has: true, backend: set.backend, plaintextWarning: false })
  })

  it('tests the connection: ok with the right secret, a plain-words auth failure with a wrong one', async () => {
    const ok = await h.call('secrets:test', { profileId: profile.id })
    expect(ok.ok).toBe(true)
    expect(ok.error).toBeNull()
    expect(ok.latencyMs).not.toBeNull()
    expect(ok.message).toContain('the key and secret were accepted')

    await h.call('secrets:set', { profileId: profile.id, secret: WRONG_SECRET })
    const bad = await h.call('secrets:test', { profileId: profile.id })
    expect(bad.ok).toBe(false)
    expect(bad.error?.kind).toBe('auth')
    expect(bad.error?.httpStatus).toBe(401)
    expect(bad.message).toMatch(/^The service refused the credentials/)
    expect(bad.message).toContain('Check the API key and secret of this profile')

    await h.call('secrets:set', { profileId: profile.id, secret: LIVE_SECRET })
    expect((await h.call('secrets:test', { profileId: profile.id })).ok).toBe(true)
  })

  it('switching to the live profile shows its orders only', async () => {
    const sandboxOrders = await allOrders(1)
    expect(sandboxOrders.length).toBeGreaterThan(0)
    const before = h.lastSeq()
    const switched = await h.call('profiles:switch', { id: profile.id })
    expect(switched.id).toBe(profile.id)
    const changed = await h.waitFor('profile:changed', (p) => p.id === profile.id, before)
    expect(changed.kind).toBe('live')
    expect((await h.call('app:info', {})).profile.id).toBe(profile.id)

    await h.services.session().monitor.syncNow()
    expect(idsOf(await allOrders(1))).toEqual(truthIds(live, 1))
    expect(idsOf(await allOrders(2))).toEqual(truthIds(live, 2))
    expect(proxy.requests.some((r) => r.path.endsWith('merchantHistory'))).toBe(true)
  })

  it('switching away aborts the old session’s requests in flight; nothing of the old profile follows', async () => {
    // A sync of the live profile that would bring new, marked orders is held at the proxy.
    for (let i = 0; i < 3; i++) live.control.createOrder({ type: 1, fiatType: 1, merchantRecognitionId: `${MARK}${i}` })
    proxy.holdPaths.add('merchantHistory')
    await h.call('tickers:visibility', { view: 'main', visible: true })
    await h.call('sync:now', {})
    await proxy.whenHolding(1)

    const before = h.lastSeq()
    await h.call('profiles:switch', { id: 'sandbox' })
    const atSwitch = proxy.requests.length
    // Every request the old session had in flight was given up by the client.
    await proxy.whenHeldSettled()
    expect(proxy.requests.filter((r) => r.held).every((r) => r.abortedByClient && !r.answered)).toBe(true)
    proxy.release()

    // The new session does a full round of work; none of it reaches the old service.
    await h.services.session().monitor.syncNow()
    await h.call('config:get', {})
    await h.call('tickers:get', { fiatType: 1 })
    await h.call('tickers:visibility', { view: 'main', visible: false })
    expect(proxy.requests.length).toBe(atSwitch)

    const after = h.events.filter((e) => e.seq > before)
    expect(after.some((e) => e.event === 'profile:changed' && (e.payload as Profile).id === 'sandbox')).toBe(true)
    expect(after.filter((e) => e.event === 'profile:changed').every((e) => (e.payload as Profile).id === 'sandbox')).toBe(true)
    expect(h.events.filter((e) => JSON.stringify(e.payload).includes(MARK))).toEqual([])

    const embedded = h.services.sandbox()!
    expect(idsOf(await allOrders(1))).toEqual(truthIds(embedded, 1))
    expect((await allOrders(1)).some((r) => r.merchantRecognitionId?.startsWith(MARK))).toBe(false)
  })

  it('the secret never appears in an output, an event or a file under the data dir', async () => {
    for (const secret of [LIVE_SECRET, WRONG_SECRET]) {
      expect(h.outputs.filter((o) => o.includes(secret))).toEqual([])
      expect(h.events.filter((e) => JSON.stringify(e.payload).includes(secret))).toEqual([])
      expect(await filesContaining(h.dataDir, secret)).toEqual([])
    }
    expect(h.contractViolations).toEqual([])
  })

  it('deleting a live profile removes its secret and its database directory, also when it is active', async () => {
    const dbDir = join(h.dataDir, 'profiles', profile.id)
    expect(existsSync(dbDir)).toBe(true)
    await h.call('profiles:delete', { id: profile.id })
    const list = await h.call('profiles:list', {})
    expect(list.profiles.map((p) => p.id)).not.toContain(profile.id)
    expect(existsSync(dbDir)).toBe(false)
    const store = new SecretStore({ userDataDir: h.dataDir, safeStorage: null })
    expect(await store.get(profile.id)).toBeNull()
    expect(existsSync(join(h.dataDir, 'secrets', `${profile.id}.bin`))).toBe(false)

    // The active one: the services fall back to the sandbox profile first.
    const other = await h.call('profiles:create', { name: 'Live C', baseUrl: proxy.url, apiKey: live.apiKey })
    await h.call('secrets:set', { profileId: other.id, secret: LIVE_SECRET })
    await h.call('profiles:switch', { id: other.id })
    await h.call('profiles:delete', { id: other.id })
    expect((await h.call('profiles:list', {})).activeId).toBe('sandbox')
    expect((await h.call('app:info', {})).profile.id).toBe('sandbox')
    expect(existsSync(join(h.dataDir, 'profiles', other.id))).toBe(false)
    expect(await store.get(other.id)).toBeNull()

    const refused = await h.envelope('profiles:delete', { id: 'sandbox' })
    expect(refused.ok).toBe(false)
  })
})

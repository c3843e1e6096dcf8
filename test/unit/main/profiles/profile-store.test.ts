import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ProfileError, ProfileStore, PROFILES_FILE } from '../../../../src/main/profiles/profile-store'
import { SecretStore, type SafeStorageLike } from '../../../../src/main/secrets/secret-store'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'

const SECRET = 'api-secret-DO-NOT-LEAK-1234'

const safeStorage: SafeStorageLike = {
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from(Buffer.from(s).map((b) => b ^ 0x33)),
  decryptString: (b) => Buffer.from(b.map((x) => x ^ 0x33)).toString(),
  getSelectedStorageBackend: () => 'gnome_libsecret'
}

let dir: string
let secrets: SecretStore
const openDbs = new Map<string, LocalStore>()
let clock: Date

const open = (extra: Partial<Parameters<typeof ProfileStore.open>[0]> = {}) =>
  ProfileStore.open({
    dataDir: dir,
    secrets,
    now: () => clock,
    closeDatabase: (id) => {
      openDbs.get(id)?.close()
      openDbs.delete(id)
    },
    ...extra
  })

const fileText = () => readFileSync(join(dir, PROFILES_FILE), 'utf8')

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-profiles-'))
  secrets = new SecretStore({ userDataDir: dir, safeStorage, keytar: null })
  clock = new Date('2024-07-01T00:00:00.000Z')
})
afterEach(() => {
  for (const db of openDbs.values()) db.close()
  openDbs.clear()
  rmSync(dir, { recursive: true, force: true })
})

describe('ProfileStore', () => {
  it('creates an active sandbox profile on first run, in a 0600 file', async () => {
    const store = await open()
    expect(store.list()).toEqual([
      {
        id: 'sandbox',
        name: 'Sandbox',
        kind: 'sandbox',
        baseUrl: 'http://127.0.0.1:8787',
        serviceName: 'service',
        apiKey: '',
        createdAt: clock.toISOString(),
        updatedAt: clock.toISOString()
      }
    ])
    expect(store.active().id).toBe('sandbox')
    expect(statSync(join(dir, PROFILES_FILE)).mode & 0o777).toBe(0o600)
    expect(store.warning).toBeNull()
    // Reopening reads the file instead of recreating it.
    clock = new Date('2025-01-01T00:00:00.000Z')
    expect((await open()).active().createdAt).toBe('2024-07-01T00:00:00.000Z')
  })

  it('takes overrides for the default sandbox', async () => {
    const store = await open({ defaultSandbox: { baseUrl: 'http://127.0.0.1:9999/', apiKey: 'sandbox-key' } })
    expect(store.active()).toMatchObject({ baseUrl: 'http://127.0.0.1:9999', apiKey: 'sandbox-key' })
  })

  it('creates a live profile, keeps its secret out of profiles.json, and persists it', async () => {
    const store = await open()
    const p = await store.create({
      name: 'Live INR',
      kind: 'live',
      baseUrl: 'https://api.example.test/',
      apiKey: 'AK-123',
      apiSecret: SECRET
    })
    expect(p.id).toMatch(/^live-inr-[0-9a-f]{6}$/)
    expect(p).toMatchObject({ serviceName: 'service', baseUrl: 'https://api.example.test', apiKey: 'AK-123' })
    expect(fileText()).not.toContain(SECRET)
    expect(await secrets.get(p.id)).toBe(SECRET)
    const again = await open()
    expect(again.get(p.id)).toEqual(p)
    expect(again.active().id).toBe('sandbox')
  })

  it('validates: http(s) base URL without credentials, unique names, service name token, id alphabet', async () => {
    const store = await open()
    const bad = async (input: Parameters<ProfileStore['create']>[0], code: ProfileError['code'], msg?: RegExp) => {
      const err = (await store.create(input).catch((e: unknown) => e)) as ProfileError
      expect(err).toBeInstanceOf(ProfileError)
      expect(err.code).toBe(code)
      if (msg) expect(err.message).toMatch(msg)
    }
    await bad({ name: 'x', kind: 'live', baseUrl: 'ftp://example.test' }, 'invalid', /http or https/)
    await bad({ name: 'x', kind: 'live', baseUrl: 'example.test' }, 'invalid', /absolute URL/)
    await bad({ name: 'x', kind: 'live', baseUrl: 'https://user:pw@example.test' }, 'invalid', /user name or password/)
    await bad({ name: 'x', kind: 'live', baseUrl: 'https://example.test/?k=v' }, 'invalid', /query/)
    await bad({ name: '  ', kind: 'live', baseUrl: 'https://example.test' }, 'invalid', /name/)
    await bad({ name: 'SANDBOX', kind: 'live', baseUrl: 'https://example.test' }, 'duplicate_name')
    await bad({ name: 'x', kind: 'live', baseUrl: 'https://example.test', serviceName: 'has space' }, 'invalid', /serviceName/)
    await bad({ name: 'x', kind: 'prod' as 'live', baseUrl: 'https://example.test' }, 'invalid')
    await bad({ id: '../etc', name: 'x', kind: 'live', baseUrl: 'https://example.test' }, 'invalid', /id/)
    await bad({ id: 'sandbox', name: 'x', kind: 'live', baseUrl: 'https://example.test' }, 'duplicate_id')
    expect(store.list()).toHaveLength(1)
    expect(
      (await store.create({ name: 'Custom', kind: 'live', baseUrl: 'https://10.0.0.5:8080/gw', serviceName: 'acme' })).serviceName
    ).toBe('acme')
  })

  it('does not keep a profile whose secret could not be stored', async () => {
    const refusing = new SecretStore({
      userDataDir: dir,
      safeStorage: { ...safeStorage, getSelectedStorageBackend: () => 'basic_text' },
      keytar: null
    })
    const store = await open({ secrets: refusing })
    await expect(
      store.create({ name: 'Live', kind: 'live', baseUrl: 'https://api.example.test', apiSecret: SECRET })
    ).rejects.toMatchObject({
      code: 'plaintext_refused'
    })
    expect(store.list().map((p) => p.id)).toEqual(['sandbox'])
    expect(fileText()).not.toContain('Live')
  })

  it('updates fields with the same validation and sets a new secret', async () => {
    const store = await open()
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://a.example.test' })
    await store.create({ name: 'Other', kind: 'live', baseUrl: 'https://b.example.test' })
    clock = new Date('2024-07-02T00:00:00.000Z')
    const u = await store.update(p.id, { baseUrl: 'https://c.example.test/', apiSecret: SECRET })
    expect(u).toMatchObject({ name: 'Live', baseUrl: 'https://c.example.test', updatedAt: clock.toISOString(), createdAt: p.createdAt })
    expect(await secrets.get(p.id)).toBe(SECRET)
    await expect(store.update(p.id, { name: 'other' })).rejects.toMatchObject({ code: 'duplicate_name' })
    await expect(store.update(p.id, { baseUrl: 'javascript:alert(1)' })).rejects.toMatchObject({ code: 'invalid' })
    await expect(store.update('nope', { name: 'x' })).rejects.toMatchObject({ code: 'not_found' })
    // Fields left out of a patch keep their values (no defaults sneak in).
    const custom = await store.create({
      name: 'Acme',
      kind: 'live',
      baseUrl: 'https://d.example.test',
      serviceName: 'acme',
      apiKey: 'AK-9'
    })
    expect(await store.update(custom.id, { baseUrl: 'https://e.example.test' })).toMatchObject({
      serviceName: 'acme',
      apiKey: 'AK-9',
      kind: 'live'
    })
    // Renaming to its own name in another case is allowed.
    expect((await store.update(p.id, { name: 'LIVE' })).name).toBe('LIVE')
    expect((await open()).get(p.id)!.baseUrl).toBe('https://c.example.test')
  })

  it('refuses a live profile over plain http to another computer, on create and on update', async () => {
    const store = await open()
    for (const baseUrl of [
      'http://api.example.test',
      'http://10.0.0.5:8080/gw',
      'http://0.0.0.0:8787',
      'http://127.0.0.1.evil.test',
      'http://localhost.evil.test',
      'http://sub.localhost:8787',
      'http://[::ffff:127.0.0.1]:8787',
      'http://[::2]:8787'
    ]) {
      await expect(store.create({ name: 'Plain', kind: 'live', baseUrl }), baseUrl).rejects.toMatchObject({
        code: 'invalid',
        message: expect.stringMatching(/must use https/)
      })
    }
    expect(store.list().map((p) => p.id)).toEqual(['sandbox'])
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://api.example.test', apiSecret: SECRET })
    await expect(store.update(p.id, { baseUrl: 'http://api.example.test' })).rejects.toMatchObject({ code: 'invalid' })
    // Refused before anything changed: the secret and the URL are as they were.
    expect(await secrets.get(p.id)).toBe(SECRET)
    expect(store.get(p.id)!.baseUrl).toBe('https://api.example.test')
    // Loopback hosts may use http (the sandbox, a local test double), in every spelling a URL normalises to.
    for (const [i, baseUrl] of [
      'http://127.0.0.1:8787',
      'http://127.12.0.1:1/x',
      'http://localhost:8787',
      'http://LOCALHOST:1',
      'http://[::1]:8787',
      'http://[0:0:0:0:0:0:0:1]:2',
      'http://2130706433:3'
    ].entries())
      expect((await store.create({ name: `Local ${i}`, kind: 'live', baseUrl })).kind, baseUrl).toBe('live')
  })

  it('deletes the stored secret when the base URL moves to another origin, and only then', async () => {
    const store = await open()
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://api.example.test/v1', apiSecret: SECRET })
    // Same origin, other path or other fields: the secret stays.
    await store.update(p.id, { baseUrl: 'https://api.example.test/v2', name: 'Live 2', apiKey: 'AK-2' })
    expect(await secrets.get(p.id)).toBe(SECRET)
    // Another host, another port, another scheme: each is another origin.
    for (const baseUrl of ['https://evil.example.test/v2', 'https://evil.example.test:8443/v2', 'http://127.0.0.1:9/v2']) {
      await secrets.set(p.id, SECRET)
      await store.update(p.id, { baseUrl })
      expect(await secrets.has(p.id), baseUrl).toBe(false)
    }
    // A new secret given with the move is the one kept.
    await store.update(p.id, { baseUrl: 'https://api.example.test', apiSecret: `${SECRET}-new` })
    expect(await secrets.get(p.id)).toBe(`${SECRET}-new`)
  })

  it('keeps a team profile’s other hubs: https or loopback, without repeats, for team profiles only', async () => {
    const store = await open()
    const p = await store.create({
      name: 'Team',
      kind: 'team',
      baseUrl: 'https://hub1.example.test/',
      fallbackUrls: ['https://hub2.example.test/', 'https://hub1.example.test', 'https://hub2.example.test', 'http://127.0.0.1:8791']
    })
    expect(p.fallbackUrls).toEqual(['https://hub2.example.test', 'http://127.0.0.1:8791'])
    expect((await open()).get(p.id)!.fallbackUrls).toEqual(['https://hub2.example.test', 'http://127.0.0.1:8791'])
    await expect(store.update(p.id, { fallbackUrls: ['http://hub3.example.test'] })).rejects.toThrow(/fallbackUrls: .*https/)
    await expect(
      store.create({ name: 'Live', kind: 'live', baseUrl: 'https://api.example.test', fallbackUrls: ['https://x.example.test'] })
    ).rejects.toThrow(/only a team profile has other hubs/)
    // A profile with one hub keeps the shape it always had.
    const one = await store.create({ name: 'One', kind: 'team', baseUrl: 'https://hub1.example.test' })
    expect('fallbackUrls' in one).toBe(false)
    expect('fallbackUrls' in (await store.update(p.id, { fallbackUrls: [] }))).toBe(false)
  })

  it('deletes a team profile’s token when its hubs gain an origin, not when they lose one', async () => {
    const store = await open()
    const p = await store.create({ name: 'Team', kind: 'team', baseUrl: 'https://hub1.example.test', apiSecret: SECRET })
    await store.update(p.id, { fallbackUrls: ['https://hub2.example.test'] })
    expect(await secrets.has(p.id)).toBe(false)
    await secrets.set(p.id, SECRET)
    // Dropping a hub, or swapping which one comes first, sends the token nowhere new.
    await store.update(p.id, { baseUrl: 'https://hub2.example.test', fallbackUrls: ['https://hub1.example.test'] })
    await store.update(p.id, { fallbackUrls: [] })
    expect(await secrets.get(p.id)).toBe(SECRET)
  })

  it('keeps the profile as it was when the old secret cannot be removed', async () => {
    const stuck = { set: (id: string, s: string) => secrets.set(id, s), delete: async () => Promise.reject(new Error('keychain locked')) }
    const store = await open({ secrets: stuck })
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://api.example.test', apiSecret: SECRET })
    await expect(store.update(p.id, { baseUrl: 'https://evil.example.test' })).rejects.toThrow(/keychain locked/)
    expect(store.get(p.id)!.baseUrl).toBe('https://api.example.test')
    expect((await open()).get(p.id)!.baseUrl).toBe('https://api.example.test')
  })

  it('switches the active profile and remembers it', async () => {
    const store = await open()
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://a.example.test' })
    expect((await store.setActive(p.id)).id).toBe(p.id)
    expect(store.active().id).toBe(p.id)
    expect((await open()).active().id).toBe(p.id)
    await expect(store.setActive('missing')).rejects.toMatchObject({ code: 'not_found' })
  })

  it('deletes a profile with its secret and database directory, and never the last one', async () => {
    const store = await open()
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://a.example.test', apiSecret: SECRET })
    await store.setActive(p.id)
    const dbDir = store.databaseDir(p.id)
    const db = openLocalStore(dbDir)
    openDbs.set(p.id, db)
    db.audit.append('profile.create', { id: p.id })
    expect(existsSync(dbDir)).toBe(true)

    await store.delete(p.id)
    expect(openDbs.has(p.id)).toBe(false)
    expect(existsSync(dbDir)).toBe(false)
    expect(await secrets.has(p.id)).toBe(false)
    expect(store.get(p.id)).toBeUndefined()
    expect(store.active().id).toBe('sandbox')
    expect((await open()).list().map((x) => x.id)).toEqual(['sandbox'])

    await expect(store.delete('sandbox')).rejects.toMatchObject({ code: 'last_profile' })
    await expect(store.delete('ghost')).rejects.toMatchObject({ code: 'not_found' })
  })

  it('serialises concurrent changes so none is lost, and leaves no temp files', async () => {
    const store = await open()
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.create({ name: `P${i}`, kind: 'live', baseUrl: `https://p${i}.example.test` }))
    )
    expect(store.list()).toHaveLength(7)
    expect((await open()).list()).toHaveLength(7)
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })

  it('moves an unreadable profiles.json aside and starts again with the sandbox', async () => {
    writeFileSync(join(dir, PROFILES_FILE), '{"version":1,"activeId":"x","profiles":[{"id":"x"')
    const store = await open()
    expect(store.warning).toMatch(/unreadable/)
    expect(store.list().map((p) => p.id)).toEqual(['sandbox'])
    const aside = readdirSync(dir).filter((f) => f.startsWith(`${PROFILES_FILE}.corrupt-`))
    expect(aside).toHaveLength(1)
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toContain('"profiles":[{"id":"x"')
  })

  it('falls back to the first profile when the stored active id is gone', async () => {
    const store = await open()
    const p = await store.create({ name: 'Live', kind: 'live', baseUrl: 'https://a.example.test' })
    const data = JSON.parse(fileText()) as { activeId: string }
    data.activeId = 'vanished'
    writeFileSync(join(dir, PROFILES_FILE), JSON.stringify(data))
    const reopened = await open()
    expect(reopened.active().id).toBe('sandbox')
    expect(reopened.get(p.id)).toBeDefined()
  })
})

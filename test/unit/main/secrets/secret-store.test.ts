// SecretStore with a fake Electron safeStorage (and in-memory keychains where the keychain
// path is the subject); the real keytar backend is tested in secret-store-keychain.test.ts.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  KEYCHAIN_SERVICES,
  SecretError,
  SecretStore,
  type KeytarLike,
  type SafeStorageLike
} from '../../../../src/main/secrets/secret-store'

const SECRET = 'sk_live_9f8e7d6c5b4a-Very-Secret'

/** Reversible but not the identity, so the file must not contain the secret. */
/** backend null: no getSelectedStorageBackend (macOS, Windows). */
function fakeSafeStorage(backend: string | null = 'gnome_libsecret', available = true): SafeStorageLike & { failEncrypt: boolean } {
  const ss = {
    failEncrypt: false,
    isEncryptionAvailable: () => available,
    encryptString: (s: string) => {
      if (ss.failEncrypt) throw new Error('encryption backend went away')
      return Buffer.from(Buffer.from(s, 'utf8').map((b) => b ^ 0x5a))
    },
    decryptString: (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a)).toString('utf8'),
    ...(backend === null ? {} : { getSelectedStorageBackend: () => backend })
  }
  return ss
}

class MemoryKeychain implements KeytarLike {
  readonly items = new Map<string, string>()
  failWrites = false
  async getPassword(service: string, account: string) {
    return this.items.get(`${service}/${account}`) ?? null
  }
  async setPassword(service: string, account: string, password: string) {
    if (this.failWrites) throw new Error('keychain locked')
    this.items.set(`${service}/${account}`, password)
  }
  async deletePassword(service: string, account: string) {
    return this.items.delete(`${service}/${account}`)
  }
}

let dir: string
let logs: string[]
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-secrets-'))
  logs = []
})
afterEach(() => {
  vi.useRealTimers()
  rmSync(dir, { recursive: true, force: true })
  for (const line of logs) expect(line).not.toContain(SECRET)
})

const fileOf = (id: string) => join(dir, 'secrets', `${id}.bin`)

describe('safeStorage backend', () => {
  it('stores the ciphertext base64 in a 0600 file in a 0700 directory and reads it back', async () => {
    const store = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: null, log: (m) => logs.push(m) })
    expect(await store.preferredBackend()).toBe('safeStorage')
    expect(await store.has('live-1')).toBe(false)
    expect(await store.backendOf('live-1')).toBe('none')
    expect(await store.set('live-1', SECRET)).toBe('safeStorage')

    expect(statSync(fileOf('live-1')).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'secrets')).mode & 0o777).toBe(0o700)
    const text = readFileSync(fileOf('live-1'), 'utf8')
    expect(text).not.toContain(SECRET)
    const parsed = JSON.parse(text) as { ciphertext: string; backend: string }
    expect(parsed.backend).toBe('gnome_libsecret')
    expect(Buffer.from(parsed.ciphertext, 'base64').length).toBe(Buffer.byteLength(SECRET))

    expect(await store.get('live-1')).toBe(SECRET)
    expect(await store.has('live-1')).toBe(true)
    expect(await store.backendOf('live-1')).toBe('safeStorage')
    expect(await store.get('other')).toBeNull()
  })

  it('refuses the basic_text backend unless plaintext was allowed, without writing anything', async () => {
    let allow = false
    const store = new SecretStore({
      userDataDir: dir,
      safeStorage: fakeSafeStorage('basic_text'),
      keytar: null,
      allowPlaintext: () => allow
    })
    // Refused until allowed: set() would store it nowhere, and says why.
    expect(await store.preferredBackend()).toBe('none')
    expect((await store.whereToStore()).reason).toMatch(/basic_text/)
    const err = await store.set('live-1', SECRET).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SecretError)
    expect((err as SecretError).code).toBe('plaintext_refused')
    expect((err as SecretError).message).toMatch(/plain text/)
    expect((err as SecretError).message).not.toContain(SECRET)
    expect(await store.has('live-1')).toBe(false)

    allow = true
    expect(await store.preferredBackend()).toBe('plaintext')
    expect(await store.set('live-1', SECRET)).toBe('plaintext')
    expect(await store.backendOf('live-1')).toBe('plaintext')
    expect(await store.get('live-1')).toBe(SECRET)
  })

  it('fails clearly when no keychain answers and safeStorage cannot encrypt, naming the setting that helps', async () => {
    for (const safeStorage of [null, fakeSafeStorage('gnome_libsecret', false)]) {
      const store = new SecretStore({ userDataDir: dir, safeStorage, keytar: null })
      expect(await store.preferredBackend()).toBe('none')
      expect((await store.whereToStore()).reason).toMatch(/Allow storing secrets unencrypted in Settings/)
      const err = (await store.set('p', SECRET).catch((e: unknown) => e)) as SecretError
      expect(err.code).toBe('no_backend')
      expect(err.message).toMatch(/allow storing secrets unencrypted in Settings/)
    }
  })

  it('with nothing that encrypts and plain text allowed, really stores the secret, in a file that says what it is', async () => {
    let allow = false
    const store = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: null, allowPlaintext: () => allow })
    await expect(store.set('team-1', SECRET)).rejects.toMatchObject({ code: 'no_backend' })
    allow = true
    expect(await store.whereToStore()).toMatchObject({ backend: 'plaintext', reason: expect.stringMatching(/plain-text file/) })
    expect(await store.set('team-1', SECRET)).toBe('plaintext')
    expect(await store.backendOf('team-1')).toBe('plaintext')
    expect(await store.get('team-1')).toBe(SECRET)
    const file = JSON.parse(readFileSync(fileOf('team-1'), 'utf8')) as Record<string, unknown>
    expect(file).toMatchObject({ backend: 'plain', plain: SECRET, warning: expect.stringMatching(/^NOT ENCRYPTED/) })
    expect(statSync(fileOf('team-1')).mode & 0o777).toBe(0o600)
    // Read back by the next launch too; and plain text turned off later does not lose it.
    allow = false
    expect(await new SecretStore({ userDataDir: dir, safeStorage: null, keytar: null }).get('team-1')).toBe(SECRET)
    // A keychain that answers later takes it over and the plain file goes.
    const kc = new MemoryKeychain()
    const withKeychain = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc })
    expect(await withKeychain.set('team-1', SECRET)).toBe('keychain')
    expect(readdirSync(join(dir, 'secrets'))).toEqual([])
  })

  it('accepts platforms without a backend choice (macOS, Windows)', async () => {
    const ss = fakeSafeStorage(null)
    expect(ss.getSelectedStorageBackend).toBeUndefined()
    const store = new SecretStore({ userDataDir: dir, safeStorage: ss, keytar: null })
    expect(await store.set('p', SECRET)).toBe('safeStorage')
    expect(JSON.parse(readFileSync(fileOf('p'), 'utf8'))).toMatchObject({ backend: 'default' })
    expect(await store.get('p')).toBe(SECRET)
  })

  it('replaces the file atomically: no temp file left, and a failed write keeps the old secret', async () => {
    const ss = fakeSafeStorage()
    const store = new SecretStore({ userDataDir: dir, safeStorage: ss, keytar: null })
    await store.set('p', 'first-secret')
    const inodeBefore = statSync(fileOf('p')).ino
    await store.set('p', SECRET)
    // rename() over the target: a new inode, never an in-place rewrite.
    expect(statSync(fileOf('p')).ino).not.toBe(inodeBefore)
    expect(readdirSync(join(dir, 'secrets'))).toEqual(['p.bin'])
    expect(await store.get('p')).toBe(SECRET)

    ss.failEncrypt = true
    await expect(store.set('p', 'third-secret')).rejects.toMatchObject({ code: 'storage_failed' })
    expect(await store.get('p')).toBe(SECRET)
    expect(readdirSync(join(dir, 'secrets'))).toEqual(['p.bin'])

    // A temp file left by a crash does not disturb reads.
    writeFileSync(join(dir, 'secrets', 'p.bin.123.abc.tmp'), 'partial')
    expect(await store.get('p')).toBe(SECRET)
  })

  it('reports a damaged or undecryptable file without leaking anything', async () => {
    const ss = fakeSafeStorage()
    const store = new SecretStore({ userDataDir: dir, safeStorage: ss, keytar: null })
    await store.set('p', SECRET)
    ss.decryptString = () => {
      throw new Error(`cannot decrypt ${SECRET}`)
    }
    const err = (await store.get('p').catch((e: unknown) => e)) as SecretError
    expect(err.code).toBe('decrypt_failed')
    expect(err.message).not.toContain(SECRET)
    writeFileSync(fileOf('p'), 'not json')
    await expect(store.get('p')).rejects.toMatchObject({ code: 'decrypt_failed' })
  })

  it('deletes, and validates profile ids before touching the disk', async () => {
    const store = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: null })
    await store.set('p', SECRET)
    expect(await store.delete('p')).toBe(true)
    expect(await store.delete('p')).toBe(false)
    expect(await store.get('p')).toBeNull()
    for (const bad of ['../escape', 'UPPER', '', 'a/b', '.hidden']) {
      await expect(store.set(bad, SECRET)).rejects.toThrow(/invalid profile id/)
    }
    await expect(store.set('p', '')).rejects.toMatchObject({ code: 'invalid_input' })
  })
})

describe('keychain first', () => {
  it("uses a working keychain under the shell's service, account profile:<id>, and drops an older file copy", async () => {
    const ss = fakeSafeStorage()
    const before = new SecretStore({ userDataDir: dir, safeStorage: ss, keytar: null })
    await before.set('p', 'old-file-secret')

    const kc = new MemoryKeychain()
    const store = new SecretStore({ userDataDir: dir, safeStorage: ss, keytar: kc, log: (m) => logs.push(m) })
    expect(await store.keychainStatus()).toEqual({ available: true })
    expect(await store.preferredBackend()).toBe('keychain')
    expect(await store.set('p', SECRET)).toBe('keychain')
    expect(kc.items.get('app.rampdesk.desktop/profile:p')).toBe(SECRET)
    // The probe cleaned up after itself.
    expect([...kc.items.keys()]).toEqual(['app.rampdesk.desktop/profile:p'])
    expect(readdirSync(join(dir, 'secrets'))).toEqual([])
    expect(await store.get('p')).toBe(SECRET)
    expect(await store.backendOf('p')).toBe('keychain')
    expect(await store.delete('p')).toBe(true)
    expect(kc.items.size).toBe(0)
  })

  it("names entries per shell: the desktop app and the browser harness never read each other's", async () => {
    const kc = new MemoryKeychain()
    const desktop = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc, service: KEYCHAIN_SERVICES.electron })
    const web = new SecretStore({ userDataDir: join(dir, 'web'), safeStorage: null, keytar: kc, service: KEYCHAIN_SERVICES.web })
    await desktop.set('p', SECRET)
    expect(await web.get('p')).toBeNull()
    await web.set('p', `${SECRET}-web`)
    expect([...kc.items.keys()].sort()).toEqual(['app.rampdesk.desktop/profile:p', 'app.rampdesk.web/profile:p'])
    expect(await desktop.get('p')).toBe(SECRET)
  })

  it("moves entries of the first naming (service rampdesk, account <id>) to the shell's naming", async () => {
    const kc = new MemoryKeychain()
    kc.items.set('rampdesk/a', 'secret-a')
    kc.items.set('rampdesk/b', 'secret-b')
    kc.items.set('rampdesk/not-ours', 'other')
    const store = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc, service: KEYCHAIN_SERVICES.web })
    await store.migrateLegacy(['a'])
    expect(kc.items.get('app.rampdesk.web/profile:a')).toBe('secret-a')
    expect(kc.items.has('rampdesk/a')).toBe(false)
    // One not migrated at start is still read, and moved on the way.
    expect(await store.get('b')).toBe('secret-b')
    expect(await store.backendOf('b')).toBe('keychain')
    await store.migrateLegacy([])
    expect(kc.items.get('app.rampdesk.web/profile:b')).toBe('secret-b')
    expect(kc.items.has('rampdesk/b')).toBe(false)
    // A profile this shell does not have is left alone; an entry already under the new name is not overwritten.
    expect(kc.items.get('rampdesk/not-ours')).toBe('other')
    kc.items.set('rampdesk/a', 'stale')
    await store.migrateLegacy(['a'])
    expect(kc.items.get('app.rampdesk.web/profile:a')).toBe('secret-a')
    expect(kc.items.has('rampdesk/a')).toBe(false)
    // Deleting removes both namings.
    kc.items.set('rampdesk/a', 'stale')
    expect(await store.delete('a')).toBe(true)
    expect([...kc.items.keys()].filter((k) => k.endsWith('/a') || k.endsWith(':a'))).toEqual([])
  })

  it('falls back to safeStorage when the keychain refuses writes (a locked keyring)', async () => {
    const kc = new MemoryKeychain()
    kc.failWrites = true
    const store = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: kc, log: (m) => logs.push(m) })
    const status = await store.keychainStatus()
    expect(status.available).toBe(false)
    expect(status.reason).toMatch(/keychain locked/)
    expect(await store.set('p', SECRET)).toBe('safeStorage')
    expect(await store.get('p')).toBe(SECRET)
  })

  it('a secret written to the file while the keychain was absent wins over what the keychain still holds', async () => {
    const kc = new MemoryKeychain()
    kc.items.set('app.rampdesk.desktop/profile:p', 'old-secret')
    const locked = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: null })
    expect(await locked.set('p', SECRET)).toBe('safeStorage')
    // The next launch finds the keychain working again: the rotated secret is still the one used.
    const next = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: kc })
    expect(await next.get('p')).toBe(SECRET)
    expect(await next.backendOf('p')).toBe('safeStorage')
    // A good keychain write takes over again and removes the file.
    expect(await next.set('p', `${SECRET}-3`)).toBe('keychain')
    expect(await next.get('p')).toBe(`${SECRET}-3`)
    expect(readdirSync(join(dir, 'secrets'))).toEqual([])
  })

  it('gives up on a keychain that does not answer within the probe timeout', async () => {
    vi.useFakeTimers()
    const hanging: KeytarLike = {
      getPassword: () => new Promise(() => undefined),
      setPassword: () => new Promise(() => undefined),
      deletePassword: () => new Promise(() => undefined)
    }
    const store = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: hanging, probeTimeoutMs: 3000 })
    const status = store.keychainStatus()
    await vi.advanceTimersByTimeAsync(3000)
    expect(await status).toEqual({ available: false, reason: expect.stringMatching(/did not answer within 3000 ms/) })
    vi.useRealTimers()
    expect(await store.set('p', SECRET)).toBe('safeStorage')
  })

  it('probes the keychain once', async () => {
    const kc = new MemoryKeychain()
    const spy = vi.spyOn(kc, 'setPassword')
    const store = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc })
    await Promise.all([store.keychainStatus(), store.has('a'), store.backendOf('b')])
    await store.keychainStatus()
    expect(spy).toHaveBeenCalledTimes(1)
  })
})

describe('rotation the keychain refuses', () => {
  /** A keychain that took the old secret and now refuses writes to the profile's entry (and, optionally, deletes). */
  function stuckKeychain(o: { failDeletes: boolean }) {
    const kc = new MemoryKeychain()
    kc.items.set('app.rampdesk.desktop/profile:p', 'old-secret')
    kc.items.set('rampdesk/p', 'older-secret')
    const realSet = kc.setPassword.bind(kc)
    kc.setPassword = async (service, account, password) => {
      if (account === 'profile:p') throw new Error('keychain locked')
      return realSet(service, account, password)
    }
    const realDelete = kc.deletePassword.bind(kc)
    kc.deletePassword = async (service, account) => {
      if (o.failDeletes && account !== '__rampdesk_probe__') throw new Error('keychain locked')
      return realDelete(service, account)
    }
    return kc
  }

  it.each([false, true])('the old secret is never read again (the keychain also refuses deletes: %s)', async (failDeletes) => {
    const kc = stuckKeychain({ failDeletes })
    const store = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: kc, log: (m) => logs.push(m) })
    expect(await store.get('p')).toBe('old-secret')
    expect(await store.set('p', SECRET)).toBe('safeStorage')
    expect(await store.get('p')).toBe(SECRET)
    expect(await store.backendOf('p')).toBe('safeStorage')
    if (!failDeletes) expect([...kc.items.keys()]).toEqual([])
    // Nor on the next launch, nor through a migration of the first naming.
    const next = new SecretStore({ userDataDir: dir, safeStorage: fakeSafeStorage(), keytar: kc })
    await next.migrateLegacy(['p'])
    expect(await next.get('p')).toBe(SECRET)
    expect([...kc.items.values()]).not.toContain(SECRET)
  })

  it.each([false, true])('when nothing can take the new secret, no secret is used at all (deletes refused: %s)', async (failDeletes) => {
    const kc = stuckKeychain({ failDeletes })
    const store = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc, log: (m) => logs.push(m) })
    const err = (await store.set('p', SECRET).catch((e: unknown) => e)) as SecretError
    expect(err).toBeInstanceOf(SecretError)
    expect(err.code).toBe('no_backend')
    expect(err.message).toMatch(/keychain refused the new secret/)
    expect(err.message).not.toContain(SECRET)
    expect(await store.get('p')).toBeNull()
    expect(await store.has('p')).toBe(false)
    const next = new SecretStore({ userDataDir: dir, safeStorage: null, keytar: kc })
    expect(await next.get('p')).toBeNull()
  })
})

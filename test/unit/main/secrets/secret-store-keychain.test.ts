// The keytar backend for real, against the Secret Service of the session (CI runs the
// tests inside `dbus-run-session` with an unlocked gnome-keyring). With CI=true a missing
// keychain is a failure; elsewhere the tests skip and say why. Run locally with:
//   dbus-run-session -- sh -c 'echo pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; npx vitest run test/unit/main/secrets'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { SecretStore, type KeytarLike } from '../../../../src/main/secrets/secret-store'

const inCi = process.env.CI === 'true'
const dir = mkdtempSync(join(tmpdir(), 'rampdesk-keychain-'))
const store = new SecretStore({ userDataDir: dir, safeStorage: null })
const status = await store.keychainStatus()
if (!status.available && !inCi) {
  console.warn(
    `skipping the keychain backend tests: ${status.reason ?? 'no keychain'} (run them inside dbus-run-session with an unlocked gnome-keyring)`
  )
}

const profileId = `test-${randomBytes(4).toString('hex')}`
const secret = `kc-${randomBytes(12).toString('hex')}`

afterAll(async () => {
  if (status.available) await store.delete(profileId).catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!status.available && !inCi)('keytar backend (real Secret Service)', () => {
  it('a keychain answers', () => {
    expect(status.available, status.reason).toBe(true)
  })

  it('stores under service "app.rampdesk.desktop" with account profile:<id>, reads, reports and deletes', async () => {
    expect(await store.set(profileId, secret)).toBe('keychain')
    // Read back with keytar directly: the entry is where other tools expect it.
    const keytar = ((await import('keytar')) as unknown as { default: KeytarLike }).default
    expect(await keytar.getPassword('app.rampdesk.desktop', `profile:${profileId}`)).toBe(secret)
    expect(await store.get(profileId)).toBe(secret)
    expect(await store.backendOf(profileId)).toBe('keychain')
    expect(await store.has(profileId)).toBe(true)

    // A second store (the next app launch) finds it too.
    const next = new SecretStore({ userDataDir: dir, safeStorage: null })
    expect(await next.get(profileId)).toBe(secret)

    expect(await store.set(profileId, `${secret}-2`)).toBe('keychain')
    expect(await next.get(profileId)).toBe(`${secret}-2`)

    expect(await store.delete(profileId)).toBe(true)
    expect(await keytar.getPassword('app.rampdesk.desktop', `profile:${profileId}`)).toBeNull()
    expect(await store.backendOf(profileId)).toBe('none')
  })

  it("moves an entry of the first naming (service rampdesk, account <id>) to the web shell's naming", async () => {
    const keytar = ((await import('keytar')) as unknown as { default: KeytarLike }).default
    await keytar.setPassword('rampdesk', profileId, secret)
    const web = new SecretStore({ userDataDir: dir, safeStorage: null, service: 'app.rampdesk.web' })
    await web.migrateLegacy([profileId])
    expect(await keytar.getPassword('app.rampdesk.web', `profile:${profileId}`)).toBe(secret)
    expect(await keytar.getPassword('rampdesk', profileId)).toBeNull()
    expect(await web.get(profileId)).toBe(secret)
    expect(await web.delete(profileId)).toBe(true)
  })

  it('leaves no probe entry behind', async () => {
    const keytar = ((await import('keytar')) as unknown as { default: KeytarLike }).default
    expect(await keytar.getPassword('app.rampdesk.desktop', '__rampdesk_probe__')).toBeNull()
  })
})

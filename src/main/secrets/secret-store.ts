// Where each profile's API secret lives: the OS keychain through keytar when it loads and
// a keychain answers, otherwise Electron safeStorage with the ciphertext in a 0600 file
// under userData. safeStorage's basic_text backend (a fixed, well-known key) counts as
// plaintext and is refused unless the operator accepted it in settings. Where neither
// exists (the browser harness without a Secret Service), a secret is stored only once the
// operator accepted plain text: then in the same 0600 file, in the clear, the file saying
// so (backend "plain"). Electron's safeStorage is injected, so this folder never imports
// electron and runs under Node. The secret never appears in a log line or an error message.
//
// Keychain entries are named per shell (service app.rampdesk.desktop or app.rampdesk.web,
// account profile:<id>), so the desktop app and the browser harness never read each
// other's; entries of the first naming (service rampdesk, account <id>) move over. A
// rotation whose keychain write fails removes the old entry, and until the next good
// keychain write the file says the keychain's copy is revoked: the old secret is never
// read again, even when the keychain also refused to delete it.
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { withTimeout } from '../abort'
import { writeFileAtomic } from '../profiles/atomic-file'
import { assertProfileId, isValidProfileId } from '../profiles/profile-id'
import type { SecretBackend, ShellKind } from '../../shared/ipc/contract'

/** The part of Electron's safeStorage this store uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean
  encryptString(plainText: string): Buffer
  decryptString(encrypted: Buffer): string
  /** Linux only: 'basic_text', 'gnome_libsecret', 'kwallet', ... */
  getSelectedStorageBackend?(): string
}

/** The part of keytar this store uses. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>
  setPassword(service: string, account: string, password: string): Promise<void>
  deletePassword(service: string, account: string): Promise<boolean>
}

/** The keychain service of each shell: the two never share an entry. */
export const KEYCHAIN_SERVICES: Record<ShellKind, string> = {
  electron: 'app.rampdesk.desktop',
  web: 'app.rampdesk.web',
  hub: 'app.rampdesk.hub'
}
/** The first naming: service "rampdesk", account = the bare profile id. Read once, moved, deleted. */
export const LEGACY_KEYCHAIN_SERVICE = 'rampdesk'

/** The keychain account of a profile. */
export const keychainAccount = (profileId: string): string => `profile:${profileId}`

export interface SecretStoreOptions {
  /** Electron's app.getPath('userData'); secrets go to <userDataDir>/secrets/<profile>.bin. */
  userDataDir: string
  safeStorage?: SafeStorageLike | null
  /** The operator's "allow plaintext secret storage" setting, read at each write. */
  allowPlaintext?: () => boolean
  /** undefined: load the optional keytar module; null: never use a keychain; or an implementation. */
  keytar?: KeytarLike | null
  /** Keychain service name (default the desktop shell's, KEYCHAIN_SERVICES); the account is profile:<id>. */
  service?: string
  /** How long the one-time keychain probe may take before the keychain counts as absent. */
  probeTimeoutMs?: number
  /** Diagnostics (never given a secret). */
  log?: (message: string) => void
}

export type SecretErrorCode = 'invalid_input' | 'no_backend' | 'plaintext_refused' | 'keychain_failed' | 'storage_failed' | 'decrypt_failed'

export class SecretError extends Error {
  constructor(
    readonly code: SecretErrorCode,
    message: string
  ) {
    super(message)
    this.name = 'SecretError'
  }
}

export interface KeychainStatus {
  available: boolean
  /** Why not, in plain words. */
  reason?: string
}

interface SecretFile {
  v: 1
  /**
   * safeStorage's backend when written ('basic_text' = plaintext), or 'default' where there
   * is no choice; 'plain' for a secret kept in the clear in `plain` (no encrypted store, and
   * the operator accepted plain text); 'none' for a file that holds no secret, only the
   * revocation below.
   */
  backend: string
  ciphertext: string
  /** backend 'plain' only: the secret itself, unencrypted. */
  plain?: string
  /** backend 'plain' only: what this file is, for whoever opens it. */
  warning?: string
  /** The keychain's entry for this profile is an older secret: never read it. Files of older versions lack it. */
  keychainRevoked?: true
}

const NO_SECRET = 'none'
/** A secret stored in the clear, because the operator accepted it where nothing encrypts. */
const PLAIN_FILE = 'plain'
const PLAIN_WARNING =
  'NOT ENCRYPTED: no OS keychain or encrypted store was available, and storing secrets in plain text was allowed in Settings. Anyone who can read this file can use this credential.'

const PROBE_ACCOUNT = '__rampdesk_probe__'
const PLAINTEXT_BACKEND = 'basic_text'
const MAX_SECRET_LENGTH = 4096

async function loadKeytar(): Promise<KeytarLike> {
  // Optional dependency: absent or unbuildable on some machines.
  const mod = (await import('keytar')) as unknown as { default?: KeytarLike } & Partial<KeytarLike>
  const k = (mod.default ?? mod) as Partial<KeytarLike>
  if (typeof k.getPassword !== 'function' || typeof k.setPassword !== 'function' || typeof k.deletePassword !== 'function') {
    throw new Error('keytar loaded without its functions')
  }
  return k as KeytarLike
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export class SecretStore {
  private readonly dir: string
  private readonly service: string
  private readonly probeTimeoutMs: number
  private keychain: Promise<{ keytar: KeytarLike | null; status: KeychainStatus }> | null = null

  // Writes run one at a time, so a migration never puts an old secret back over a new one.
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: SecretStoreOptions) {
    this.dir = join(opts.userDataDir, 'secrets')
    this.service = opts.service ?? KEYCHAIN_SERVICES.electron
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 3000
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  private log(m: string): void {
    this.opts.log?.(m)
  }

  /** Loads keytar and checks once that a keychain stores and returns a value. */
  keychainStatus(): Promise<KeychainStatus> {
    return this.keychainState().then((s) => s.status)
  }

  private keychainState(): Promise<{ keytar: KeytarLike | null; status: KeychainStatus }> {
    this.keychain ??= this.probe()
    return this.keychain
  }

  private async probe(): Promise<{ keytar: KeytarLike | null; status: KeychainStatus }> {
    if (this.opts.keytar === null) return { keytar: null, status: { available: false, reason: 'keychain disabled' } }
    let keytar: KeytarLike
    try {
      keytar = this.opts.keytar ?? (await loadKeytar())
    } catch (e) {
      const reason = `keytar could not be loaded: ${message(e)}`
      this.log(reason)
      return { keytar: null, status: { available: false, reason } }
    }
    // A round trip, not a read: a locked keyring with no prompt available answers reads
    // with null but refuses writes.
    const probeValue = randomBytes(16).toString('hex')
    try {
      await withTimeout(
        (async () => {
          await keytar.setPassword(this.service, PROBE_ACCOUNT, probeValue)
          const back = await keytar.getPassword(this.service, PROBE_ACCOUNT)
          await keytar.deletePassword(this.service, PROBE_ACCOUNT)
          if (back !== probeValue) throw new Error('the keychain did not return what was stored')
        })(),
        this.probeTimeoutMs,
        'the keychain'
      )
      return { keytar, status: { available: true } }
    } catch (e) {
      const reason = `no keychain answered: ${message(e)}`
      this.log(reason)
      return { keytar: null, status: { available: false, reason } }
    }
  }

  private fileOf(profileId: string): string {
    return join(this.dir, `${profileId}.bin`)
  }

  /** Where set() would store a secret now ('none': it would refuse; whereToStore() says why). */
  async preferredBackend(): Promise<SecretBackend> {
    return (await this.whereToStore()).backend
  }

  /** Where set() would store a secret now, and, where that is plain text or nowhere, why and what changes it. */
  async whereToStore(): Promise<{ backend: SecretBackend; reason: string | null }> {
    const keychain = await this.keychainState()
    if (keychain.keytar) return { backend: 'keychain', reason: null }
    const allowed = this.opts.allowPlaintext?.() ?? false
    const ss = this.opts.safeStorage
    const noKeychain = `no OS keychain answers here (${keychain.status.reason ?? 'none found'})`
    if (ss && ss.isEncryptionAvailable()) {
      if (ss.getSelectedStorageBackend?.() !== PLAINTEXT_BACKEND) return { backend: 'safeStorage', reason: null }
      return allowed
        ? {
            backend: 'plaintext',
            reason: `${noKeychain}, and safe storage has only its plain-text form (basic_text): you allowed this in Settings`
          }
        : {
            backend: 'none',
            reason: `${noKeychain}, and safe storage has only its plain-text form (basic_text). Allow storing secrets unencrypted in Settings to store it anyway.`
          }
    }
    return allowed
      ? {
          backend: 'plaintext',
          reason: `${noKeychain} and nothing here encrypts: it goes to a plain-text file, as you allowed in Settings`
        }
      : {
          backend: 'none',
          reason: `${noKeychain} and nothing here encrypts (the browser harness has no safe storage). Allow storing secrets unencrypted in Settings to keep it in a plain-text file on this computer, or run a Secret Service (gnome-keyring) and start again.`
        }
  }

  /** Stores the profile's secret; returns the backend that holds it. */
  async set(profileId: string, secret: string): Promise<SecretBackend> {
    assertProfileId(profileId)
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) {
      throw new SecretError('invalid_input', `the secret must be a non-empty string of at most ${MAX_SECRET_LENGTH} characters`)
    }
    return this.serial(async () => {
      const { keytar } = await this.keychainState()
      if (!keytar) return this.writeFile(profileId, secret)
      try {
        await keytar.setPassword(this.service, keychainAccount(profileId), secret)
      } catch (e) {
        this.log(`keychain write failed for profile ${profileId}, using safeStorage: ${message(e)}`)
        return this.afterFailedKeychainWrite(keytar, profileId, secret)
      }
      // The keychain copy is now the one read; drop any older file copy (or revocation) and the first-naming entry.
      try {
        await this.removeFile(profileId)
      } catch (e) {
        throw new SecretError(
          'storage_failed',
          `the new secret is in the keychain, but the older copy in the secret file of profile ${profileId} could not be removed and is still the one used: ${message(e)}`
        )
      }
      await this.deleteLegacyEntry(keytar, profileId)
      return 'keychain'
    })
  }

  /**
   * A rotation the keychain refused: the old secret there must never be used again. It is
   * deleted, and the new secret goes to the file, which revokes the keychain's copy (so a
   * delete the keychain also refused changes nothing). When the file cannot take the
   * secret either, a file with only the revocation stays behind.
   */
  private async afterFailedKeychainWrite(keytar: KeytarLike, profileId: string, secret: string): Promise<SecretBackend> {
    let cleared = true
    for (const [service, account] of this.entriesOf(profileId)) {
      try {
        await keytar.deletePassword(service, account)
      } catch (e) {
        cleared = false
        this.log(`could not remove the old keychain entry of profile ${profileId}: ${message(e)}`)
      }
    }
    try {
      return await this.writeFile(profileId, secret)
    } catch (e) {
      const revocation: SecretFile = { v: 1, backend: NO_SECRET, ciphertext: '', keychainRevoked: true }
      const revoked = await writeFileAtomic(this.fileOf(profileId), JSON.stringify(revocation), 0o600).then(
        () => true,
        () => false
      )
      const old = cleared
        ? 'the old secret was removed from it'
        : revoked
          ? 'the old secret stays in it but will not be used'
          : `the old secret stays in it: remove the entry ${keychainAccount(profileId)} of ${this.service} by hand`
      throw new SecretError(
        e instanceof SecretError ? e.code : 'storage_failed',
        `the keychain refused the new secret (${old}), and it could not be stored elsewhere: ${message(e)}`
      )
    }
  }

  /** The profile's secret, or null when none is stored. Main process only. */
  async get(profileId: string): Promise<string | null> {
    assertProfileId(profileId)
    const file = await this.fileState(profileId)
    if (!file.revoked) {
      const fromKeychain = await this.readKeychain(profileId)
      if (fromKeychain !== null) return fromKeychain
    }
    if (file.error) throw file.error
    if (!file.secret) return null
    if (file.secret.backend === PLAIN_FILE) return file.secret.plain ?? null
    const ss = this.opts.safeStorage
    if (!ss || !ss.isEncryptionAvailable()) {
      throw new SecretError('no_backend', 'the stored secret cannot be decrypted: safeStorage is not available')
    }
    try {
      return ss.decryptString(Buffer.from(file.secret.ciphertext, 'base64'))
    } catch {
      throw new SecretError('decrypt_failed', `the stored secret of profile ${profileId} could not be decrypted; enter it again`)
    }
  }

  async has(profileId: string): Promise<boolean> {
    return (await this.backendOf(profileId)) !== 'none'
  }

  async backendOf(profileId: string): Promise<SecretBackend> {
    assertProfileId(profileId)
    const file = await this.fileState(profileId)
    if (!file.revoked && (await this.readKeychain(profileId).catch(() => null)) !== null) return 'keychain'
    if (file.error) throw file.error
    if (!file.secret) return 'none'
    return file.secret.backend === PLAINTEXT_BACKEND || file.secret.backend === PLAIN_FILE ? 'plaintext' : 'safeStorage'
  }

  /**
   * Moves first-naming keychain entries (service rampdesk, account <id>) of these profiles
   * to this shell's naming. Never throws: an entry that cannot move is still read where it
   * is, and moved on a later read.
   */
  async migrateLegacy(profileIds: readonly string[]): Promise<void> {
    return this.serial(async () => {
      const { keytar } = await this.keychainState()
      if (!keytar) return
      for (const id of profileIds) {
        if (isValidProfileId(id)) await this.moveLegacyEntry(keytar, id)
      }
    })
  }

  /** Removes the secret from every backend; true when something was removed. */
  async delete(profileId: string): Promise<boolean> {
    assertProfileId(profileId)
    return this.serial(async () => {
      let removed = false
      const { keytar } = await this.keychainState()
      if (keytar) {
        for (const [service, account] of this.entriesOf(profileId)) {
          try {
            removed = (await keytar.deletePassword(service, account)) || removed
          } catch (e) {
            throw new SecretError('keychain_failed', `could not remove the secret of profile ${profileId} from the keychain: ${message(e)}`)
          }
        }
      }
      const file = await this.fileState(profileId)
      return (await this.removeFile(profileId)) ? removed || file.secret !== null : removed
    })
  }

  /** The keychain entries a profile may have: this shell's naming, then the first naming. */
  private entriesOf(profileId: string): Array<[service: string, account: string]> {
    return [
      [this.service, keychainAccount(profileId)],
      [LEGACY_KEYCHAIN_SERVICE, profileId]
    ]
  }

  /** The keychain's secret (a first-naming entry is moved on the way), or null. */
  private async readKeychain(profileId: string): Promise<string | null> {
    const { keytar } = await this.keychainState()
    if (!keytar) return null
    try {
      const v = await keytar.getPassword(this.service, keychainAccount(profileId))
      if (v !== null) return v
      const legacy = await keytar.getPassword(LEGACY_KEYCHAIN_SERVICE, profileId)
      if (legacy !== null) void this.serial(() => this.moveLegacyEntry(keytar, profileId))
      return legacy
    } catch (e) {
      this.log(`keychain read failed for profile ${profileId}: ${message(e)}`)
      return null
    }
  }

  /** Copies a first-naming entry to this shell's naming (unless one is there already), then deletes it. */
  private async moveLegacyEntry(keytar: KeytarLike, profileId: string): Promise<void> {
    try {
      const legacy = await keytar.getPassword(LEGACY_KEYCHAIN_SERVICE, profileId)
      if (legacy === null) return
      // A revoked keychain copy is not carried over: it is the old secret of a failed rotation.
      if (!(await this.fileState(profileId)).revoked && (await keytar.getPassword(this.service, keychainAccount(profileId))) === null)
        await keytar.setPassword(this.service, keychainAccount(profileId), legacy)
      await keytar.deletePassword(LEGACY_KEYCHAIN_SERVICE, profileId)
      this.log(`moved the keychain entry of profile ${profileId} to ${this.service}`)
    } catch (e) {
      this.log(`could not move the keychain entry of profile ${profileId}: ${message(e)}`)
    }
  }

  private async deleteLegacyEntry(keytar: KeytarLike, profileId: string): Promise<void> {
    try {
      await keytar.deletePassword(LEGACY_KEYCHAIN_SERVICE, profileId)
    } catch (e) {
      this.log(`could not remove the first-naming keychain entry of profile ${profileId}: ${message(e)}`)
    }
  }

  /** The file's secret and whether it revokes the keychain's copy; a damaged file is an error kept for later. */
  private async fileState(profileId: string): Promise<{ secret: SecretFile | null; revoked: boolean; error: SecretError | null }> {
    try {
      const f = await this.readFile(profileId)
      return { secret: f && f.backend !== NO_SECRET ? f : null, revoked: f?.keychainRevoked === true, error: null }
    } catch (e) {
      if (e instanceof SecretError) return { secret: null, revoked: false, error: e }
      throw e
    }
  }

  /**
   * Writes the secret to the profile's file, marked as revoking the keychain's copy: the
   * file is the newer write (a keychain that took the secret would have had the file
   * removed), so an entry a locked or absent keychain still holds is never read again.
   */
  private async writeFile(profileId: string, secret: string): Promise<SecretBackend> {
    const ss = this.opts.safeStorage
    if (!ss || !ss.isEncryptionAvailable()) {
      if (this.opts.allowPlaintext?.() ?? false) {
        const content: SecretFile = {
          v: 1,
          backend: PLAIN_FILE,
          ciphertext: '',
          plain: secret,
          warning: PLAIN_WARNING,
          keychainRevoked: true
        }
        await this.writeSecretFile(profileId, content)
        return 'plaintext'
      }
      throw new SecretError(
        'no_backend',
        'nothing was stored: no OS keychain answered (on Linux, a Secret Service such as gnome-keyring must be running and unlocked) and nothing here encrypts; allow storing secrets unencrypted in Settings to keep it in a plain-text file'
      )
    }
    const backend = ss.getSelectedStorageBackend?.() ?? 'default'
    if (backend === PLAINTEXT_BACKEND && !(this.opts.allowPlaintext?.() ?? false)) {
      throw new SecretError(
        'plaintext_refused',
        'no keychain is available and safeStorage would store the secret as plain text (basic_text); allow plaintext secret storage in settings to accept this'
      )
    }
    let ciphertext: string
    try {
      ciphertext = ss.encryptString(secret).toString('base64')
    } catch {
      throw new SecretError('storage_failed', 'safeStorage could not encrypt the secret')
    }
    await this.writeSecretFile(profileId, { v: 1, backend, ciphertext, keychainRevoked: true })
    return backend === PLAINTEXT_BACKEND ? 'plaintext' : 'safeStorage'
  }

  private async writeSecretFile(profileId: string, content: SecretFile): Promise<void> {
    try {
      await writeFileAtomic(this.fileOf(profileId), JSON.stringify(content, null, content.backend === PLAIN_FILE ? 2 : undefined), 0o600)
    } catch (e) {
      throw new SecretError(
        'storage_failed',
        `could not write the secret file of profile ${profileId}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`
      )
    }
  }

  private async readFile(profileId: string): Promise<SecretFile | null> {
    let text: string
    try {
      text = await fs.readFile(this.fileOf(profileId), 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new SecretError(
        'storage_failed',
        `could not read the secret file of profile ${profileId}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`
      )
    }
    try {
      const parsed = JSON.parse(text) as Partial<SecretFile>
      if (parsed.backend === PLAIN_FILE && typeof parsed.plain !== 'string') throw new Error('plain file without its secret')
      if (parsed.v === 1 && typeof parsed.backend === 'string' && typeof parsed.ciphertext === 'string') return parsed as SecretFile
    } catch {
      // reported below
    }
    throw new SecretError('decrypt_failed', `the secret file of profile ${profileId} is damaged; enter the secret again`)
  }

  private async removeFile(profileId: string): Promise<boolean> {
    try {
      await fs.unlink(this.fileOf(profileId))
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw new SecretError(
        'storage_failed',
        `could not remove the secret file of profile ${profileId}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`
      )
    }
  }
}

// Where each profile's API secret lives: the OS keychain through keytar when it loads and
// a keychain answers, otherwise Electron safeStorage with the ciphertext in a 0600 file
// under userData. safeStorage's basic_text backend (a fixed, well-known key) counts as
// plaintext and is refused unless the operator accepted it in settings. Electron's
// safeStorage is injected, so this folder never imports electron and runs under Node.
// The secret never appears in a log line or an error message.
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../profiles/atomic-file'
import { assertProfileId } from '../profiles/profile-id'
import type { SecretBackend } from '../../shared/ipc/contract'

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

export interface SecretStoreOptions {
  /** Electron's app.getPath('userData'); secrets go to <userDataDir>/secrets/<profile>.bin. */
  userDataDir: string
  safeStorage?: SafeStorageLike | null
  /** The operator's "allow plaintext secret storage" setting, read at each write. */
  allowPlaintext?: () => boolean
  /** undefined: load the optional keytar module; null: never use a keychain; or an implementation. */
  keytar?: KeytarLike | null
  /** Keychain service name (default "rampdesk"); the account is the profile id. */
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
  /** safeStorage's backend when written ('basic_text' = plaintext), or 'default' where there is no choice. */
  backend: string
  ciphertext: string
}

const PROBE_ACCOUNT = '__rampdesk_probe__'
const PLAINTEXT_BACKEND = 'basic_text'
const MAX_SECRET_LENGTH = 4096

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
    p.then(
      (v) => {
        clearTimeout(timer)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    )
  })
}

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

  constructor(private readonly opts: SecretStoreOptions) {
    this.dir = join(opts.userDataDir, 'secrets')
    this.service = opts.service ?? 'rampdesk'
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 3000
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

  /** Where set() would store a secret now. */
  async preferredBackend(): Promise<SecretBackend> {
    if ((await this.keychainState()).keytar) return 'keychain'
    const ss = this.opts.safeStorage
    if (!ss || !ss.isEncryptionAvailable()) return 'none'
    return ss.getSelectedStorageBackend?.() === PLAINTEXT_BACKEND ? 'plaintext' : 'safeStorage'
  }

  /** Stores the profile's secret; returns the backend that holds it. */
  async set(profileId: string, secret: string): Promise<SecretBackend> {
    assertProfileId(profileId)
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) {
      throw new SecretError('invalid_input', `the secret must be a non-empty string of at most ${MAX_SECRET_LENGTH} characters`)
    }
    const { keytar } = await this.keychainState()
    if (keytar) {
      try {
        await keytar.setPassword(this.service, profileId, secret)
        // The keychain copy is now the one read first; drop any older file copy.
        await this.removeFile(profileId)
        return 'keychain'
      } catch (e) {
        this.log(`keychain write failed for profile ${profileId}, using safeStorage: ${message(e)}`)
      }
    }
    return this.writeFile(profileId, secret)
  }

  /** The profile's secret, or null when none is stored. Main process only. */
  async get(profileId: string): Promise<string | null> {
    assertProfileId(profileId)
    const { keytar } = await this.keychainState()
    if (keytar) {
      try {
        const v = await keytar.getPassword(this.service, profileId)
        if (v !== null) return v
      } catch (e) {
        this.log(`keychain read failed for profile ${profileId}: ${message(e)}`)
      }
    }
    const file = await this.readFile(profileId)
    if (!file) return null
    const ss = this.opts.safeStorage
    if (!ss || !ss.isEncryptionAvailable()) {
      throw new SecretError('no_backend', 'the stored secret cannot be decrypted: safeStorage is not available')
    }
    try {
      return ss.decryptString(Buffer.from(file.ciphertext, 'base64'))
    } catch {
      throw new SecretError('decrypt_failed', `the stored secret of profile ${profileId} could not be decrypted; enter it again`)
    }
  }

  async has(profileId: string): Promise<boolean> {
    return (await this.backendOf(profileId)) !== 'none'
  }

  async backendOf(profileId: string): Promise<SecretBackend> {
    assertProfileId(profileId)
    const { keytar } = await this.keychainState()
    if (keytar) {
      try {
        if ((await keytar.getPassword(this.service, profileId)) !== null) return 'keychain'
      } catch {
        // fall through to the file
      }
    }
    const file = await this.readFile(profileId)
    if (!file) return 'none'
    return file.backend === PLAINTEXT_BACKEND ? 'plaintext' : 'safeStorage'
  }

  /** Removes the secret from every backend; true when something was removed. */
  async delete(profileId: string): Promise<boolean> {
    assertProfileId(profileId)
    let removed = false
    const { keytar } = await this.keychainState()
    if (keytar) {
      try {
        removed = (await keytar.deletePassword(this.service, profileId)) || removed
      } catch (e) {
        throw new SecretError('keychain_failed', `could not remove the secret of profile ${profileId} from the keychain: ${message(e)}`)
      }
    }
    return (await this.removeFile(profileId)) || removed
  }

  private async writeFile(profileId: string, secret: string): Promise<SecretBackend> {
    const ss = this.opts.safeStorage
    if (!ss || !ss.isEncryptionAvailable()) {
      throw new SecretError(
        'no_backend',
        'the secret was not stored: no OS keychain answered (on Linux, a Secret Service such as gnome-keyring must be running and unlocked) and no other encrypted store is available here'
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
    const content: SecretFile = { v: 1, backend, ciphertext }
    try {
      await writeFileAtomic(this.fileOf(profileId), JSON.stringify(content), 0o600)
    } catch (e) {
      throw new SecretError(
        'storage_failed',
        `could not write the secret file of profile ${profileId}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`
      )
    }
    return backend === PLAINTEXT_BACKEND ? 'plaintext' : 'safeStorage'
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

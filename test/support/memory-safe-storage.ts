// The Electron-safeStorage stand-in every Node-side harness uses where safeStorage does
// not exist (no Electron) and no keychain may answer: real AES-256-GCM, so a stored
// secret file never holds the secret in plain text.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { SafeStorageLike } from '../../src/main/secrets/secret-store'

export interface MemorySafeStorageOptions {
  /**
   * 32 bytes. By default a random key that lives only in this process, as safeStorage
   * keeps its key in the OS; pass a fixed key when a restarted process must read what
   * an earlier one stored.
   */
  key?: Buffer
  /** What getSelectedStorageBackend() reports (anything but 'basic_text' counts as encrypted). */
  backend?: string
}

export function memorySafeStorage(opts: MemorySafeStorageOptions = {}): Required<SafeStorageLike> {
  const key = opts.key ?? randomBytes(32)
  const backend = opts.backend ?? 'gnome_libsecret'
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain: string): Buffer {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()])
      return Buffer.concat([iv, c.getAuthTag(), body])
    },
    decryptString(buf: Buffer): string {
      const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12))
      d.setAuthTag(buf.subarray(12, 28))
      return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8')
    }
  }
}

// Adapts Electron's safeStorage to the SecretStore's injected interface, so that
// src/main/secrets never imports electron.
import { safeStorage } from 'electron'

export const electronSafeStorage = {
  isEncryptionAvailable: () => safeStorage.isEncryptionAvailable(),
  encryptString: (s: string) => safeStorage.encryptString(s),
  decryptString: (b: Buffer) => safeStorage.decryptString(b),
  getSelectedStorageBackend: () => (process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : 'os')
}

// The main-side start-up the reliability child processes (canary-child, crash-child)
// share: their stdout protocol and createServices() on the parent's data directory,
// with the AES-GCM safeStorage stand-in under a fixed key so a restarted child reads
// what the killed one stored, and typed confirmations whose codes it keeps.
import { writeSync } from 'node:fs'
import { join } from 'node:path'
import { createServices, type Services } from '../../src/main/services'
import { memorySafeStorage } from '../support/memory-safe-storage'

/** What typed confirmations showed outside the window (a real harness prints it in its terminal), oldest first. */
export const confirmationLines: string[] = []

/** One line on stdout, written synchronously so it is in the pipe before the next step (or a SIGKILL). */
export const say = (line: string): void => void writeSync(1, line + '\n')

/**
 * The whole main side of a web shell on `dataDir` (not started). Exports land under the
 * data directory too, so the parent's file scans cover them. The safeStorage stand-in is
 * only used when no keychain answers (keytar comes first); `keyByte` fills its key.
 */
export function createChildServices(dataDir: string, version: string, keyByte: number): Promise<Services> {
  return createServices({
    dataDir,
    exportDir: join(dataDir, 'exports'),
    version,
    shellKind: 'web',
    safeStorage: memorySafeStorage({ key: Buffer.alloc(32, keyByte) }),
    // The embedded sandbox only runs for the first start's sandbox profile: keep it small.
    sandbox: { orders: 10, autoGenerate: false },
    confirmationCodes: { show: (line) => void confirmationLines.push(line), shownIn: 'the test' }
  })
}

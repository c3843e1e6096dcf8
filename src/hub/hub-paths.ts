// Where the hub keeps its state, as every command names it: the data directory (--data-dir,
// RAMPDESK_HUB_DATA_DIR, or the older RAMPDESK_HUB_DATA; ~/.rampdesk-hub by default) with
// hub.db, settings.json and store/ (the order database).
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir, hostname } from 'node:os'
import { join, resolve } from 'node:path'

export interface CliIo {
  out(line: string): void
  err(line: string): void
}

export function dataDirOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag || env.RAMPDESK_HUB_DATA_DIR || env.RAMPDESK_HUB_DATA || join(homedir(), '.rampdesk-hub'))
}

/**
 * This hub's id, the same across its restarts (it names the webhook relays it has claimed, so
 * a hub started again after a kill takes them back at once): hub-id in the data directory,
 * made on the first start.
 */
export function hubIdOf(dataDir: string): string {
  const file = join(dataDir, 'hub-id')
  try {
    const id = readFileSync(file, 'utf8').trim()
    if (id) return id
  } catch {
    // not made yet
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const id = `${hostname().slice(0, 40)}-${randomBytes(4).toString('hex')}`
  writeFileSync(file, `${id}\n`, { mode: 0o600 })
  return id
}

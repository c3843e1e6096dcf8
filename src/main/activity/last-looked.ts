// When the operator last looked at each profile, kept by this desktop in one small JSON file
// under the data directory so it survives restarts. A Team profile is one operator on one
// hub, so keeping it per profile keeps it per operator on a hub. It only moves forward: a
// late answer from a window that was away cannot take it back.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export class LastLooked {
  private readonly file: string
  private readonly byProfile: Map<string, number>

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true })
    this.file = join(dataDir, 'last-looked.json')
    this.byProfile = new Map(Object.entries(read(this.file)))
  }

  get(profileId: string): number | null {
    return this.byProfile.get(profileId) ?? null
  }

  /** Marks the profile looked at until `at` (kept if it was later already); returns what is kept. */
  seen(profileId: string, at: number): number {
    const kept = Math.max(at, this.byProfile.get(profileId) ?? 0)
    if (kept !== this.byProfile.get(profileId)) {
      this.byProfile.set(profileId, kept)
      const tmp = `${this.file}.${process.pid}.tmp`
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.byProfile)), { mode: 0o600 })
      renameSync(tmp, this.file)
    }
    return kept
  }
}

/** The stored moments; a missing or damaged file is none (the next look starts afresh). */
function read(file: string): Record<string, number> {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown
    if (typeof raw !== 'object' || raw === null) return {}
    return Object.fromEntries(Object.entries(raw).filter((e): e is [string, number] => Number.isSafeInteger(e[1]) && (e[1] as number) >= 0))
  } catch {
    return {}
  }
}

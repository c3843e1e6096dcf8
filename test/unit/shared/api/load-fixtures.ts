// Reads the contract fixtures under test/fixtures/api (see the README there): one folder
// per endpoint, and a file-name prefix that says whether the body must parse or be refused.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll } from 'vitest'

export const FIXTURE_ROOT = fileURLToPath(new URL('../../../fixtures/api/', import.meta.url))
export const ERROR_ENVELOPE_DIR = 'error-envelope'

export type FixtureKind = 'ok' | 'bad' | 'req-ok' | 'req-bad'

export interface Fixture {
  /** Folder: an endpoint name or error-envelope. */
  dir: string
  /** File name without .json. */
  name: string
  kind: FixtureKind
  /** The JSON text as stored. */
  text: string
  body: unknown
}

const KIND = /^(req-ok|req-bad|ok|bad)-[a-z0-9][a-zA-Z0-9-]*$/

export function kindOf(name: string): FixtureKind | undefined {
  return KIND.exec(name)?.[1] as FixtureKind | undefined
}

let cache: Fixture[] | undefined

export function allFixtures(): Fixture[] {
  if (cache) return cache
  const out: Fixture[] = []
  for (const dir of readdirSync(FIXTURE_ROOT, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue
    for (const file of readdirSync(join(FIXTURE_ROOT, dir.name)).sort()) {
      if (!file.endsWith('.json')) continue
      const name = file.slice(0, -'.json'.length)
      const text = readFileSync(join(FIXTURE_ROOT, dir.name, file), 'utf8')
      const kind = kindOf(name)
      if (!kind) throw new Error(`fixture ${dir.name}/${file} has no ok-/bad-/req-ok-/req-bad- prefix`)
      out.push({ dir: dir.name, name, kind, text, body: JSON.parse(text) as unknown })
    }
  }
  cache = out
  return out
}

export function fixturesOf(dir: string, kind: FixtureKind): Fixture[] {
  return allFixtures().filter((f) => f.dir === dir && f.kind === kind)
}

/** The parsed body of one fixture; throws when it does not exist, so a renamed file fails loudly. */
export function fixture(dir: string, name: string): unknown {
  const f = allFixtures().find((x) => x.dir === dir && x.name === name)
  if (!f) throw new Error(`no fixture ${dir}/${name}.json`)
  return f.body
}

/**
 * Runs the enclosing describe block in a time zone far from UTC (Asia/Kolkata, +5:30),
 * so a zoneless time read as local time would show.
 */
export function inFarTimeZone(): void {
  let tz: string | undefined
  beforeAll(() => {
    tz = process.env.TZ
    process.env.TZ = 'Asia/Kolkata'
  })
  afterAll(() => {
    if (tz === undefined) delete process.env.TZ
    else process.env.TZ = tz
  })
}

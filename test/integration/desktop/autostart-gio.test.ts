// The autostart entry as a real desktop reads it: GLib's `gio launch` (GLib is what GNOME
// uses to start autostart entries) runs the entry written for a program installed under a
// hostile path, and that program must start with exactly one argument, --hidden. Skips,
// saying why, where gio is not installed. Paths with % are covered by the spec reader in
// test/unit/main/linux-autostart.test.ts only: GLib looks the program up before undoing
// the spec's %% escape, so it finds no program there (a GLib quirk, see the module).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { desktopEntry } from '../../../src/main/linux-autostart'

const gio = spawnSync('gio', ['version'], { encoding: 'utf8' })
const skipReason =
  process.platform !== 'linux' ? 'not Linux' : gio.status !== 0 ? `gio is not installed (${gio.error?.message ?? gio.stderr})` : ''
if (skipReason) console.log(`[autostart gio test skipped] ${skipReason}`)

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rd-gio-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe.skipIf(skipReason !== '')('the autostart entry under gio launch', () => {
  it.each([
    ['spaces and quotes', `My Apps/o'brien "quoted"`],
    ['shell expansions', '$HOME/`id`/$(id)'],
    ['a backslash and shell operators', 'a\\b;c&d|e>f<g'],
    ['a newline, a tab and an equals sign', 'line\nExec=evil\tA=B'],
    ['non-ASCII', 'zoë/Приложения/日本語/😀']
  ])('%s: the program at that path starts with --hidden only', async (_what, hostile) => {
    const dir = join(base, hostile)
    mkdirSync(dir, { recursive: true })
    const out = join(base, `argv-${Math.random().toString(36).slice(2)}.txt`)
    const program = join(dir, 'rampdesk')
    // Prints its own path and each argument, one per line, bracketed (written aside, then renamed: read whole or not at all).
    writeFileSync(
      program,
      `#!/bin/sh\n{ printf '[%s]\\n' "$0"; for a in "$@"; do printf '[%s]\\n' "$a"; done; } > '${out}.partial' && mv '${out}.partial' '${out}'\n`,
      {
        mode: 0o755
      }
    )
    const entry = join(base, `entry-${Math.random().toString(36).slice(2)}.desktop`)
    writeFileSync(entry, desktopEntry(program))
    const launched = spawnSync('gio', ['launch', entry], { encoding: 'utf8', timeout: 20_000 })
    expect(launched.status, launched.stderr).toBe(0)
    // The program runs after gio returns: wait (bounded) for what it wrote.
    for (let i = 0; i < 200 && !existsSync(out); i++) await sleep(50)
    expect(readFileSync(out, 'utf8')).toBe(`[${program}]\n[--hidden]\n`)
  })
})

// The Linux autostart entry under attack: hostile install paths must read back (with a
// strict reader written from the spec) as exactly the path and --hidden, adding no key
// and no argument; and a spoofed $APPIMAGE must not become the program login starts.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import {
  DesktopEntryValueError,
  autostartExecutable,
  desktopEntry,
  escapeDesktopString,
  linuxAutostartPath,
  quoteExecArgument
} from '../../../src/main/linux-autostart'
import { readEntry, readExec, unescapeString } from '../../support/desktop-entry-reader'

/** Text a desktop entry can carry: no control character but newline, tab and carriage return (which have escapes). */
const writable = (s: string) => ![...s].some((c) => (c < ' ' && !'\n\t\r'.includes(c)) || c === '\x7f')

const KEYS = ['Type', 'Version', 'Name', 'Exec', 'Terminal', 'X-GNOME-Autostart-enabled']

/** What the entry for `path` reads back as: its keys, the argv of Exec and the name. */
function readBack(path: string): { keys: string[]; argv: string[]; name: string } {
  const entry = readEntry(desktopEntry(path))
  return { keys: [...entry.keys()], argv: readExec(entry.get('Exec')!), name: unescapeString(entry.get('Name')!) }
}

describe('the Exec line', () => {
  it.each([
    ['a plain path', '/opt/Rampdesk/rampdesk', '/opt/Rampdesk/rampdesk --hidden'],
    ['spaces', '/opt/My Apps/rampdesk', '"/opt/My Apps/rampdesk" --hidden'],
    ['a double quote', '/opt/a"b/rampdesk', '"/opt/a\\\\"b/rampdesk" --hidden'],
    ['a single quote', "/home/o'brien/rampdesk", `"/home/o'brien/rampdesk" --hidden`],
    ['a dollar sign', '/opt/$HOME/rampdesk', '"/opt/\\\\$HOME/rampdesk" --hidden'],
    ['backticks', '/opt/`id`/rampdesk', '"/opt/\\\\`id\\\\`/rampdesk" --hidden'],
    ['a backslash', '/opt/a\\b/rampdesk', '"/opt/a\\\\\\\\b/rampdesk" --hidden'],
    ['a percent sign', '/opt/100%/rampdesk', '/opt/100%%/rampdesk --hidden'],
    ['a field code look-alike', '/opt/%f %u/rampdesk', '"/opt/%%f %%u/rampdesk" --hidden'],
    ['a newline that tries to add a key', '/opt/x\nExec=/tmp/evil/rampdesk', '"/opt/x\\nExec=/tmp/evil/rampdesk" --hidden'],
    ['a tab and a carriage return', '/opt/a\tb\rc/rampdesk', '"/opt/a\\tb\\rc/rampdesk" --hidden'],
    ['shell operators', '/opt/a;rm -rf ~|b&c>d<e/rampdesk', '"/opt/a;rm -rf ~|b&c>d<e/rampdesk" --hidden'],
    ['an equals sign', '/opt/A=B/rampdesk', '"/opt/A=B/rampdesk" --hidden'],
    ['non-ASCII', '/home/zoë/Приложения/日本語/😀/rampdesk', '/home/zoë/Приложения/日本語/😀/rampdesk --hidden']
  ])('%s: written per the spec and read back as the path and --hidden only', (_what, path, exec) => {
    const text = desktopEntry(path)
    expect(text.split('\n').find((l) => l.startsWith('Exec='))).toBe(`Exec=${exec}`)
    expect(readBack(path)).toEqual({ keys: KEYS, argv: [path, '--hidden'], name: 'Rampdesk' })
    // One line per key: nothing in the path can start a line of its own.
    expect(text.split('\n')).toHaveLength(KEYS.length + 2)
  })

  it('any path of hostile characters reads back unchanged (fast-check)', () => {
    const hostile = fc.constantFrom(
      ' ',
      '"',
      "'",
      '\\',
      '$',
      '`',
      '%',
      '\n',
      '\t',
      '\r',
      '=',
      '#',
      ';',
      '~',
      '*',
      'é',
      '日',
      '😀',
      'a',
      '/',
      's',
      'n'
    )
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 40 }), (chars) => {
        const path = `/opt/${chars.join('')}/rampdesk`
        expect(readBack(path)).toEqual({ keys: KEYS, argv: [path, '--hidden'], name: 'Rampdesk' })
      }),
      { numRuns: 500 }
    )
    // Characters JavaScript counts as line breaks or spaces, which a desktop entry does not.
    for (const c of ['\u2028', '\u2029', '\u0085', '\u00a0', '\ufeff'])
      expect(readBack(`/opt/${c}rampdesk${c}`).argv).toEqual([`/opt/${c}rampdesk${c}`, '--hidden'])
    const anyText = fc.string({ unit: 'grapheme', maxLength: 30 }).filter(writable)
    fc.assert(
      fc.property(anyText, (s) => {
        expect(readBack(`/${s}`).argv).toEqual([`/${s}`, '--hidden'])
      }),
      // U+2028 and U+2029 are no line ends for a desktop entry (only \n is): found by this property.
      { numRuns: 500, examples: [['\u2028 '], ['\u2029']] }
    )
  })

  it('refuses what no desktop entry can carry, instead of writing it mangled', () => {
    for (const bad of [
      '/opt/a\x01b/rampdesk',
      '/opt/a\x1bb/rampdesk',
      '/opt/a\x7fb/rampdesk',
      '/opt/a\0b/rampdesk',
      '/opt/\uD800/rampdesk'
    ])
      expect(() => desktopEntry(bad), JSON.stringify(bad)).toThrow(DesktopEntryValueError)
  })

  it('quoteExecArgument quotes the empty argument and leaves a safe one bare', () => {
    expect(quoteExecArgument('')).toBe('""')
    expect(quoteExecArgument('--hidden')).toBe('--hidden')
  })
})

describe('string values of other keys', () => {
  it('escape backslash, newline, tab, carriage return, and edge spaces as \\s', () => {
    expect(escapeDesktopString('a\\b\nc\td\re')).toBe('a\\\\b\\nc\\td\\re')
    expect(escapeDesktopString(' Ramp desk ')).toBe('\\sRamp desk\\s')
    expect(readEntry(desktopEntry('/x', ' Evil\nExec=/tmp/evil ')).get('Name')).toBe('\\sEvil\\nExec=/tmp/evil\\s')
    expect(readBack('/x').name).toBe('Rampdesk')
  })

  it('round-trip through the reader for any text without other control characters (fast-check)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 }).filter(writable)
    fc.assert(
      fc.property(text, (s) => {
        expect(unescapeString(escapeDesktopString(s))).toBe(s)
      })
    )
  })
})

describe('where the entry is written', () => {
  it('under XDG_CONFIG_HOME when it is absolute, else ~/.config (a relative value is invalid per the Base Directory spec)', () => {
    expect(linuxAutostartPath('/home/o', '/cfg')).toBe('/cfg/autostart/rampdesk.desktop')
    expect(linuxAutostartPath('/home/o', 'relative/cfg')).toBe('/home/o/.config/autostart/rampdesk.desktop')
    expect(linuxAutostartPath('/home/o', '')).toBe('/home/o/.config/autostart/rampdesk.desktop')
  })
})

describe('which executable login starts', () => {
  // A fake AppImage mount: base/mount/rampdesk is "the running executable" inside APPDIR;
  // base/Rampdesk.AppImage carries the ELF and AppImage type 2 magic.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'rd-appimage-')))
  const mount = join(base, 'mount')
  const inside = join(mount, 'rampdesk')
  const appImage = join(base, 'Rampdesk.AppImage')
  const elfAppImageHead = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0x41, 0x49, 0x02, 0, 0, 0, 0, 0])
  mkdirSync(mount)
  writeFileSync(inside, '#!/bin/sh\n', { mode: 0o755 })
  writeFileSync(appImage, elfAppImageHead, { mode: 0o755 })
  const other = join(base, 'Other.AppImage')
  writeFileSync(other, elfAppImageHead, { mode: 0o755 })
  const script = join(base, 'evil.sh')
  writeFileSync(script, '#!/bin/sh\necho pwned\n', { mode: 0o755 })
  const notExecutable = join(base, 'Plain.AppImage')
  writeFileSync(notExecutable, elfAppImageHead, { mode: 0o644 })
  chmodSync(notExecutable, 0o644)
  symlinkSync(mount, join(base, 'mount-link'))
  const elsewhere = join(base, 'deb-install', 'rampdesk')
  mkdirSync(join(base, 'deb-install'))
  writeFileSync(elsewhere, '#!/bin/sh\n', { mode: 0o755 })

  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('outside an AppImage: the running executable', async () => {
    expect(await autostartExecutable({}, elsewhere)).toEqual({ path: elsewhere, source: 'process' })
  })

  it('inside the AppImage it names: the AppImage file (APPDIR also through a symlink)', async () => {
    expect(await autostartExecutable({ APPIMAGE: appImage, APPDIR: mount }, inside)).toEqual({ path: appImage, source: 'appimage' })
    expect((await autostartExecutable({ APPIMAGE: appImage, APPDIR: join(base, 'mount-link') }, inside)).source).toBe('appimage')
  })

  it.each([
    ['a script posing as the AppImage', () => ({ APPIMAGE: script, APPDIR: mount }), inside, /no AppImage magic/],
    [
      'an AppImage this process was not started from (inherited env)',
      () => ({ APPIMAGE: other, APPDIR: mount }),
      elsewhere,
      /not run from inside APPDIR/
    ],
    ['APPDIR set to the filesystem root', () => ({ APPIMAGE: other, APPDIR: '/' }), elsewhere, /not run from inside APPDIR/],
    ['no APPDIR', () => ({ APPIMAGE: appImage }), inside, /APPDIR is not set/],
    ['a relative APPIMAGE', () => ({ APPIMAGE: 'Rampdesk.AppImage', APPDIR: mount }), inside, /not an absolute path/],
    ['a folder', () => ({ APPIMAGE: mount, APPDIR: mount }), inside, /not a regular file/],
    ['a file nobody may execute', () => ({ APPIMAGE: notExecutable, APPDIR: mount }), inside, /not executable/],
    ['a file that does not exist', () => ({ APPIMAGE: join(base, 'gone.AppImage'), APPDIR: mount }), inside, /cannot be checked/]
  ])('refuses %s and falls back to the running executable', async (_what, env, execPath, why) => {
    const chosen = await autostartExecutable(env(), execPath)
    expect(chosen.source).toBe('process')
    expect(chosen.path).toBe(execPath)
    expect(chosen.refused).toMatch(why)
  })
})

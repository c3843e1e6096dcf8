// Start at login on Linux: the XDG autostart .desktop file and the executable it starts.
// Pure Node (src/main/electron/autostart.ts writes the file). Two things must hold:
// - the file says exactly what it means, whatever the install path holds: values are
//   written per the Desktop Entry Specification (string escapes, and the Exec key's own
//   quoting and %-escaping), so a path with spaces, quotes, $, backticks, %, newlines or
//   any Unicode starts that path and nothing else, and cannot add keys or arguments;
// - the executable is the one running: $APPIMAGE is believed only when it names an
//   AppImage file and this process runs from inside that AppImage's mount ($APPDIR), so
//   an inherited or planted variable cannot make login start another program.
import fs from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/** $XDG_CONFIG_HOME/autostart/rampdesk.desktop; a relative XDG_CONFIG_HOME is invalid per the Base Directory spec and ignored. */
export function linuxAutostartPath(home = homedir(), xdgConfig = process.env.XDG_CONFIG_HOME): string {
  const config = xdgConfig && isAbsolute(xdgConfig) ? xdgConfig : join(home, '.config')
  return join(config, 'autostart', 'rampdesk.desktop')
}

/** Why a value cannot be written to a desktop entry at all. */
export class DesktopEntryValueError extends Error {}

/**
 * Values are UTF-8 and may hold no control character; the spec has escapes for newline,
 * tab and carriage return only. Anything else is refused rather than written mangled.
 */
function assertWritable(value: string, what: string): void {
  if (Buffer.from(value, 'utf8').toString('utf8') !== value) throw new DesktopEntryValueError(`${what} is not valid Unicode`)
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(value)) throw new DesktopEntryValueError(`${what} contains a control character`)
}

const STRING_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' }

/**
 * A value of type string: backslash, newline, tab and carriage return escaped, and a
 * leading or trailing space written as \s (readers trim the whitespace around a value).
 */
export function escapeDesktopString(value: string, what = 'the value'): string {
  assertWritable(value, what)
  return value.replace(/[\\\n\t\r]/g, (c) => STRING_ESCAPES[c]!).replace(/^ | $/g, '\\s')
}

/** The characters that force an Exec argument into quotes (spec, "The Exec key"; = added, see below). */
const EXEC_RESERVED = /[ \t\n"'\\><~|&;$*?#()`=]/

/**
 * One argument of the Exec key. A literal % is doubled (% starts a field code, quoted or
 * not). An argument holding a reserved character is double-quoted, with ", `, $ and \
 * backslash-escaped inside. "=" is quoted too: the spec forbids it in the program name,
 * and an unquoted NAME=value first word reads as an environment assignment to some
 * launchers. The result is still subject to the string escapes (see execValue).
 * Known quirk: GLib (GNOME) checks that the program exists before undoing %%, so an
 * install path containing % is written correctly but not started there; KDE and the
 * spec agree with this file.
 */
export function quoteExecArgument(arg: string): string {
  const percent = arg.replace(/%/g, '%%')
  if (arg !== '' && !EXEC_RESERVED.test(arg)) return percent
  return `"${percent.replace(/["`$\\]/g, '\\$&')}"`
}

/**
 * The Exec value for argv, as written in the file: quoting first, then the general
 * string escapes (so a literal backslash inside quotes is written as four).
 */
function execValue(argv: readonly string[]): string {
  argv.forEach((arg, i) => assertWritable(arg, i === 0 ? 'the executable path' : `argument ${i}`))
  return escapeDesktopString(argv.map(quoteExecArgument).join(' '), 'the command line')
}

/** The whole autostart entry: start `executable` hidden (in the tray) at login. */
export function desktopEntry(executable: string, name = 'Rampdesk'): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.5',
    `Name=${escapeDesktopString(name, 'the name')}`,
    `Exec=${execValue([executable, '--hidden'])}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    ''
  ].join('\n')
}

export interface LaunchExecutable {
  path: string
  source: 'appimage' | 'process'
  /** Why $APPIMAGE was not used, when it was set. */
  refused?: string
}

/** Whether `inner` lies strictly below `outer` (both absolute). */
function isBelow(outer: string, inner: string): boolean {
  const rel = relative(outer, inner)
  return rel !== '' && !isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + sep)
}

/** An ELF file carrying the AppImage magic ("AI" then type 1 or 2) at byte 8, per the AppImage specification. */
async function hasAppImageMagic(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r')
  try {
    const head = Buffer.alloc(11)
    const { bytesRead } = await handle.read(head, 0, 11, 0)
    return (
      bytesRead === 11 &&
      head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) &&
      head[8] === 0x41 &&
      head[9] === 0x49 &&
      (head[10] === 1 || head[10] === 2)
    )
  } finally {
    await handle.close()
  }
}

/**
 * The program login should start. Inside an AppImage, process.execPath is a path in a
 * temporary mount that is gone after exit, so the AppImage file itself ($APPIMAGE, set
 * by the AppImage runtime) must be started instead. But the variable is inherited by
 * every child of an AppImage, and anyone who can set our environment can name any file:
 * it is used only when it is an absolute path to an executable regular file with the
 * AppImage magic, and this process runs from inside $APPDIR, the mount that runtime
 * made. Otherwise the running executable, process.execPath.
 */
export async function autostartExecutable(
  env: { APPIMAGE?: string; APPDIR?: string },
  execPath: string = process.execPath
): Promise<LaunchExecutable> {
  const fallback = (refused?: string): LaunchExecutable => ({ path: execPath, source: 'process', ...(refused ? { refused } : {}) })
  const appImage = env.APPIMAGE
  if (appImage === undefined || appImage === '') return fallback()
  if (!isAbsolute(appImage)) return fallback('APPIMAGE is not an absolute path')
  const appDir = env.APPDIR
  if (!appDir || !isAbsolute(appDir)) return fallback('APPDIR is not set to an absolute path')
  try {
    const [realDir, realExec] = await Promise.all([fs.promises.realpath(appDir), fs.promises.realpath(execPath)])
    if (resolve(realDir) === resolve('/') || !isBelow(realDir, realExec))
      return fallback('this process does not run from inside APPDIR: APPIMAGE belongs to another program')
    const info = await fs.promises.stat(appImage)
    if (!info.isFile()) return fallback('APPIMAGE is not a regular file')
    if ((info.mode & 0o111) === 0) return fallback('APPIMAGE is not executable')
    if (!(await hasAppImageMagic(appImage))) return fallback('APPIMAGE is not an AppImage (no AppImage magic bytes)')
  } catch (e) {
    return fallback(`APPIMAGE or APPDIR cannot be checked: ${e instanceof Error ? e.message : String(e)}`)
  }
  return { path: appImage, source: 'appimage' }
}

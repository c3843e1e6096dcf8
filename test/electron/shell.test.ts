// Start at login (the Linux autostart .desktop file as written to disk, its escaping and
// APPIMAGE checks in test/unit/main/linux-autostart.test.ts), the tray popover's
// placement, and notifications that open their order when clicked.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { electronMock } from './electron-mock'
import { readEntry, readExec } from '../support/desktop-entry-reader'

vi.mock('electron', () => electronMock())

const { setStartAtLogin } = await import('../../src/main/electron/autostart')
const { popoverPosition } = await import('../../src/main/electron/tray')
const { notify } = await import('../../src/main/electron/notifications')
const electron = await import('electron')

describe('start at login', () => {
  const saved = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, APPIMAGE: process.env.APPIMAGE, APPDIR: process.env.APPDIR }
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })

  async function withConfigHome(run: (dir: string, file: string) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'rd-autostart-'))
    process.env.XDG_CONFIG_HOME = dir
    try {
      await run(dir, join(dir, 'autostart', 'rampdesk.desktop'))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  const execOf = async (file: string) => readExec(readEntry(await readFile(file, 'utf8')).get('Exec')!)

  it.runIf(process.platform === 'linux')('writes an XDG autostart entry that starts this executable hidden, and removes it', async () => {
    await withConfigHome(async (_dir, file) => {
      delete process.env.APPIMAGE
      await setStartAtLogin(true)
      expect(await execOf(file)).toEqual([process.execPath, '--hidden'])
      expect((await stat(file)).mode & 0o777).toBe(0o644)
      await setStartAtLogin(false)
      await expect(stat(file)).rejects.toThrow()
    })
  })

  it.runIf(process.platform === 'linux')('a spoofed APPIMAGE does not become the program login starts', async () => {
    await withConfigHome(async (dir, file) => {
      const evil = join(dir, 'evil.AppImage')
      await writeFile(evil, '#!/bin/sh\necho pwned\n', { mode: 0o755 })
      process.env.APPIMAGE = evil
      process.env.APPDIR = '/'
      await setStartAtLogin(true)
      expect(await execOf(file)).toEqual([process.execPath, '--hidden'])
    })
  })

  it.runIf(process.platform === 'linux')('replaces a symlink planted at the entry instead of writing through it', async () => {
    await withConfigHome(async (dir, file) => {
      const target = join(dir, 'bashrc')
      await writeFile(target, 'untouched')
      await mkdir(join(dir, 'autostart'))
      await symlink(target, file)
      await setStartAtLogin(true)
      expect(await readFile(target, 'utf8')).toBe('untouched')
      expect((await lstat(file)).isSymbolicLink()).toBe(false)
      expect(await execOf(file)).toEqual([process.execPath, '--hidden'])
    })
  })
})

describe('tray popover placement', () => {
  const work = { x: 0, y: 0, width: 1920, height: 1080 }
  it('opens below a tray at the top of the screen, centred on the icon', () => {
    expect(popoverPosition({ x: 1800, y: 0, width: 24, height: 24 }, { width: 360, height: 480 }, work)).toEqual({ x: 1560, y: 28 })
  })
  it('opens above a tray at the bottom and stays on screen', () => {
    expect(popoverPosition({ x: 10, y: 1056, width: 24, height: 24 }, { width: 360, height: 480 }, work)).toEqual({ x: 0, y: 572 })
  })
})

describe('notifications', () => {
  it('a click opens the order it is about', () => {
    const opened: unknown[] = []
    notify({ title: 'Order 7 completed', body: 'withdrawal complete', order: { type: 1, orderId: 7 } }, (o) => opened.push(o))
    const N = electron.Notification as unknown as { shown: Array<{ handlers: Map<string, () => void>; o: { title: string } }> }
    const note = N.shown.at(-1)!
    expect(note.o.title).toBe('Order 7 completed')
    note.handlers.get('click')!()
    expect(opened).toEqual([{ type: 1, orderId: 7 }])
  })
})

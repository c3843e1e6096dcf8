// Start at login (Linux autostart .desktop file, login items elsewhere), the tray
// popover's placement, and notifications that open their order when clicked.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { electronMock } from './electron-mock'

vi.mock('electron', () => electronMock())

const { desktopEntry, linuxAutostartPath, setStartAtLogin } = await import('../../src/main/electron/autostart')
const { popoverPosition } = await import('../../src/main/electron/tray')
const { notify } = await import('../../src/main/electron/notifications')
const electron = await import('electron')

describe('start at login', () => {
  const saved = process.env.XDG_CONFIG_HOME
  afterEach(() => {
    process.env.XDG_CONFIG_HOME = saved
  })

  it('writes and removes an XDG autostart entry on Linux', async () => {
    if (process.platform !== 'linux') return
    const dir = await mkdtemp(join(tmpdir(), 'rd-autostart-'))
    process.env.XDG_CONFIG_HOME = dir
    try {
      await setStartAtLogin(true)
      const file = join(dir, 'autostart', 'rampdesk.desktop')
      expect(linuxAutostartPath()).toBe(file)
      const text = await readFile(file, 'utf8')
      expect(text).toContain('[Desktop Entry]')
      expect(text).toContain('Exec=/opt/Rampdesk/rampdesk --hidden')
      await setStartAtLogin(false)
      await expect(stat(file)).rejects.toThrow()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('quotes an executable path with spaces', () => {
    expect(desktopEntry('/opt/My Apps/rampdesk')).toContain('Exec="/opt/My Apps/rampdesk" --hidden')
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

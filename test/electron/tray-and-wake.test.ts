// The Electron glue of the tray and of waking up, with 'electron' replaced by recording fakes:
// the tray shows a state's icon variant for the OS theme, its title on macOS and its
// tooltip, and follows a theme change; powerMonitor's resume and unlock-screen and the
// network coming back each call wake().
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { trayState } from '../../src/main/tray-state'
import { syncState } from '../support/sync-state'

const fake = vi.hoisted(() => {
  class Emitter {
    handlers = new Map<string, Set<(...a: unknown[]) => void>>()
    on(e: string, fn: (...a: unknown[]) => void) {
      const set = this.handlers.get(e) ?? new Set()
      set.add(fn)
      this.handlers.set(e, set)
      return this
    }
    removeListener(e: string, fn: (...a: unknown[]) => void) {
      this.handlers.get(e)?.delete(fn)
      return this
    }
    emit(e: string) {
      for (const fn of this.handlers.get(e) ?? []) fn()
    }
  }
  class FakeImage {
    template = false
    constructor(readonly path: string) {}
    setTemplateImage(on: boolean) {
      this.template = on
    }
    isEmpty() {
      return fake.missing.has(this.path)
    }
  }
  class FakeTray extends Emitter {
    static last: FakeTray | null = null
    image: FakeImage
    tooltip = ''
    title: string | null = null
    menu: unknown = null
    constructor(image: FakeImage) {
      super()
      this.image = image
      FakeTray.last = this
    }
    setImage(i: FakeImage) {
      this.image = i
    }
    setToolTip(t: string) {
      this.tooltip = t
    }
    setTitle(t: string) {
      this.title = t
    }
    setContextMenu(m: unknown) {
      this.menu = m
    }
    isDestroyed() {
      return false
    }
  }
  const theme = Object.assign(new Emitter(), { shouldUseDarkColors: false })
  return { Emitter, FakeImage, FakeTray, theme, missing: new Set<string>(), power: new Emitter(), online: { value: true } }
})

vi.mock('electron', () => ({
  Tray: fake.FakeTray,
  nativeImage: { createFromPath: (p: string) => new fake.FakeImage(p) },
  nativeTheme: fake.theme,
  Menu: { buildFromTemplate: (t: unknown) => ({ template: t }) },
  screen: { getDisplayNearestPoint: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) },
  powerMonitor: fake.power,
  net: { isOnline: () => fake.online.value }
}))

const { createTray } = await import('../../src/main/electron/tray')
const { onWake } = await import('../../src/main/electron/power')

const deps = (platform: NodeJS.Platform) => ({
  iconDir: '/res/tray',
  fallbackIcon: '/res/trayTemplate.png',
  popover: () => {
    throw new Error('not opened in these tests')
  },
  showMain: () => undefined,
  quit: () => undefined,
  platform
})

describe('the tray', () => {
  beforeEach(() => {
    fake.theme.shouldUseDarkColors = false
    fake.missing.clear()
  })

  it('starts with the template icon, then shows the state: variant, tooltip, and no title off macOS', () => {
    const t = createTray(deps('linux'))
    const tray = fake.FakeTray.last!
    expect(tray.image.path).toBe('/res/trayTemplate.png')
    expect(tray.image.template).toBe(true)
    t.show(trayState({ sync: [], attention: 3, inProgress: 5 }))
    expect(tray.image.path).toBe('/res/tray/tray-attention-light.png')
    expect(tray.tooltip).toBe('Rampdesk · 3 orders need attention · 5 orders in progress')
    expect(tray.title).toBeNull()
  })

  it('puts the short title beside the icon on macOS', () => {
    const t = createTray(deps('darwin'))
    t.show(trayState({ sync: [], attention: 0, inProgress: 2 }))
    expect(fake.FakeTray.last!.title).toBe('2 in progress')
    expect(fake.FakeTray.last!.image.path).toBe('/res/tray/tray-progress-light.png')
  })

  it('follows the OS theme with the dark variant', () => {
    const t = createTray(deps('win32'))
    t.show(
      trayState({
        sync: [syncState({ lastError: { kind: 'network', message: 'down', retryable: true } })],
        attention: 0,
        inProgress: 0
      })
    )
    expect(fake.FakeTray.last!.image.path).toBe('/res/tray/tray-error-light.png')
    fake.theme.shouldUseDarkColors = true
    fake.theme.emit('updated')
    expect(fake.FakeTray.last!.image.path).toBe('/res/tray/tray-error-dark.png')
    expect(fake.FakeTray.last!.tooltip).toMatch(/^Rampdesk · Offline/)
  })

  it('keeps the template icon when a variant file is missing', () => {
    fake.missing.add('/res/tray/tray-idle-light.png')
    const t = createTray(deps('linux'))
    t.show(trayState({ sync: [], attention: 0, inProgress: 0 }))
    expect(fake.FakeTray.last!.image.path).toBe('/res/trayTemplate.png')
    expect(fake.FakeTray.last!.tooltip).toBe('Rampdesk · Nothing needs you')
  })
})

describe('wake events', () => {
  beforeEach(() => {
    vi.useFakeTimers()
    fake.online.value = true
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('resume from sleep and screen unlock call wake, until stopped', () => {
    const woke: string[] = []
    const stop = onWake((r) => woke.push(r))
    fake.power.emit('resume')
    fake.power.emit('unlock-screen')
    fake.power.emit('suspend')
    expect(woke).toEqual(['resume', 'unlock-screen'])
    stop()
    fake.power.emit('resume')
    expect(woke).toHaveLength(2)
  })

  it('the network coming back calls wake once, not while it stays up', () => {
    const woke: string[] = []
    const stop = onWake((r) => woke.push(r), { networkCheckMs: 1000 })
    vi.advanceTimersByTime(3000)
    expect(woke).toEqual([])
    fake.online.value = false
    vi.advanceTimersByTime(2000)
    fake.online.value = true
    vi.advanceTimersByTime(3000)
    expect(woke).toEqual(['online'])
    stop()
    fake.online.value = false
    vi.advanceTimersByTime(1000)
    fake.online.value = true
    vi.advanceTimersByTime(1000)
    expect(woke).toEqual(['online'])
  })
})

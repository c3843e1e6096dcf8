// Every contract channel has a handler in createServices().handlers (and nothing else
// does), and the read channels answer in the contract's output shapes on the embedded
// sandbox. The preload side is covered in test/electron/ipc.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { channelNames, channels } from '../../../src/shared/ipc/contract'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
const shown: unknown[] = []
const autostart: boolean[] = []

beforeAll(async () => {
  h = await startServicesHarness({
    shell: {
      showMain: (order) => void shown.push(order ?? null),
      setStartAtLogin: async (enabled) => void autostart.push(enabled),
      locale: () => 'en-IN'
    }
  })
})
afterAll(async () => {
  await h?.close()
})

describe('contract coverage', () => {
  it('has exactly one handler per contract channel', () => {
    const handlerKeys = Object.keys(h.services.handlers).sort()
    const missing = channelNames.filter((c) => typeof (h.services.handlers as Record<string, unknown>)[c] !== 'function')
    const extra = handlerKeys.filter((k) => !(k in channels))
    expect(missing, `channels without a handler: ${missing.join(', ')}`).toEqual([])
    expect(extra, `handlers for no channel: ${extra.join(', ')}`).toEqual([])
    expect(handlerKeys).toEqual([...channelNames].sort())
  })

  it('the read channels answer in the contract shapes', async () => {
    const info = await h.call('app:info', {})
    expect(info.shell).toBe('web')
    // The shell's locale (Electron's app.getLocale()) is the one the window formats with.
    expect(info.locale).toBe('en-IN')
    expect(info.profile.kind).toBe('sandbox')
    const list = await h.call('profiles:list', {})
    expect(list.activeId).toBe('sandbox')
    await h.call('settings:get', {})
    await h.call('config:get', {})
    await h.call('bank:get', {})
    await h.call('tickers:get', { fiatType: 1 })
    await h.call('sync:state', {})
    await h.call('budget:get', {})
    await h.call('orders:watched', {})
    await h.call('webhooks:inbox', {})
    await h.call('webhooks:deliveries', { offset: 0, limit: 10 })
    await h.call('audit:list', { limit: 10 })
    await h.call('secrets:status', { profileId: 'sandbox' })
    expect(h.contractViolations).toEqual([])
  })

  it('shell actions go to the shell: external links (http(s) only), showing the main window, start at login', async () => {
    await h.call('app:openExternal', { url: 'https://etherscan.io/tx/0xabc' })
    expect(h.services.openedUrls).toEqual(['https://etherscan.io/tx/0xabc'])
    const js = await h.envelope('app:openExternal', { url: 'javascript:alert(1)' })
    expect(js.ok).toBe(false)
    const file = await h.envelope('app:openExternal', { url: 'file:///etc/passwd' })
    expect(file.ok).toBe(false)
    expect(h.services.openedUrls).toHaveLength(1)

    await h.call('app:showMain', { order: { type: 2, orderId: 100200 } })
    await h.call('app:showMain', {})
    expect(shown).toEqual([{ type: 2, orderId: 100200 }, null])

    await h.call('settings:update', { startAtLogin: true })
    await h.call('settings:update', { theme: 'dark' })
    expect(autostart).toEqual([true])
    expect((await h.call('settings:get', {})).startAtLogin).toBe(true)
    const audit = await h.call('audit:list', { limit: 10 })
    expect(audit.rows.filter((r) => r.action === 'settings.change')).toHaveLength(2)
  })

  it('refuses input the contract refuses, naming the field', async () => {
    const r = await h.envelope('orders:query', { filter: { type: 3 }, offset: 0, limit: 10 })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.kind).toBe('invalid_input')
      expect(r.error.message).toContain('filter.type')
    }
  })
})

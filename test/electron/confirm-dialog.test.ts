// The desktop shell's confirmation of changes that weaken security, with 'electron'
// mocked: a native warning box with Cancel first, default and the Esc answer; only the
// confirming button confirms. Through the real services and the real IPC dispatch, a
// window that asks for plaintext secrets, an inbox beyond loopback or (on a live profile)
// a new webhook URL changes nothing unless the operator presses that button.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { dialogState, electronMock, FakeBrowserWindow, FakeWebContents } from './electron-mock'
import type { Services } from '../../src/main/services'
import type { ChannelName } from '../../src/shared/ipc/contract'

vi.mock('electron', () => electronMock())

const { confirmDialogOptions, confirmWithDialog } = await import('../../src/main/electron/confirm-dialog')
const { dispatch } = await import('../../src/main/electron/ipc')
const { createServices } = await import('../../src/main/services')
const { startSandbox } = await import('../../src/sandbox')
const { memorySafeStorage } = await import('../support/memory-safe-storage')

const prompt = { change: 'x', title: 'Do it', message: 'It will happen.', detail: 'Why it matters.', confirmLabel: 'Go ahead' }

beforeEach(() => {
  dialogState.shown.length = 0
  dialogState.nextResponse = 0
})

describe('the native confirmation box', () => {
  it('is a warning with Cancel first, as the default and the Esc answer', () => {
    expect(confirmDialogOptions(prompt)).toEqual({
      type: 'warning',
      title: 'Do it',
      message: 'It will happen.',
      detail: 'Why it matters.',
      buttons: ['Cancel', 'Go ahead'],
      defaultId: 0,
      cancelId: 0,
      noLink: true
    })
  })

  it('confirms only on the confirming button, and is modal to the window it is given', async () => {
    const win = new FakeBrowserWindow({})
    expect(await confirmWithDialog(win as never, prompt)).toBe(false)
    expect(dialogState.shown[0]!.parent).toBe(win)
    dialogState.nextResponse = 1
    expect(await confirmWithDialog(null, prompt)).toBe(true)
    expect(dialogState.shown[1]!.parent).toBeNull()
  })
})

describe('through the services and the IPC dispatch', () => {
  let dataDir: string
  let services: Services
  const win = new FakeWebContents()
  const event = { sender: win, senderFrame: { url: 'app://rampdesk/index.html?view=main', parent: null } }
  const policy = { isOurWebContents: (wc: unknown) => wc === win, isAppUrl: (url: string) => url.startsWith('app://rampdesk/') }
  const call = (channel: ChannelName, input: unknown) => dispatch(channel, services.handlers, event as never, input, policy)

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-confirm-'))
    services = await createServices({
      dataDir,
      exportDir: join(dataDir, 'exports'),
      version: '0.0.0-test',
      shellKind: 'electron',
      safeStorage: memorySafeStorage(),
      sandbox: { orders: 20, autoGenerate: false },
      shell: { confirm: (p) => confirmWithDialog(null, p) }
    })
    await services.start()
  })
  afterAll(async () => {
    await services?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it.each([
    ['plaintext secrets', { allowPlaintextSecrets: true }, 'Allow API secrets stored in plain text'],
    ['the inbox beyond loopback', { inbox: { enabled: true, host: '0.0.0.0', port: 0 } }, 'Open the webhook inbox beyond this computer']
  ])('%s: Cancel changes nothing; the confirming button applies it; both are audit-logged', async (_what, patch, title) => {
    const before = await services.handlers['settings:get']({})
    const refused = await call('settings:update', patch)
    expect(refused).toMatchObject({ ok: false, error: { kind: 'not_confirmed', message: expect.stringContaining('nothing was changed') } })
    expect(dialogState.shown.at(-1)!.options.title).toBe(title)
    expect(await services.handlers['settings:get']({})).toEqual(before)

    dialogState.nextResponse = 1
    const applied = await call('settings:update', patch)
    expect(applied).toMatchObject({ ok: true, value: patch })
    const audit = await services.handlers['audit:list']({ limit: 10 })
    const asked = audit.rows.filter((r) => r.action === 'security.confirmation').slice(0, 2)
    expect(asked.map((r) => r.detail)).toEqual([
      expect.objectContaining({ confirmed: true, via: 'dialog' }),
      expect.objectContaining({ confirmed: false, via: 'dialog' })
    ])
    // Turning it off again needs no confirmation.
    dialogState.nextResponse = 0
    const shown = dialogState.shown.length
    expect(await call('settings:update', before)).toMatchObject({ ok: true })
    expect(dialogState.shown.length).toBe(shown)
  })

  it('a changed webhook URL on a live profile is confirmed in main and names the URL it replaces; the sandbox profile needs none', async () => {
    expect(await call('webhooks:setUrl', { url: 'http://127.0.0.1:9/first' })).toMatchObject({ ok: true })
    expect(dialogState.shown).toEqual([])

    const live = await startSandbox({ orders: 5, autoGenerate: false, apiKey: 'live-key', apiSecret: 'live-secret-0123456789' })
    try {
      const p = await services.handlers['profiles:create']({
        name: 'Live',
        baseUrl: live.url,
        apiKey: 'live-key',
        serviceName: 'service',
        kind: 'live'
      })
      await services.handlers['secrets:set']({ profileId: p.id, secret: 'live-secret-0123456789' })
      await services.handlers['profiles:switch']({ id: p.id })
      expect(await call('webhooks:lastUrl', {})).toEqual({ ok: true, value: { url: null, at: null } })

      const refused = await call('webhooks:setUrl', { url: 'https://merchant.example/hook' })
      expect(refused).toMatchObject({ ok: false, error: { kind: 'not_confirmed' } })
      expect(dialogState.shown.at(-1)!.options).toMatchObject({
        title: 'Change the production webhook URL',
        detail: expect.stringContaining('not known')
      })
      expect(live.control.webhookUrl('live-key')).toBeUndefined()

      dialogState.nextResponse = 1
      expect(await call('webhooks:setUrl', { url: 'https://merchant.example/hook' })).toMatchObject({ ok: true })
      expect(live.control.webhookUrl('live-key')).toBe('https://merchant.example/hook')
      expect(await call('webhooks:lastUrl', {})).toMatchObject({ ok: true, value: { url: 'https://merchant.example/hook' } })

      dialogState.nextResponse = 0
      expect(await call('webhooks:setUrl', { url: 'https://attacker.example/hook' })).toMatchObject({ ok: false })
      expect(dialogState.shown.at(-1)!.options.detail).toContain('It replaces https://merchant.example/hook')
      expect(live.control.webhookUrl('live-key')).toBe('https://merchant.example/hook')
    } finally {
      await services.handlers['profiles:switch']({ id: 'sandbox' })
      await live.close()
    }
  })
})

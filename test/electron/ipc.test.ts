// The IPC wrapper: every contract channel registered through one handle(), the sender
// checked (our window, our page, top frame), the input parsed before any handler runs,
// and errors returned as envelopes. And the preload: one method per channel, on(event)
// with unsubscribe, nothing raw exposed.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { electronMock, exposed, invoked, ipcMainHandlers, rendererListeners } from './electron-mock'
import { channelNames, eventChannel, eventNames, methodName, type ContractHandlers } from '../../src/shared/ipc/contract'

vi.mock('electron', () => electronMock())

const { registerIpc, isTrustedSender, sendEvent } = await import('../../src/main/electron/ipc')

const ourWc = { id: 1 }
const policy = {
  isOurWebContents: (wc: unknown) => wc === ourWc,
  isAppUrl: (url: string) => url.startsWith('file:///app/out/renderer/')
}
const goodEvent = { sender: ourWc, senderFrame: { url: 'file:///app/out/renderer/index.html?view=main', parent: null } }

function handlersRecording(calls: string[]): ContractHandlers {
  return Object.fromEntries(
    channelNames.map((c) => [
      c,
      async (input: unknown) => {
        calls.push(c)
        return { channel: c, input }
      }
    ])
  ) as unknown as ContractHandlers
}

beforeEach(() => ipcMainHandlers.clear())

describe('registerIpc', () => {
  it('registers exactly the contract channels and removes them again', () => {
    const dispose = registerIpc(handlersRecording([]), policy)
    expect([...ipcMainHandlers.keys()].sort()).toEqual([...channelNames].sort())
    dispose()
    expect(ipcMainHandlers.size).toBe(0)
  })

  it('answers a trusted sender with the handler value', async () => {
    const calls: string[] = []
    registerIpc(handlersRecording(calls), policy)
    const r = await ipcMainHandlers.get('orders:watch')!(goodEvent, { type: 1, orderId: 7, watch: true })
    expect(r).toEqual({ ok: true, value: { channel: 'orders:watch', input: { type: 1, orderId: 7, watch: true } } })
    expect(calls).toEqual(['orders:watch'])
  })

  it.each([
    ['a foreign webContents', { ...goodEvent, sender: { id: 2 } }],
    ['a foreign page', { ...goodEvent, senderFrame: { url: 'https://evil.example/', parent: null } }],
    ['a subframe of our page', { ...goodEvent, senderFrame: { url: goodEvent.senderFrame.url, parent: {} } }],
    ['no frame', { ...goodEvent, senderFrame: null }]
  ])('refuses %s without calling the handler', async (_what, event) => {
    const calls: string[] = []
    registerIpc(handlersRecording(calls), policy)
    const r = (await ipcMainHandlers.get('secrets:set')!(event, { profileId: 'sandbox', secret: 'abcdefgh12' })) as {
      ok: boolean
      error: { kind: string }
    }
    expect(r.ok).toBe(false)
    expect(r.error.kind).toBe('forbidden_sender')
    expect(calls).toEqual([])
  })

  it('refuses invalid input with a validation error naming the field', async () => {
    const calls: string[] = []
    registerIpc(handlersRecording(calls), policy)
    const r = (await ipcMainHandlers.get('orders:watch')!(goodEvent, { type: 3, orderId: 'x', watch: true })) as {
      ok: boolean
      error: { kind: string; message: string }
    }
    expect(r.ok).toBe(false)
    expect(r.error.kind).toBe('invalid_input')
    expect(r.error.message).toMatch(/orders:watch: type/)
    const extra = (await ipcMainHandlers.get('settings:get')!(goodEvent, { sneaky: true })) as { ok: boolean }
    expect(extra.ok).toBe(false)
    expect(calls).toEqual([])
  })

  it('turns a handler failure into an error envelope', async () => {
    const handlers = handlersRecording([])
    ;(handlers as unknown as Record<string, unknown>)['sync:now'] = async () => {
      throw Object.assign(new Error('boom'), { kind: 'network', retryable: true })
    }
    registerIpc(handlers, policy)
    const r = await ipcMainHandlers.get('sync:now')!(goodEvent, {})
    expect(r).toEqual({ ok: false, error: { kind: 'network', message: 'boom', retryable: true } })
  })

  it('isTrustedSender needs both our webContents and our URL', () => {
    expect(isTrustedSender(goodEvent as never, policy)).toBe(true)
    expect(isTrustedSender({ ...goodEvent, sender: {} } as never, policy)).toBe(false)
  })

  it('sendEvent skips destroyed windows', () => {
    const a = { isDestroyed: () => false, send: vi.fn() }
    const b = { isDestroyed: () => true, send: vi.fn() }
    sendEvent([a, b] as never, 'clock:skew', { skewMs: 5 })
    expect(a.send).toHaveBeenCalledWith(eventChannel('clock:skew'), { skewMs: 5 })
    expect(b.send).not.toHaveBeenCalled()
  })
})

describe('preload', () => {
  it('exposes one method per channel and on(), and nothing else', async () => {
    await import('../../src/preload/index')
    const api = exposed.rampdesk as Record<string, unknown>
    expect(api).toBeDefined()
    const expected = [...channelNames.map((c) => methodName(c)), 'on'].sort()
    expect(Object.keys(api).sort()).toEqual(expected)
    expect(Object.isFrozen(api)).toBe(true)
    for (const k of Object.keys(api)) expect(typeof api[k]).toBe('function')
    expect(api).not.toHaveProperty('ipcRenderer')
    expect(api).not.toHaveProperty('invoke')
  })

  it('each method invokes its own channel', async () => {
    await import('../../src/preload/index')
    const api = exposed.rampdesk as Record<string, (i: unknown) => Promise<unknown>>
    invoked.length = 0
    for (const c of channelNames) await api[methodName(c)]!({ probe: c })
    expect(invoked.map((i) => i.channel)).toEqual(channelNames)
  })

  it('on() subscribes to known events only and returns an unsubscribe', async () => {
    await import('../../src/preload/index')
    const api = exposed.rampdesk as { on: (e: string, fn: (p: unknown) => void) => () => void }
    const got: unknown[] = []
    const off = api.on('order:changed', (p) => got.push(p))
    const set = rendererListeners.get(eventChannel('order:changed'))!
    for (const fn of set) fn({}, { hello: 1 })
    expect(got).toEqual([{ hello: 1 }])
    off()
    expect(rendererListeners.get(eventChannel('order:changed'))!.size).toBe(0)
    expect(() => api.on('not:an-event', () => undefined)).toThrow(/unknown event/)
    expect(eventNames.length).toBeGreaterThan(5)
  })
})

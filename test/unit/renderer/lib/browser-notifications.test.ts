// Order notifications in the browser harness: the permission is asked once per browser
// (again only when the operator asks from Settings), and a notify:order event becomes one
// browser notification per order, whose click opens the order.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type * as Module from '../../../../src/renderer/src/lib/browser-notifications'

const main = contractBridge({})
let permission: 'default' | 'granted' | 'denied' = 'default'
let answer: 'granted' | 'denied' = 'granted'
let asked = 0
const shown: Array<{ title: string; body?: string; tag?: string; onclick?: () => void }> = []
const store = new Map<string, string>()

class FakeNotification {
  static get permission() {
    return permission
  }
  static async requestPermission() {
    asked++
    permission = answer
    return answer
  }
  onclick: (() => void) | null = null
  constructor(title: string, o: { body?: string; tag?: string } = {}) {
    const entry: (typeof shown)[number] = { title, ...o }
    shown.push(entry)
    queueMicrotask(() => {
      if (this.onclick) entry.onclick = this.onclick
    })
  }
  close() {}
}

let mod: typeof Module
beforeAll(async () => {
  vi.stubGlobal('window', { rampdesk: main.bridge, focus: () => undefined })
  vi.stubGlobal('Notification', FakeNotification)
  vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) })
  mod = await import('../../../../src/renderer/src/lib/browser-notifications')
})
afterAll(() => void vi.unstubAllGlobals())
beforeEach(() => {
  permission = 'default'
  asked = 0
  shown.length = 0
  store.clear()
})
const settle = () => new Promise<void>((r) => setTimeout(r, 0))

describe('browser notifications', () => {
  it('asks for the permission once: a refusal is not asked again, unless the operator asks', async () => {
    answer = 'denied'
    expect(await mod.askPermission()).toBe('denied')
    permission = 'default' // as a browser that forgot the answer
    expect(await mod.askPermission()).toBe('default')
    expect(asked).toBe(1)
    expect(await mod.askPermission(true)).toBe('denied')
    expect(asked).toBe(2)
  })

  it('shows a notify:order as one notification per order, opening the order on click', async () => {
    answer = 'granted'
    const opened: unknown[] = []
    const off = mod.startBrowserNotifications((o) => opened.push(o))
    main.emit('notify:order', { title: 'Onramp order 7: withdrawn (15)', body: 'was created (0)', order: { type: 1, orderId: 7 } })
    await settle()
    main.emit('notify:order', { title: 'Onramp order 8: timed out (-1)', body: 'was created (0)', order: { type: 1, orderId: 8 } })
    await settle()
    expect(asked).toBe(1)
    expect(shown.map((n) => [n.title, n.tag])).toEqual([
      ['Onramp order 7: withdrawn (15)', 'rampdesk-1-7'],
      ['Onramp order 8: timed out (-1)', 'rampdesk-1-8']
    ])
    shown[0]!.onclick?.()
    expect(opened).toEqual([{ type: 1, orderId: 7 }])
    off()
  })

  it('shows nothing where the operator refused', async () => {
    answer = 'denied'
    const off = mod.startBrowserNotifications(() => undefined)
    main.emit('notify:order', { title: 'x', body: 'y' })
    await settle()
    expect(shown).toEqual([])
    off()
  })
})

// The main window's view, kept in the URL hash, and the request to open one order.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type * as NavModule from '../../../../src/renderer/src/lib/nav.svelte'

const location = { hash: '#/orders?type=2' }
const win = new EventTarget()
let nav: typeof NavModule.nav

beforeAll(async () => {
  vi.stubGlobal('location', location)
  vi.stubGlobal('window', win)
  ;({ nav } = await import('../../../../src/renderer/src/lib/nav.svelte'))
  nav.start()
})
afterAll(() => void vi.unstubAllGlobals())

const hashChange = (hash: string) => {
  location.hash = hash
  win.dispatchEvent(new Event('hashchange'))
}

describe('nav', () => {
  it('starts on the view the hash names, ignoring its query', () => {
    expect(nav.view).toBe('orders')
  })

  it('follows the hash as it changes, with or without the slash', () => {
    hashChange('#/webhooks')
    expect(nav.view).toBe('webhooks')
    hashChange('#settings')
    expect(nav.view).toBe('settings')
  })

  it('shows the tickers for a hash that names no view', () => {
    hashChange('#/nowhere')
    expect(nav.view).toBe('tickers')
    hashChange('')
    expect(nav.view).toBe('tickers')
  })

  it('go() writes the hash and switches at once', () => {
    nav.go('bank')
    expect(location.hash).toBe('#/bank')
    expect(nav.view).toBe('bank')
  })

  it('openOrder() leaves the order for the orders view and goes there', () => {
    nav.openOrder(2, 100042)
    expect(nav.pendingOrder).toEqual({ type: 2, orderId: 100042 })
    expect(nav.view).toBe('orders')
    expect(location.hash).toBe('#/orders')
  })
})

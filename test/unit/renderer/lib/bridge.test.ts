// The renderer's one way to main. In a plain browser it is the web harness: POST
// /rpc/<channel> (XMLHttpRequest) for calls and one EventSource on /events for every subscription; an
// answer that is not an envelope (a proxy's error page, the harness gone) still comes
// back as an ErrorInfo the views can show. Under Electron it is the preload's bridge.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type * as BridgeModule from '../../../../src/renderer/src/lib/bridge'

type Bridge = typeof BridgeModule

/** A fresh copy of the module: it picks its bridge once, when it loads. */
async function load(window: object): Promise<Bridge> {
  vi.resetModules()
  vi.stubGlobal('window', window)
  return import('../../../../src/renderer/src/lib/bridge')
}

/** Stands in for the browser's EventSource: records what was opened, lets the test push messages. */
class FakeEventSource extends EventTarget {
  static opened: FakeEventSource[] = []
  constructor(readonly url: string) {
    super()
    FakeEventSource.opened.push(this)
  }
  push(event: string, payload: unknown): void {
    this.dispatchEvent(Object.assign(new Event(event), { data: JSON.stringify(payload) }))
  }
}

/** What the fake server answers: a status and body, or a request that fails (the harness gone). */
type FakeAnswer = { status: number; statusText?: string; text: string } | 'network error'

/** Stands in for the browser's XMLHttpRequest: records each request, answers with FakeXhr.answer. */
class FakeXhr {
  static sent: Array<{ method: string; url: string; headers: Record<string, string>; body: string }> = []
  static answer: FakeAnswer = { status: 200, text: '{"ok":true,"value":{"ok":true}}' }
  status = 0
  statusText = ''
  responseText = ''
  onload: (() => void) | null = null
  onerror: (() => void) | null = null
  onabort: (() => void) | null = null
  #request = { method: '', url: '', headers: {} as Record<string, string>, body: '' }
  open(method: string, url: string): void {
    this.#request.method = method
    this.#request.url = url
  }
  setRequestHeader(name: string, value: string): void {
    this.#request.headers[name] = value
  }
  send(body: string): void {
    FakeXhr.sent.push({ ...this.#request, body })
    const a = FakeXhr.answer
    queueMicrotask(() => {
      if (a === 'network error') return this.onerror?.()
      this.status = a.status
      this.statusText = a.statusText ?? ''
      this.responseText = a.text
      this.onload?.()
    })
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
  FakeEventSource.opened = []
  FakeXhr.sent = []
})

describe('the web harness bridge', () => {
  it('posts the input as JSON to /rpc/<channel> and returns the value of the envelope', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    FakeXhr.answer = { status: 200, text: JSON.stringify({ ok: true, value: { ok: true } }) }
    const b = await load({})
    expect(b.shell).toBe('web')
    await expect(b.call('tickers:visibility', { view: 'main', visible: true })).resolves.toEqual({ ok: true })
    expect(FakeXhr.sent).toEqual([
      {
        method: 'POST',
        url: '/rpc/tickers:visibility',
        headers: { 'Content-Type': 'application/json' },
        body: '{"view":"main","visible":true}'
      }
    ])
  })

  it("throws main's error as a UiError carrying the ErrorInfo", async () => {
    const error = { kind: 'invalid_input', message: 'view: expected main or tray', retryable: false }
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    FakeXhr.answer = { status: 200, text: JSON.stringify({ ok: false, error }) }
    const b = await load({})
    const e = await b.call('sync:now', {}).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(b.UiError)
    expect((e as InstanceType<Bridge['UiError']>).info).toEqual(error)
  })

  it('makes an answer that is not an envelope an http error with its status and the start of its text', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    FakeXhr.answer = { status: 502, statusText: 'Bad Gateway', text: `<html>${'x'.repeat(500)}</html>` }
    const b = await load({})
    const e = (await b.call('sync:now', {}).catch((x: unknown) => x)) as InstanceType<Bridge['UiError']>
    expect(e.info).toMatchObject({ kind: 'http', httpStatus: 502, retryable: true })
    expect(e.info.message).toHaveLength(200)
    FakeXhr.answer = { status: 404, statusText: 'Not Found', text: '' }
    const empty = (await b.call('sync:now', {}).catch((x: unknown) => x)) as InstanceType<Bridge['UiError']>
    expect(empty.info).toEqual({ kind: 'http', httpStatus: 404, message: 'Not Found', retryable: false })
  })

  it('says the harness is unreachable when the request itself fails', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    FakeXhr.answer = 'network error'
    const b = await load({})
    const e = (await b.call('sync:now', {}).catch((x: unknown) => x)) as InstanceType<Bridge['UiError']>
    expect(e.info).toEqual({ kind: 'network', message: 'the Rampdesk harness is unreachable (the request failed)', retryable: true })
  })

  it('opens one event stream on the first subscription and hands each event to its listeners until they unsubscribe', async () => {
    vi.stubGlobal('EventSource', FakeEventSource)
    const b = await load({})
    expect(FakeEventSource.opened).toHaveLength(0)
    const skews: number[] = []
    const other: number[] = []
    const off = b.on('clock:skew', (s) => skews.push(s.skewMs))
    b.on('clock:skew', (s) => other.push(s.skewMs))
    b.on('budget:changed', () => undefined)
    expect(FakeEventSource.opened.map((s) => s.url)).toEqual(['/events'])
    const stream = FakeEventSource.opened[0]!
    stream.push('clock:skew', { skewMs: 120 })
    off()
    stream.push('clock:skew', { skewMs: -80 })
    expect(skews).toEqual([120])
    expect(other).toEqual([120, -80])
  })
})

describe('the Electron bridge', () => {
  it("uses the preload's window.rampdesk when there is one", async () => {
    const main = contractBridge({ 'sync:now': async () => ({ ok: true }) })
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    const b = await load({ rampdesk: main.bridge })
    expect(b.shell).toBe('electron')
    await expect(b.call('sync:now', {})).resolves.toEqual({ ok: true })
    expect(main.calls).toEqual([{ channel: 'sync:now', input: {} }])
    expect(FakeXhr.sent).toEqual([])
    const seen: boolean[] = []
    b.on('profile:changed', () => seen.push(true))
    main.emit('profile:changed', {
      id: 'sandbox',
      name: 'Sandbox',
      kind: 'sandbox',
      baseUrl: 'http://x',
      serviceName: 'service',
      apiKey: ''
    })
    expect(seen).toEqual([true])
  })
})

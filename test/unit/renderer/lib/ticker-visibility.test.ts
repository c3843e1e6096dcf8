// A window tells main while it shows tickers, so prices are polled only while seen.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { contractBridge } from '../../../support/contract-bridge'
import type { ChannelInput } from '../../../../src/shared/ipc/contract'
import type * as TickerVisibilityModule from '../../../../src/renderer/src/lib/ticker-visibility'

const sent: ChannelInput<'tickers:visibility'>[] = []
const main = contractBridge({
  'tickers:visibility': async (v) => {
    sent.push(v)
    return { ok: true }
  }
})
const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' as DocumentVisibilityState })
let trackTickerVisibility: typeof TickerVisibilityModule.trackTickerVisibility

beforeAll(async () => {
  vi.stubGlobal('window', { rampdesk: main.bridge })
  vi.stubGlobal('document', doc)
  ;({ trackTickerVisibility } = await import('../../../../src/renderer/src/lib/ticker-visibility'))
})
afterAll(() => void vi.unstubAllGlobals())

const settle = () => new Promise<void>((r) => setTimeout(r, 0))
const visibility = async (state: DocumentVisibilityState) => {
  doc.visibilityState = state
  doc.dispatchEvent(new Event('visibilitychange'))
  await settle()
}

describe('trackTickerVisibility', () => {
  it('says shown on mount, hidden and shown as the window is, and hidden on unmount, then stops listening', async () => {
    const stop = trackTickerVisibility('tray')
    await settle()
    await visibility('hidden')
    await visibility('visible')
    stop()
    await settle()
    await visibility('hidden')
    expect(sent).toEqual([
      { view: 'tray', visible: true },
      { view: 'tray', visible: false },
      { view: 'tray', visible: true },
      { view: 'tray', visible: false }
    ])
  })

  it('a window mounted while hidden says so', async () => {
    sent.length = 0
    doc.visibilityState = 'hidden'
    const stop = trackTickerVisibility('main')
    await settle()
    stop()
    expect(sent[0]).toEqual({ view: 'main', visible: false })
  })

  it('tells the view once main knows it is shown, so it can ask when the next poll is', async () => {
    sent.length = 0
    doc.visibilityState = 'visible'
    const shown: number[] = []
    const stop = trackTickerVisibility('main', () => shown.push(sent.length))
    await settle()
    // After main had the news, not before.
    expect(shown).toEqual([1])
    await visibility('hidden')
    expect(shown).toEqual([1])
    await visibility('visible')
    expect(shown).toEqual([1, 3])
    stop()
  })
})

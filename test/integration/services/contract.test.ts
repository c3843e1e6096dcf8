// Every contract channel has a handler in createServices().handlers (and nothing else
// does), and the read channels answer in the contract's output shapes on the embedded
// sandbox. The preload side is covered in test/electron/ipc.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { channelNames, channels } from '../../../src/shared/ipc/contract'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness()
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

  it('refuses input the contract refuses, naming the field', async () => {
    const r = await h.envelope('orders:query', { filter: { type: 3 }, offset: 0, limit: 10 })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error.kind).toBe('invalid_input')
      expect(r.error.message).toContain('filter.type')
    }
  })
})

// invokeChannel, the one call path every shell uses: the input parsed with the contract
// before the handler runs, the handler's value or error answered as an envelope.
import { describe, expect, it } from 'vitest'
import { invokeChannel } from '../../../../src/main/handlers/invoke'
import { ApiError } from '../../../../src/shared/api/errors'
import { channelNames, type ChannelName, type ContractHandlers } from '../../../../src/shared/ipc/contract'

function recording(
  calls: Array<{ channel: string; input: unknown }>,
  override: Partial<Record<ChannelName, unknown>> = {}
): ContractHandlers {
  return Object.fromEntries(
    channelNames.map((c) => [
      c,
      override[c] ??
        (async (input: unknown) => {
          calls.push({ channel: c, input })
          return { ok: true }
        })
    ])
  ) as unknown as ContractHandlers
}

describe('invokeChannel', () => {
  it('hands the handler the parsed input (defaults applied) and answers its value', async () => {
    const calls: Array<{ channel: string; input: unknown }> = []
    const r = await invokeChannel(recording(calls), 'orders:query', { filter: { type: 1, search: '  abc  ' }, offset: 0, limit: 10 })
    expect(r).toEqual({ ok: true, value: { ok: true } })
    // The parse trims the search and fills in the default sort: the handler sees the contract's output.
    expect(calls).toEqual([
      { channel: 'orders:query', input: { filter: { type: 1, search: 'abc' }, sort: 'updatedAt:desc', offset: 0, limit: 10 } }
    ])
  })

  it('treats a missing input as {}', async () => {
    const calls: Array<{ channel: string; input: unknown }> = []
    expect(await invokeChannel(recording(calls), 'settings:get', undefined)).toEqual({ ok: true, value: { ok: true } })
    expect(calls).toEqual([{ channel: 'settings:get', input: {} }])
  })

  it('refuses invalid input naming the field, without running the handler', async () => {
    const calls: Array<{ channel: string; input: unknown }> = []
    const r = await invokeChannel(recording(calls), 'orders:watch', { type: 3, orderId: 1, watch: true })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.kind).toBe('invalid_input')
    expect(r.error.message).toMatch(/^invalid input for orders:watch: type/)
    expect(calls).toEqual([])
  })

  it('refuses an unknown channel', async () => {
    const calls: Array<{ channel: string; input: unknown }> = []
    const r = await invokeChannel(recording(calls), 'orders:drop' as ChannelName, {})
    expect(r).toEqual({ ok: false, error: { kind: 'unknown_channel', message: 'unknown channel orders:drop', retryable: false } })
    expect(calls).toEqual([])
  })

  it('answers a handler failure as data, keeping what the operator is told', async () => {
    const handlers = recording([], {
      'quotes:get': async () => {
        throw new ApiError({ kind: 'rate_limited', message: 'quotes is rate limited', endpoint: 'quotes', nextSlotAt: 5, retryable: true })
      },
      'sync:now': async () => {
        throw new Error('boom')
      }
    })
    const quote = await invokeChannel(handlers, 'quotes:get', { type: 2, coinId: 54, chainId: 1, quantity: '1' })
    expect(quote).toEqual({
      ok: false,
      error: { kind: 'rate_limited', message: 'quotes is rate limited', endpoint: 'quotes', nextSlotAt: 5, retryable: true }
    })
    expect(await invokeChannel(handlers, 'sync:now', {})).toEqual({
      ok: false,
      error: { kind: 'internal', message: 'boom', retryable: false }
    })
  })
})

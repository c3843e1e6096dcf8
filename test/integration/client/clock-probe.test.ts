// The clock probe over HTTP as the app ships it: before its first signed call the client
// reads currentTimestamp, so a service whose clock is behind ours never sees a timestamp
// "Ahead of Time"; where currentTimestamp is absent (404) it signs on Date headers and
// recovers from a refusal with one re-signed request.
import { afterEach, describe, expect, it } from 'vitest'
import type { Sandbox } from '../../../src/sandbox'
import { clientFor, quietSandbox, recordRequests } from './support'

let sb: Sandbox | undefined
afterEach(async () => {
  await sb?.close()
  sb = undefined
})

describe('clock probe', () => {
  it('a service two minutes behind: currentTimestamp first, then every signed call passes at once', async () => {
    sb = await quietSandbox({ clockOffsetMs: -120_000 })
    const client = clientFor(sb, { clockProbe: true })
    const events = recordRequests(client)
    await client.allCoinLimits({ fiatType: 1 })
    await client.bankDetails()
    expect(events.map((e) => [e.endpoint, e.httpStatus])).toEqual([
      ['currentTimestamp', 200],
      ['allCoinLimits', 200],
      ['bankDetails', 200]
    ])
    expect(client.clock.info()).toMatchObject({ source: 'currentTimestamp' })
    expect(Math.abs(client.clock.skewMs + 120_000)).toBeLessThan(2_000)
    expect(client.serverTimeAvailable).toBe(true)
    await client.close()
  })

  it('no currentTimestamp (404): one refused call, a Date header, one re-signed call; not asked again for an hour', async () => {
    sb = await quietSandbox({ clockOffsetMs: -120_000, readings: { currentTimestamp: false } })
    const client = clientFor(sb, { clockProbe: true })
    const events = recordRequests(client)
    await client.allCoinLimits({ fiatType: 1 })
    await client.allCoinLimits({ fiatType: 2 })
    const seq = events.map((e) => `${e.endpoint} ${e.httpStatus ?? '-'}`)
    expect(seq[0]).toBe('currentTimestamp 404')
    expect(seq.filter((s) => s.startsWith('currentTimestamp'))).toHaveLength(1)
    expect(seq.at(-1)).toBe('allCoinLimits 200')
    expect(seq.filter((s) => s === 'allCoinLimits 401').length).toBeLessThanOrEqual(1)
    expect(client.serverTimeAvailable).toBe(false)
    expect(client.clock.info().source).toBe('date')
    await client.close()
  })
})

// The benches' simulated network: a request reaches the server after a virtual delay, and a
// request cancelled during that delay ends at once without the clock being run, so the
// app's stop() (which aborts its requests and waits for them) returns with the clock idle.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { NETWORK_DELAY_MS, simulatedNetwork } from '../../../bench/lib/sim-network'
import { VirtualClock } from '../../../bench/lib/virtual-clock'

const T0 = Date.parse('2026-01-01T00:00:00.000Z')
let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
  server = undefined
})

async function listen(): Promise<string> {
  server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

describe('simulatedNetwork', () => {
  it('delivers a request after its virtual delay', async () => {
    const url = await listen()
    const clock = new VirtualClock(T0)
    const net = simulatedNetwork(clock, () => 0.5)
    let answeredAt = 0
    clock.schedule(() => void net.request({ method: 'GET', url }).then(() => (answeredAt = clock.now() - T0)), 0)
    await clock.runUntil(T0 + 1_000)
    expect(answeredAt).toBe(NETWORK_DELAY_MS.min + 0.5 * (NETWORK_DELAY_MS.max - NETWORK_DELAY_MS.min))
    await net.close()
  })

  it('ends a request aborted during its delay without the clock moving', async () => {
    const url = await listen()
    const clock = new VirtualClock(T0)
    const net = simulatedNetwork(clock, () => 0.5)
    const abort = new AbortController()
    const pending = net.request({ method: 'GET', url, signal: abort.signal })
    abort.abort(new Error('stopped'))
    // No runUntil: a delay that only virtual time could end would hang here until the timeout.
    const outcome = await Promise.race([
      pending.then(
        () => 'answered',
        () => 'aborted'
      ),
      new Promise((r) => setTimeout(() => r('still waiting'), 2_000))
    ])
    expect(outcome).toBe('aborted')
    expect(clock.now()).toBe(T0)
    await net.close()
  })
})

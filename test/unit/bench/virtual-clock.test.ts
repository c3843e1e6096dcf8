// The benchmarks' discrete-event clock: timers in virtual-time order, no virtual time
// passing while a tracked request is in flight, sleeps that can be aborted, and the
// client's RateBudget paced by it exactly as by a real clock; and work (a monitor's stop)
// awaited on it without waiting for ever.
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { VirtualClock } from '../../../bench/lib/virtual-clock'
import { RateBudget } from '../../../src/main/api/rate-budget'
import type { HttpTransport, TransportRequest } from '../../../src/main/api/transport'

const T0 = Date.parse('2026-01-01T00:00:00.000Z')
const nextTurn = () => new Promise<void>((r) => setImmediate(r))

describe('VirtualClock', () => {
  it('fires timers in time order, equal times in the order they were set, skipping cleared ones', async () => {
    const clock = new VirtualClock(T0)
    const seen: string[] = []
    clock.timers.setTimeout(() => seen.push(`b@${clock.now() - T0}`), 200)
    clock.timers.setTimeout(() => seen.push(`a@${clock.now() - T0}`), 100)
    clock.timers.setTimeout(() => seen.push(`c@${clock.now() - T0}`), 200)
    const gone = clock.timers.setTimeout(() => seen.push('cleared'), 150)
    clock.timers.clearTimeout(gone)
    const fired = await clock.runUntil(T0 + 1_000)
    expect(seen).toEqual(['a@100', 'b@200', 'c@200'])
    expect(fired).toBe(3)
    expect(clock.now()).toBe(T0 + 1_000)
  })

  it('leaves timers due after the horizon for the next run', async () => {
    const clock = new VirtualClock(T0)
    let fired = false
    clock.schedule(() => (fired = true), 5_000)
    await clock.runUntil(T0 + 4_999)
    expect(fired).toBe(false)
    await clock.runUntil(T0 + 5_000)
    expect(fired).toBe(true)
  })

  it('does not move while a tracked request is in flight, so work it starts comes first', async () => {
    const clock = new VirtualClock(T0)
    const order: string[] = []
    const inner: HttpTransport = {
      // Answers after a few real turns of the event loop, as a loopback request does.
      request: async (req: TransportRequest) => {
        for (let i = 0; i < 5; i++) await nextTurn()
        return { status: 200, headers: {}, bodyText: req.url }
      },
      close: async () => undefined
    }
    const net = clock.track(inner)
    clock.schedule(() => order.push(`late@${clock.now() - T0}`), 1_000)
    clock.schedule(() => {
      void net.request({ method: 'GET', url: 'http://x/' }).then(() => {
        order.push(`answer@${clock.now() - T0}`)
        clock.schedule(() => order.push(`follow-up@${clock.now() - T0}`), 10)
      })
    }, 0)
    await clock.runUntil(T0 + 2_000)
    expect(order).toEqual(['answer@0', 'follow-up@10', 'late@1000'])
    expect(clock.transitMs).toHaveLength(1)
  })

  it('sleeps in virtual time and rejects a sleep that is aborted', async () => {
    const clock = new VirtualClock(T0)
    let woke = -1
    void clock.sleep(250).then(() => (woke = clock.now() - T0))
    const ac = new AbortController()
    const aborted = clock.sleep(100, ac.signal)
    ac.abort(new Error('stop'))
    await expect(aborted).rejects.toThrow('stop')
    await clock.runUntil(T0 + 1_000)
    expect(woke).toBe(250)
  })

  it('leaves no abort listener behind on a signal once its sleeps have ended', async () => {
    const clock = new VirtualClock(T0)
    const signal = new AbortController().signal
    const sleeps = Array.from({ length: 20 }, (_, i) => clock.sleep(10 * (i + 1), signal))
    await clock.runUntil(T0 + 1_000)
    await Promise.all(sleeps)
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
  })

  it("paces the client's RateBudget: the 11th request to a 10/min endpoint waits a whole window", async () => {
    const clock = new VirtualClock(T0)
    const budget = new RateBudget({ profileId: 'p', now: clock.now, timers: clock.timers, reservedInteractive: 0 })
    const granted: number[] = []
    clock.schedule(() => {
      for (let i = 0; i < 11; i++) void budget.acquire('priceTicker').then(() => granted.push(clock.now() - T0))
    }, 0)
    await clock.runUntil(T0 + 120_000)
    expect(granted.slice(0, 10)).toEqual(Array(10).fill(0))
    // The budget's window is the service's 60 s plus one second of margin.
    expect(granted[10]).toBe(61_000)
  })
})

describe('VirtualClock.finish', () => {
  it('leaves the clock where it was for work that ends by itself', async () => {
    const clock = new VirtualClock(1_000)
    let ticks = 0
    clock.schedule(() => ticks++, 5_000)
    await expect(clock.finish(Promise.resolve('stopped'), 'a stop')).resolves.toBe('stopped')
    expect(clock.now()).toBe(1_000)
    expect(ticks).toBe(0)
  })

  it('runs the clock for work that waits on it, and stops once it has ended', async () => {
    const clock = new VirtualClock(0)
    let ticks = 0
    clock.schedule(() => ticks++, 30_000)
    await clock.finish(clock.sleep(2_000), 'a stop waiting on a simulated delay')
    expect(clock.now()).toBe(2_000)
    // The timer after the work's end was not run on its behalf.
    expect(ticks).toBe(0)
  })

  it('names work that does not end within its simulated limit instead of waiting for ever', async () => {
    const clock = new VirtualClock(0)
    const never = new Promise<void>(() => undefined)
    await expect(clock.finish(never, "the monitor's stop()", 10_000)).rejects.toThrow(
      "the monitor's stop() did not end within 10 s of simulated time"
    )
    expect(clock.now()).toBe(10_000)
  })

  it("passes on the work's failure", async () => {
    const clock = new VirtualClock(0)
    await expect(clock.finish(Promise.reject(new Error('refused')), 'a stop')).rejects.toThrow('refused')
  })
})

import { beforeEach, describe, expect, test } from 'vitest'
import { ApiError } from '../../../../src/shared/api/errors'
import { OutageGate, unreachable } from '../../../../src/main/api/outage-gate'
import { wasNeverSent } from '../../../../src/main/api/transport'

const reset = () => new ApiError({ kind: 'network', endpoint: 'orderStatus', message: 'other side closed' })
const connectTimeout = () =>
  new ApiError(
    { kind: 'timeout', endpoint: 'limits', message: 'connect timeout' },
    { cause: Object.assign(new Error('connect timeout'), { code: 'UND_ERR_CONNECT_TIMEOUT' }) }
  )
/** A call that meets the outage twice (its first attempt and a retry) and gives up: an outage, not a dropped connection. */
const gaveUp = (gate: OutageGate, call: object, error = reset()) => {
  gate.failed(call, error)
  gate.failed(call, error)
  gate.settled(call, error)
}
/** Settles a promise into what it became, for expectations on several at once. */
const outcome = <T>(p: Promise<T>) => {
  const o: { error?: unknown; settled: boolean; ok: boolean } = { settled: false, ok: false }
  p.then(
    () => Object.assign(o, { ok: true, settled: true }),
    (e: unknown) => Object.assign(o, { error: e, settled: true })
  )
  return o
}
// The gate keeps no timers: its clock is given, and a test moves it (no global is faked).
let t = 0
const now = () => t
const advance = (ms: number) => void (t += ms)
/** Lets the promise callbacks run. */
const flush = () => new Promise<void>((r) => setImmediate(r))
const nextProbeIn = (gate: OutageGate) => (gate.status() as { nextProbeAt: number }).nextProbeAt - t
beforeEach(() => void (t = 1_000_000))

describe('OutageGate', () => {
  test('an open gate lets every request go', async () => {
    const gate = new OutageGate({ now })
    await expect(gate.pass({}, 'orderStatus', 'background')).resolves.toBeUndefined()
    expect(gate.status()).toEqual({ kind: 'open' })
  })

  test('a slow answer does not close the gate; a connection refused, dropped or not made in time does', () => {
    expect(unreachable(new ApiError({ kind: 'timeout', endpoint: 'merchantHistory', message: 'Headers Timeout Error' }))).toBe(false)
    expect(unreachable(new ApiError({ kind: 'aborted', message: 'request cancelled' }))).toBe(false)
    expect(unreachable(connectTimeout())).toBe(true)
    expect(unreachable(reset())).toBe(true)
  })

  test("the call that met the outage probes: its own retries go, the other calls' requests wait for it", async () => {
    const gate = new OutageGate({ now })
    const prober = {}
    gate.failed(prober, reset())
    await expect(gate.pass(prober, 'merchantHistory', 'background')).resolves.toBeUndefined()
    const other = outcome(gate.pass({}, 'orderStatus', 'background'))
    advance(60_000)
    await flush()
    expect(other.settled).toBe(false)
    expect(gate.status()).toMatchObject({ kind: 'closed', probing: true, waiting: 1 })
  })

  test('an answer opens the gate: every waiting request goes at once', async () => {
    const gate = new OutageGate({ now })
    gate.failed({}, reset())
    const waiting = [0, 1, 2].map(() => outcome(gate.pass({}, 'merchantHistory', 'background')))
    await flush()
    expect(waiting.some((w) => w.settled)).toBe(false)
    gate.answered()
    await flush()
    expect(waiting.map((w) => w.ok)).toEqual([true, true, true])
    expect(gate.status()).toEqual({ kind: 'open' })
  })

  test('when the probing call gives up, the requests that waited fail with it, unsent; until the next probe is due so does every request', async () => {
    const gate = new OutageGate({ firstProbeMs: 1_000, now })
    const prober = {}
    gate.failed(prober, reset())
    const waited = outcome(gate.pass({}, 'merchantHistory', 'background'))
    gate.failed(prober, connectTimeout())
    gate.settled(prober, connectTimeout())
    await flush()
    expect(waited.error).toMatchObject({
      kind: 'timeout',
      endpoint: 'merchantHistory',
      message: expect.stringMatching(/^not sent: .*connect timeout/)
    })
    // Never sent, so a write held this way may be tried again.
    expect(wasNeverSent(waited.error)).toBe(true)
    advance(999)
    await expect(gate.pass({}, 'orderStatus', 'background')).rejects.toMatchObject({ kind: 'timeout', message: /^not sent/ })
    advance(1)
    // Due: the first request is the next probe, the next one waits for it.
    await expect(gate.pass({}, 'orderStatus', 'background')).resolves.toBeUndefined()
    expect(gate.status()).toMatchObject({ probing: true, failures: 1 })
    const behind = outcome(gate.pass({}, 'orderStatus', 'background'))
    await flush()
    expect(behind.settled).toBe(false)
  })

  test('a call that met the outage once and did not retry is a dropped connection: the waiting requests go on', async () => {
    const gate = new OutageGate({ now })
    const write = {}
    gate.failed(write, reset())
    const waiting = [0, 1].map(() => outcome(gate.pass({}, 'orderStatus', 'background')))
    gate.settled(write, reset())
    await flush()
    // The first waiting request probes now; the next still waits for it.
    expect(waiting.map((w) => w.ok)).toEqual([true, false])
    expect(gate.status()).toMatchObject({ kind: 'closed', probing: true, failures: 0 })
  })

  test('the waits between probes double up to their cap', async () => {
    const gate = new OutageGate({ firstProbeMs: 1_000, maxProbeMs: 10_000, now })
    gate.failed(null, reset())
    const waits: number[] = []
    for (let i = 0; i < 6; i++) {
      const call = {}
      advance(20_000)
      await gate.pass(call, 'orderStatus', 'background')
      gaveUp(gate, call)
      waits.push(nextProbeIn(gate))
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000])
  })

  test("the operator's own requests are never held", async () => {
    const gate = new OutageGate({ firstProbeMs: 60_000, now })
    const prober = {}
    gate.failed(prober, reset())
    await expect(gate.pass({}, 'quotes', 'interactive')).resolves.toBeUndefined()
    gaveUp(gate, prober)
    await expect(gate.pass({}, 'quotes', 'interactive')).resolves.toBeUndefined()
  })

  test('failures of other calls keep their words but neither probe nor push the next probe out', async () => {
    const gate = new OutageGate({ now })
    const prober = {}
    gate.failed(prober, reset())
    gate.failed(prober, reset())
    gate.failed({}, connectTimeout())
    gate.settled({}, connectTimeout())
    expect(gate.status()).toMatchObject({ probing: true, failures: 0 })
    gate.settled(prober, reset())
    await expect(gate.pass({}, 'orderStatus', 'background')).rejects.toMatchObject({ message: /connect timeout/ })
  })

  test('probeNow lets the next request probe at once', async () => {
    const gate = new OutageGate({ firstProbeMs: 60_000, now })
    gaveUp(gate, {})
    await expect(gate.pass({}, 'merchantHistory', 'background')).rejects.toMatchObject({ kind: 'network' })
    gate.probeNow()
    await expect(gate.pass({}, 'merchantHistory', 'background')).resolves.toBeUndefined()
  })

  test('"try again" while a call probes: when it gives up, the next waiting request probes instead of failing', async () => {
    const gate = new OutageGate({ firstProbeMs: 60_000, now })
    const prober = {}
    gate.failed(prober, reset())
    gate.failed(prober, reset())
    const waiting = [0, 1].map(() => outcome(gate.pass({}, 'merchantHistory', 'background')))
    gate.probeNow()
    gate.settled(prober, reset())
    await flush()
    expect(waiting.map((w) => [w.ok, w.settled])).toEqual([
      [true, true],
      [false, false]
    ])
  })

  test('a probe that cannot send at once steps aside: the first waiting request probes', async () => {
    const gate = new OutageGate({ now })
    const blocked = {}
    gate.failed(blocked, reset())
    const waiting = outcome(gate.pass({}, 'orderStatus', 'background'))
    gate.stepAside(blocked)
    await flush()
    expect(waiting.ok).toBe(true)
    // The call that stepped aside no longer probes: its next request waits like any other.
    const again = outcome(gate.pass(blocked, 'merchantHistory', 'background'))
    await flush()
    expect(again.settled).toBe(false)
  })

  test('a cancelled wait leaves the queue; a probing call that ends without meeting the outage again hands the probe on', async () => {
    const gate = new OutageGate({ now })
    const prober = {}
    gate.failed(prober, reset())
    gate.failed(prober, reset())
    const ac = new AbortController()
    const gone = outcome(gate.pass({}, 'orderStatus', 'background', ac.signal))
    const nextCall = {}
    const next = outcome(gate.pass(nextCall, 'merchantHistory', 'background'))
    const last = outcome(gate.pass({}, 'merchantHistory', 'background'))
    ac.abort()
    gate.settled(prober, new ApiError({ kind: 'aborted', message: 'request cancelled' }))
    await flush()
    expect(gone.error).toMatchObject({ kind: 'aborted' })
    expect(next.ok).toBe(true)
    expect(last.settled).toBe(false)
    // The call handed the probe to is now the one whose retries go.
    await expect(gate.pass(nextCall, 'merchantHistory', 'background')).resolves.toBeUndefined()
  })

  test("a failure outside any call (the client's own clock reading) leaves the next request to probe", async () => {
    const gate = new OutageGate({ now })
    gate.failed(null, reset())
    await expect(gate.pass({}, 'orderStatus', 'background')).resolves.toBeUndefined()
    expect(gate.status()).toMatchObject({ probing: true })
  })
})

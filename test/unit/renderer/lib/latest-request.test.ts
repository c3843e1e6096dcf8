// Quotes follow the amount as typed: a pause before asking, one request at a time, the
// answer to what is asked now shown and earlier answers dropped; the button asks at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LatestRequest } from '../../../../src/renderer/src/lib/latest-request'

interface Pending {
  input: string
  resolve: (v: string) => void
  reject: (e: unknown) => void
}

function setup(debounceMs = 300) {
  const sent: Pending[] = []
  const answers: Array<[string, string]> = []
  const errors: Array<[string, unknown]> = []
  const busy: boolean[] = []
  const r = new LatestRequest<string, string>({
    send: (input) => new Promise((resolve, reject) => sent.push({ input, resolve, reject })),
    key: (i) => i.replace(/\.0+$/, ''),
    debounceMs,
    onAnswer: (i, v) => answers.push([i, v]),
    onError: (i, e) => errors.push([i, e]),
    onBusy: (b) => busy.push(b)
  })
  return { r, sent, answers, errors, busy }
}

/** Lets the promise callbacks of a settled request run. */
const settle = () => vi.advanceTimersByTimeAsync(0)

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('LatestRequest', () => {
  it('asks once typing pauses, with the last input typed', async () => {
    const t = setup()
    t.r.change('1')
    await vi.advanceTimersByTimeAsync(100)
    t.r.change('10')
    await vi.advanceTimersByTimeAsync(100)
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(299)
    expect(t.sent).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(t.sent.map((s) => s.input)).toEqual(['100'])
    t.sent[0]!.resolve('quote for 100')
    await settle()
    expect(t.answers).toEqual([['100', 'quote for 100']])
    expect(t.busy).toEqual([true, false])
  })

  it('keeps one request in flight; what is typed meanwhile goes out when it is answered', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change('1000')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change('10000')
    await vi.advanceTimersByTimeAsync(300)
    expect(t.sent.map((s) => s.input)).toEqual(['100'])
    t.sent[0]!.resolve('quote for 100')
    await settle()
    // The answer to 100 is not what is asked now: dropped, and only the latest input goes out.
    expect(t.answers).toEqual([])
    expect(t.sent.map((s) => s.input)).toEqual(['100', '10000'])
    t.sent[1]!.resolve('quote for 10000')
    await settle()
    expect(t.answers).toEqual([['10000', 'quote for 10000']])
    expect(t.r.busy).toBe(false)
  })

  it('drops an answer that arrives after the input changed, even when nothing new is sent', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change(null) // the amount became invalid
    t.sent[0]!.resolve('quote for 100')
    await settle()
    expect(t.answers).toEqual([])
    expect(t.sent).toHaveLength(1)
    expect(t.r.busy).toBe(false)
  })

  it('sends nothing for an input that means what was last answered', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.sent[0]!.resolve('q')
    await settle()
    t.r.change('100.00')
    await vi.advanceTimersByTimeAsync(1000)
    expect(t.sent).toHaveLength(1)
    expect(t.busy.at(-1)).toBe(false)
  })

  it('typing back to the input in flight takes its answer and sends nothing more', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change('1000')
    t.r.change('100')
    t.sent[0]!.resolve('quote for 100')
    await settle()
    expect(t.answers).toEqual([['100', 'quote for 100']])
    await vi.advanceTimersByTimeAsync(1000)
    expect(t.sent).toHaveLength(1)
  })

  it('refresh asks at once, even for the input already answered, after the one in flight', async () => {
    const t = setup()
    t.r.refresh('100')
    expect(t.sent.map((s) => s.input)).toEqual(['100'])
    t.r.refresh('100')
    expect(t.sent).toHaveLength(1)
    t.sent[0]!.resolve('first')
    await settle()
    expect(t.sent.map((s) => s.input)).toEqual(['100', '100'])
    t.sent[1]!.resolve('second')
    await settle()
    expect(t.answers).toEqual([
      ['100', 'first'],
      ['100', 'second']
    ])
  })

  it('reports the failure of the current input only', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change('200')
    t.sent[0]!.reject(new Error('old'))
    await settle()
    expect(t.errors).toEqual([])
    await vi.advanceTimersByTimeAsync(300)
    t.sent[1]!.reject(new Error('rate limited'))
    await settle()
    expect(t.errors.map(([i, e]) => [i, (e as Error).message])).toEqual([['200', 'rate limited']])
  })

  it('after clear, the same input is asked again', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.sent[0]!.resolve('q')
    await settle()
    t.r.clear()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    expect(t.sent).toHaveLength(2)
  })

  it('after close nothing is sent and nothing is delivered', async () => {
    const t = setup()
    t.r.change('100')
    await vi.advanceTimersByTimeAsync(300)
    t.r.change('200')
    t.r.close()
    t.sent[0]!.resolve('q')
    await vi.advanceTimersByTimeAsync(1000)
    expect(t.answers).toEqual([])
    expect(t.sent).toHaveLength(1)
  })
})

// Typed confirmations (the browser harness's stand-in for a native dialog): the code is
// shown only outside the window, never in the event the window gets; it confirms once;
// wrong codes run out; cancel, expiry and shutdown refuse; without a place to show a code
// nothing can be confirmed.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { TypedConfirmations } from '../../../src/main/confirmations'
import type { EventName } from '../../../src/shared/ipc/contract'

const prompt = { change: 'x', title: 'Allow it', message: 'It will be allowed.', detail: 'Details.', confirmLabel: 'Allow' }

function setup(o: { show?: boolean; maxAttempts?: number; ttlMs?: number } = {}) {
  const lines: string[] = []
  const events: Array<{ event: EventName; payload: unknown }> = []
  const typed = new TypedConfirmations({
    emit: (event, payload) => void events.push({ event, payload }),
    show: o.show === false ? undefined : (l) => void lines.push(l),
    shownIn: 'the terminal',
    now: () => 1_000,
    maxAttempts: o.maxAttempts,
    ttlMs: o.ttlMs
  })
  const code = () => /type (\d{4}-\d{4})/.exec(lines.join('\n'))?.[1] ?? ''
  const request = () => events.find((e) => e.event === 'confirm:request')!.payload as { id: string; expiresAt: number }
  return { typed, lines, events, code, request }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('TypedConfirmations', () => {
  it('shows the code outside the window only, and confirms with it (spaces and dashes ignored)', async () => {
    const t = setup()
    const answer = t.typed.confirm(prompt)
    const req = t.request()
    expect(req).toMatchObject({ title: 'Allow it', codeShownIn: 'the terminal', expiresAt: 121_000 })
    expect(t.code()).toMatch(/^\d{4}-\d{4}$/)
    expect(JSON.stringify(t.events)).not.toContain(t.code())
    expect(JSON.stringify(t.events)).not.toContain(t.code().replace('-', ''))
    expect(t.typed.answer(req.id, ` ${t.code().replace('-', ' ')} `)).toEqual({ outcome: 'confirmed', attemptsLeft: 3 })
    expect(await answer).toBe(true)
    expect(t.events.at(-1)).toEqual({ event: 'confirm:settled', payload: { id: req.id, outcome: 'confirmed' } })
    // Used once: the same answer again finds nothing pending.
    expect(t.typed.answer(req.id, t.code())).toEqual({ outcome: 'unknown', attemptsLeft: 0 })
  })

  it('refuses after the wrong codes run out, and a code of another request does not fit', async () => {
    const t = setup({ maxAttempts: 2 })
    const first = t.typed.confirm(prompt)
    const a = t.request()
    const codeA = t.code()
    t.lines.length = 0
    t.events.length = 0
    const second = t.typed.confirm(prompt)
    const b = t.request()
    expect(t.typed.answer(b.id, codeA === t.code() ? '0000-0000' : codeA)).toEqual({ outcome: 'wrong_code', attemptsLeft: 1 })
    expect(t.typed.answer(b.id, '')).toEqual({ outcome: 'cancelled', attemptsLeft: 0 })
    expect(await second).toBe(false)
    expect(t.typed.answer(a.id, null)).toEqual({ outcome: 'cancelled', attemptsLeft: 0 })
    expect(await first).toBe(false)
  })

  it('refuses when the code expires, and on shutdown', async () => {
    vi.useFakeTimers()
    const t = setup({ ttlMs: 60_000 })
    const expiring = t.typed.confirm(prompt)
    const req = t.request()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(await expiring).toBe(false)
    expect(t.events.at(-1)).toEqual({ event: 'confirm:settled', payload: { id: req.id, outcome: 'expired' } })
    expect(t.typed.answer(req.id, t.code())).toMatchObject({ outcome: 'unknown' })
    const pending = t.typed.confirm(prompt)
    t.typed.close()
    expect(await pending).toBe(false)
  })

  it('without a place to show the code, nothing can be confirmed and nothing is asked of the window', async () => {
    const t = setup({ show: false })
    expect(await t.typed.confirm(prompt)).toBe(false)
    expect(t.events).toEqual([])
  })
})

// The order detail's sentence on how its status was last confirmed, in an operator's words
// (a history sync, a webhook, a status check): plain when it was not within the freshness
// bound, and when status checks keep failing for it.
import { describe, expect, it } from 'vitest'
import { statusConfirmation, statusConfirmationText, UNCONFIRMABLE_AFTER } from '../../../../src/shared/domain/coverage-text'

const MIN = 60_000
const now = Date.parse('2026-11-25T14:30:00Z')
const fmt = {
  now,
  boundMs: 10 * MIN,
  when: (ms: number) => `${Math.round((now - ms) / MIN)} min ago`,
  time: (ms: number) => new Date(ms).toISOString().slice(11, 16)
}
const row = (o: { confirmedAt: number | null; failures?: number; checkedAt?: number | null }) => ({
  statusConfirmedAt: o.confirmedAt,
  statusConfirmedBy: 'history' as const,
  statusCheckFailures: o.failures ?? 0,
  statusCheckedAt: o.checkedAt ?? null
})

describe('statusConfirmation', () => {
  it('an open order confirmed within the bound is current, and says how', () => {
    const r = row({ confirmedAt: now - 3 * MIN })
    expect(statusConfirmation(r, { ...fmt, open: true })).toEqual({ kind: 'current' })
    expect(statusConfirmationText(r, { ...fmt, open: true })).toEqual({
      attention: false,
      text: 'Status confirmed 3 min ago by a history sync. Open orders are confirmed at least every 10 min.'
    })
  })

  it('an open order past the bound says so, with when it was last confirmed', () => {
    const t = statusConfirmationText(row({ confirmedAt: now - 25 * MIN, failures: 1, checkedAt: now - 2 * MIN }), { ...fmt, open: true })
    expect(t.attention).toBe(true)
    expect(t.text).toBe('Status not confirmed within the 10 min bound: last confirmed 25 min ago by a history sync. It is asked again.')
  })

  it(`an open order orderStatus failed for ${UNCONFIRMABLE_AFTER} times in a row cannot be confirmed, said plainly with when it last was`, () => {
    const r = row({ confirmedAt: now - 40 * MIN, failures: UNCONFIRMABLE_AFTER, checkedAt: now - 1 * MIN })
    expect(statusConfirmation(r, { ...fmt, open: true })).toEqual({ kind: 'unconfirmable', failures: 3, lastTriedAt: now - MIN })
    const t = statusConfirmationText(r, { ...fmt, open: true })
    expect(t.attention).toBe(true)
    expect(t.text).toBe(
      'Status cannot be confirmed: 3 status checks with the service failed in a row, last at 14:29. ' +
        "Last confirmed 40 min ago by a history sync; it may no longer be the service's status. It is asked again in turn."
    )
    // Even within the bound (a webhook confirmed it a little before the failures began, say), failing is said.
    expect(statusConfirmation({ ...r, statusConfirmedAt: now - 5 * MIN }, { ...fmt, open: true }).kind).toBe('unconfirmable')
  })

  it('one never confirmed says so', () => {
    expect(statusConfirmationText(row({ confirmedAt: null }), { ...fmt, open: true }).text).toMatch(
      /^Status not confirmed within the 10 min bound: never confirmed by the service\./
    )
    expect(statusConfirmationText(row({ confirmedAt: null, failures: 4, checkedAt: now }), { ...fmt, open: true }).text).toMatch(
      /^Status cannot be confirmed: 4 status checks with the service failed in a row, last at 14:30\. Never confirmed by the service;/
    )
  })

  it('a closed order is never overdue: its status does not move any more', () => {
    const t = statusConfirmationText(row({ confirmedAt: now - 300 * MIN, failures: 5 }), { ...fmt, open: false })
    expect(t).toEqual({ attention: false, text: 'Status confirmed 300 min ago by a history sync.' })
  })
})

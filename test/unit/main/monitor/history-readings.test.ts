// HistoryReadings: evidence about merchantHistory's fiatType filter, page by page; a short page checked to end its listing.
import { describe, expect, it } from 'vitest'
import { HistoryReadings, SETTLED_END_MS, type ObservedItem } from '../../../../src/main/monitor/history-readings'

const item = (orderId: number, fiatType: number | null): ObservedItem => ({
  orderId,
  fiatType,
  createdAt: `2026-01-01T00:00:0${orderId % 10}.000Z`,
  updatedAt: `2026-01-01T00:00:0${orderId % 10}.000Z`
})

describe('the fiatType filter of a type', () => {
  it('is ignored when one answer holds the fiat asked and another', () => {
    const r = new HistoryReadings()
    r.observe({ type: 1, fiatType: 2, since: undefined, items: [item(1, 2), item(2, 1)] })
    expect(r.fiatIgnored(1)).toBe(true)
  })

  it('is ignored when one answer holds two fiats, neither the one asked', () => {
    const r = new HistoryReadings()
    r.observe({ type: 1, fiatType: 9, since: undefined, items: [item(1, 1), item(2, 2)] })
    expect(r.fiatIgnored(1)).toBe(true)
  })

  it('is not decided by an answer of one other fiat only: a fiat the service does not know, answered with its default', () => {
    const r = new HistoryReadings()
    r.observe({ type: 1, fiatType: 9, since: undefined, items: [item(1, 1), item(2, 1), item(3, 1)] })
    expect(r.fiatIgnored(1)).toBe(false)
    expect(r.state().fiatFilter[1].value).toBe('filter')
  })

  it('is ignored when records of the answer are held under another fiat (records that name none)', () => {
    const r = new HistoryReadings()
    r.observe({ type: 2, fiatType: 2, since: undefined, items: [item(1, null)], foreign: 1 })
    expect(r.fiatIgnored(2)).toBe(true)
  })
})

describe('a short first page checked to end its listing', () => {
  it('is settled for the same answer to the same listing; asked again when the answer differs, on doubt, or half an hour later', () => {
    let t = 0
    const r = new HistoryReadings(null, () => t)
    r.observe({ type: 1, fiatType: 1, since: undefined, items: [] })
    const listing = '1:1:DESC::500'
    const same = { listing, page: '400:800:401' }
    expect(r.ambiguousShort(400, 500, same)).toBe(true)
    r.noteEnd(400, same)
    // The largest page seen: without the answer it is still a question, with the same one it is settled.
    expect(r.ambiguousShort(400, 500)).toBe(true)
    expect(r.ambiguousShort(400, 500, same)).toBe(false)
    // Another page (an order came first), or another listing: asked.
    expect(r.ambiguousShort(400, 500, { listing, page: '400:801:402' })).toBe(true)
    expect(r.ambiguousShort(400, 500, { listing: '1:2:DESC::500', page: same.page })).toBe(true)
    // The audit's doubt, or its slow schedule: asked again.
    r.doubt()
    expect(r.ambiguousShort(400, 500, same)).toBe(true)
    r.noteEnd(400, same)
    t += SETTLED_END_MS
    expect(r.ambiguousShort(400, 500, same)).toBe(true)
  })

  it('hides no new orders for long behind a cap that equals the listing size', () => {
    // A service holding 60 records a page, not known yet, and a listing of exactly 60: the
    // next page is empty, so the page is settled as the end. New orders then come after
    // those 60 and page 1 answers the same 60: within the half hour that is taken as the
    // end, after it the page is checked again (and page 2, no longer empty, teaches the cap).
    let t = 0
    const r = new HistoryReadings(null, () => t)
    const answer = { listing: '1:1:ASC:2026-01-01T00:00:00.000Z:500', page: '60:1:60' }
    r.observe({ type: 1, fiatType: 1, since: undefined, items: Array.from({ length: 60 }, (_, i) => item(i + 1, 1)) })
    expect(r.ambiguousShort(60, 500, answer)).toBe(true)
    r.noteEnd(60, answer)
    t += 60_000
    expect(r.ambiguousShort(60, 500, answer)).toBe(false)
    t += SETTLED_END_MS - 60_000
    expect(r.ambiguousShort(60, 500, answer)).toBe(true)
    r.learnCap(60)
    expect(r.state().pageSize).toMatchObject({ value: 60, state: 'checked' })
  })
})

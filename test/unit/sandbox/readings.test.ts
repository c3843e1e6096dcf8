// The readings' defaults and validation: what startSandbox, control.setReadings and
// PUT /__sandbox/readings accept, what they refuse (with a reason, changing nothing),
// and how paramTypes and unknownLimits are given.
import { describe, expect, it } from 'vitest'
import { ReadingsError, applyReadings, defaultReadings } from '../../../src/sandbox/readings'
import { PARAM_FIELDS } from '../../../src/sandbox/request-schemas'

describe('readings', () => {
  it('default to the most likely reading of each open choice', () => {
    const d = defaultReadings()
    expect({ ...d, paramTypes: undefined }).toEqual({
      since: 'inclusive',
      tieOrder: 'orderId',
      paramTypes: undefined,
      typeErrorText: 'named',
      unknownLimits: {},
      limiter: 'sliding',
      tickerShape: 'split',
      limitsShape: 'typeKeys',
      coinLimitsShape: 'perFiat',
      dateHeader: true,
      currentTimestamp: true,
      churnPerHistoryRequest: 0,
      webhookPayloadForm: 'compact',
      historySince: 'updatedAt',
      historyOrder: 'updatedAt',
      firstPage: 1,
      missingPage: 'first',
      pageSizeCap: null,
      offrampFiat: 'filter',
      historyDirection: 'honoured',
      emptyHistory: 'empty'
    })
    expect(Object.keys(d.paramTypes).sort()).toEqual([...PARAM_FIELDS].sort())
    expect(d.paramTypes['merchantHistory.fiatType']).toBe('lenient')
    expect(d.paramTypes['merchantHistory.page']).toBe('strict')
  })

  it('take the merchantHistory readings the client checks and leave the rest', () => {
    const r = applyReadings(defaultReadings(), { historySince: 'createdAt', firstPage: 0, pageSizeCap: 100, offrampFiat: 'ignore' })
    expect(r).toMatchObject({ historySince: 'createdAt', historyOrder: 'updatedAt', firstPage: 0, pageSizeCap: 100, offrampFiat: 'ignore' })
    expect(applyReadings(r, { pageSizeCap: null }).pageSizeCap).toBeNull()
  })

  it('apply a subset and leave the rest', () => {
    const r = applyReadings(defaultReadings(), { since: 'exclusive', tieOrder: 'hidden', churnPerHistoryRequest: 3 })
    expect(r).toMatchObject({ since: 'exclusive', tieOrder: 'hidden', churnPerHistoryRequest: 3, limiter: 'sliding' })
    expect(applyReadings(r, { limiter: 'fixed' })).toMatchObject({ since: 'exclusive', limiter: 'fixed' })
  })

  it('take paramTypes as one mode for every field, or per field with the others at their default', () => {
    const all = applyReadings(defaultReadings(), { paramTypes: 'strict' }).paramTypes
    expect(new Set(Object.values(all))).toEqual(new Set(['strict']))
    const one = applyReadings(applyReadings(defaultReadings(), { paramTypes: 'strict' }), {
      paramTypes: { 'quotes.coinId': 'lenient' }
    }).paramTypes
    expect(one['quotes.coinId']).toBe('lenient')
    expect(one['merchantHistory.fiatType']).toBe(defaultReadings().paramTypes['merchantHistory.fiatType'])
  })

  it('take unknown limits only for endpoints without a documented one', () => {
    expect(applyReadings(defaultReadings(), { unknownLimits: { merchantHistory: 10, bankDetails: 2 } }).unknownLimits).toEqual({
      merchantHistory: 10,
      bankDetails: 2
    })
    expect(() => applyReadings(defaultReadings(), { unknownLimits: { limits: 5 } })).toThrow(/documented limit of 10/)
    expect(() => applyReadings(defaultReadings(), { unknownLimits: { history: 5 } })).toThrow(/unknown endpoint "history"/)
    expect(() => applyReadings(defaultReadings(), { unknownLimits: { quotes: 0 } })).toThrow(/at least 1/)
    expect(() => applyReadings(defaultReadings(), { unknownLimits: { quotes: 2.5 } })).toThrow(ReadingsError)
  })

  it('refuse anything else with the reason', () => {
    const bad: [unknown, RegExp][] = [
      [{ since: 'after' }, /since must be one of inclusive, exclusive, not "after"/],
      [{ tieOrder: 'random' }, /tieOrder must be one of orderId, hidden/],
      [{ coinLimitsShape: 'C' }, /coinLimitsShape must be one of perFiat, A, B/],
      [{ webhookPayloadForm: 'pretty' }, /webhookPayloadForm must be one of compact, spaced, slashEscaped, bodyOnly/],
      [{ dateHeader: 'no' }, /dateHeader must be true or false/],
      [{ churnPerHistoryRequest: -1 }, /churnPerHistoryRequest must be a whole number/],
      [{ paramTypes: 'loose' }, /paramTypes must be strict, lenient/],
      [{ paramTypes: { 'merchantHistory.currency': 'strict' } }, /unknown field "merchantHistory.currency"/],
      [{ paramTypes: { 'merchantHistory.page': 'relaxed' } }, /paramTypes.merchantHistory.page must be strict or lenient/],
      [{ clockOffsetMs: 5 }, /unknown reading clockOffsetMs/],
      [{ historySince: 'orderId' }, /historySince must be one of updatedAt, createdAt/],
      [{ historyOrder: 'id' }, /historyOrder must be one of updatedAt, createdAt/],
      [{ firstPage: 2 }, /firstPage must be 1 or 0/],
      [{ missingPage: 'last' }, /missingPage must be one of first, one/],
      [{ pageSizeCap: 0 }, /pageSizeCap must be null or a whole number from 1 to 500/],
      [{ pageSizeCap: 501 }, /pageSizeCap must be null/],
      [{ offrampFiat: 'any' }, /offrampFiat must be one of filter, ignore/],
      [[], /must be a JSON object/]
    ]
    for (const [input, reason] of bad) expect(() => applyReadings(defaultReadings(), input), JSON.stringify(input)).toThrow(reason)
  })
})

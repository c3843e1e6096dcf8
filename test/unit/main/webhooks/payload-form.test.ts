// Reading a verified payload header the way real senders write it: each form named,
// the timestamp and the signed body found whatever the spelling.
import { describe, expect, it } from 'vitest'
import { readPayload, spelling } from '../../../../src/main/webhooks/payload-form'
import { exactDifference, readExact } from '../../../../src/shared/api/exact-json'
import { LOGGED_FORM, payloadText, pythonDumps, SENDER_FORMS } from '../../../support/webhook-senders'

const body = { orderId: 9, walletAddress: 'https://x/y', note: 'café', nested: { a: [1, 2, { b: 'c/d' }] } }
const TS = 1_760_000_000_000

describe('readPayload', () => {
  it.each(SENDER_FORMS)('names the %s form and finds the same signed body', (form) => {
    const r = readPayload(payloadText(form, body, TS))
    expect(r.form).toBe(LOGGED_FORM[form])
    expect(r.signedBody).toEqual(body)
    // The same record as its text writes it, which the JSON body is compared with.
    expect(r.signedExact).toBeDefined()
    expect(exactDifference(r.signedExact!, readExact(JSON.stringify(body)))).toBeNull()
    expect(r.timestamp).toBe(form === 'bodyOnly' ? null : TS)
    expect(r.note).toBeNull()
  })

  it('sees both habits at once (a pretty-printing PHP sender)', () => {
    const text = JSON.stringify({ timestamp: TS, body }, null, 2).replace(/\//g, '\\/')
    expect(readPayload(Buffer.from(text).toString('base64')).form).toBe('timestamp+body (spaced, slash-escaped)')
  })

  it('does not mistake spaces or escaped slashes inside strings for the serialiser’s habits', () => {
    expect(spelling('{"a":"x y","b":"say \\"hi\\", ok"}')).toBe('compact')
    expect(spelling('{"a":"\\\\/"}')).toBe('compact')
    expect(spelling('{"a":"\\/"}')).toBe('slash-escaped')
    expect(spelling(pythonDumps({ a: 'x', b: [1, 2] }))).toBe('spaced')
  })

  it('accepts URL-safe base64 and missing padding, a timestamp as a digit string', () => {
    const std = Buffer.from(JSON.stringify({ timestamp: String(TS), body: { k: '??>>' } })).toString('base64')
    const urlSafe = std.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    const r = readPayload(urlSafe)
    expect(r).toMatchObject({ form: 'timestamp+body (compact)', timestamp: TS, signedBody: { k: '??>>' } })
  })

  it('says when the payload is not base64 JSON, or JSON but no object', () => {
    expect(readPayload('%%%').form).toBe('not base64 JSON')
    expect(readPayload(Buffer.from('not json').toString('base64')).form).toBe('not base64 JSON')
    expect(readPayload(Buffer.from([0xff, 0xfe, 0x7b]).toString('base64')).form).toBe('not base64 JSON')
    expect(readPayload(Buffer.from('[1,2]').toString('base64'))).toMatchObject({ form: 'JSON, not an object', signedBody: undefined })
  })

  it('keeps the wrapper form but notes an unreadable timestamp, and a body that is no object', () => {
    const r = readPayload(Buffer.from(JSON.stringify({ timestamp: 'yesterday', body })).toString('base64'))
    expect(r).toMatchObject({ form: 'timestamp+body (compact)', timestamp: null, signedBody: body })
    expect(r.note).toMatch(/not a time/)
    const noObject = readPayload(Buffer.from(JSON.stringify({ timestamp: TS, body: 'x' })).toString('base64'))
    expect([noObject.signedBody, noObject.signedExact]).toEqual([undefined, undefined])
  })
})

// The sandbox's section 5 scheme on node:crypto: the HMAC over the payload header as
// received, payloads decoded whatever JSON text was signed, and the four webhook
// payload forms, each checked here with node:crypto directly over the header bytes.
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { decodeRequestPayload, sameJson, signWebhook, signatureMatches, WEBHOOK_PAYLOAD_FORMS } from '../../../src/sandbox/signing'

const SECRET = 'test-secret'
const hmac = (text: string): string => createHmac('sha512', SECRET).update(text).digest('hex')
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64')
const text = (payload: string): string => Buffer.from(payload, 'base64').toString('utf8')

describe('request signatures', () => {
  it('are the hex HMAC-SHA512 of the header value; case of the hex does not matter, anything else does', () => {
    const payload = b64('{"timestamp":1,"body":{}}')
    expect(signatureMatches(payload, hmac(payload), SECRET)).toBe(true)
    expect(signatureMatches(payload, hmac(payload).toUpperCase(), SECRET)).toBe(true)
    expect(signatureMatches(payload, hmac(payload), 'other')).toBe(false)
    expect(signatureMatches(payload, hmac(payload).slice(2), SECRET)).toBe(false)
    expect(signatureMatches(payload, 'zz' + hmac(payload).slice(2), SECRET)).toBe(false)
    // The same JSON in other bytes is another payload: the signature covers the text, not the value.
    expect(signatureMatches(b64('{"timestamp": 1, "body": {}}'), hmac(payload), SECRET)).toBe(false)
  })

  it('decode whatever JSON a client wrote: spaces, escaped slashes, \\u escapes', () => {
    const body = { webhookUrl: 'https://merchant.example/hooks/ü' }
    for (const t of [
      '{"timestamp":1700000000000,"body":{"webhookUrl":"https://merchant.example/hooks/ü"}}',
      '{"timestamp": 1700000000000, "body": {"webhookUrl": "https://merchant.example/hooks/\\u00fc"}}',
      '{"timestamp":1700000000000,"body":{"webhookUrl":"https:\\/\\/merchant.example\\/hooks\\/\\u00fc"}}'
    ]) {
      const d = decodeRequestPayload(b64(t))
      expect(d.timestamp).toBe(1700000000000)
      expect(sameJson(d.body, body)).toBe(true)
    }
  })

  it('refuse payloads that are not base64 of {timestamp, body}', () => {
    expect(() => decodeRequestPayload('not base64!')).toThrow(/not base64/)
    expect(() => decodeRequestPayload(b64('nope'))).toThrow(/not base64 of JSON/)
    expect(() => decodeRequestPayload(b64('[1]'))).toThrow(/not a JSON object/)
    expect(() => decodeRequestPayload(b64('{"timestamp":"1","body":{}}'))).toThrow(/integer timestamp/)
    expect(() => decodeRequestPayload(b64('{"timestamp":1}'))).toThrow(/no body/)
  })

  it('compare bodies by value, member order aside', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true)
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false)
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false)
    expect(sameJson([1, 2], [2, 1])).toBe(false)
  })
})

describe('webhook payload forms', () => {
  const body = { orderId: 7, merchantRecognitionId: 'mr/ü', amounts: [1.5, 2], nested: { ok: true, none: null } }
  const signed = Object.fromEntries(WEBHOOK_PAYLOAD_FORMS.map((f) => [f, signWebhook(f, 1700000000123, body, SECRET)]))

  it('each verifies with node:crypto over the header value', () => {
    for (const f of WEBHOOK_PAYLOAD_FORMS) expect(signed[f]!.signature, f).toBe(hmac(signed[f]!.payload))
  })

  it('compact: JSON.stringify of {timestamp, body}', () => {
    expect(text(signed.compact!.payload)).toBe(JSON.stringify({ timestamp: 1700000000123, body }))
  })

  it("spaced: Python's json.dumps (', ' and ': ', non-ASCII as \\u escapes)", () => {
    expect(text(signed.spaced!.payload)).toBe(
      '{"timestamp": 1700000000123, "body": {"orderId": 7, "merchantRecognitionId": "mr/\\u00fc", "amounts": [1.5, 2], "nested": {"ok": true, "none": null}}}'
    )
  })

  it("slashEscaped: PHP's json_encode (\\/ and \\u escapes)", () => {
    expect(text(signed.slashEscaped!.payload)).toBe(
      '{"timestamp":1700000000123,"body":{"orderId":7,"merchantRecognitionId":"mr\\/\\u00fc","amounts":[1.5,2],"nested":{"ok":true,"none":null}}}'
    )
  })

  it('bodyOnly: the body alone, no {timestamp, body} wrapper', () => {
    expect(JSON.parse(text(signed.bodyOnly!.payload))).toEqual(body)
  })

  it('all four carry the same body once parsed', () => {
    for (const f of ['compact', 'spaced', 'slashEscaped'] as const) expect(JSON.parse(text(signed[f]!.payload)).body).toEqual(body)
  })
})

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { signRequest } from '../../../../src/main/api/signer'
import { exactDifference, readExact } from '../../../../src/shared/api/exact-json'
import { decodePayload, verifySignature } from '../../../../src/shared/api/signature'

// Expected values computed once with node:crypto:
//   payload = Buffer.from(JSON.stringify({timestamp, body})).toString('base64')
//   signature = createHmac('sha512', secret).update(payload).digest('hex')
const vectors = [
  {
    timestamp: 1700000000000,
    body: {},
    secret: 'secret',
    payload: 'eyJ0aW1lc3RhbXAiOjE3MDAwMDAwMDAwMDAsImJvZHkiOnt9fQ==',
    signature:
      '6e2f47d6074f435c1b45a134dafeb3cb20b6b8b7a25ace35c2a75a401c6acc932f86f31cdec42017467bb7b0d419b559fed2827871867613eef1c8c3e686dc4b'
  },
  {
    timestamp: 1732147200123,
    body: { fiatType: 1 },
    secret: 'Sx9-äö€',
    payload: 'eyJ0aW1lc3RhbXAiOjE3MzIxNDcyMDAxMjMsImJvZHkiOnsiZmlhdFR5cGUiOjF9fQ==',
    signature:
      '28532bcc539bec5a8c97a89ce3b79f8f6eaaddd598c7159a4d25a02faa222d3369138b5b7af758d36d485625bde87f30794613d5948fb39c280b2603cdac7767'
  },
  {
    timestamp: 1732147200999,
    body: { webhookUrl: 'https://example.test/hook?a=1&b=ü' },
    secret: 'k',
    payload: 'eyJ0aW1lc3RhbXAiOjE3MzIxNDcyMDA5OTksImJvZHkiOnsid2ViaG9va1VybCI6Imh0dHBzOi8vZXhhbXBsZS50ZXN0L2hvb2s/YT0xJmI9w7wifX0=',
    signature:
      '53cf4bd9196d66b27434a1938ff27330af18072288bab80af2ec85052ef213e0efb8f7e7b56638f8bd0f34562130804e065719d2431a024518118fb79f0e7671'
  }
]

describe('signRequest', () => {
  test.each(vectors)('matches the node:crypto vector for $body at $timestamp', ({ timestamp, body, secret, payload, signature }) => {
    const { headers, bodyText } = signRequest({ serviceName: 'service', apiKey: 'AK', apiSecret: secret, body, timestamp })
    expect(headers).toEqual({
      'X-SERVICE-APIKEY': 'AK',
      'X-SERVICE-PAYLOAD': payload,
      'X-SERVICE-SIGNATURE': signature,
      Accept: 'application/json',
      'Content-Type': 'application/json;charset=UTF-8'
    })
    expect(bodyText).toBe(JSON.stringify(body))
  })

  test('an omitted body is signed and sent as {}', () => {
    const { headers, bodyText } = signRequest({ serviceName: 'service', apiKey: 'AK', apiSecret: 'secret', timestamp: 1700000000000 })
    expect(headers['X-SERVICE-PAYLOAD']).toBe(vectors[0]!.payload)
    expect(bodyText).toBe('{}')
  })

  test('header names follow the service name', () => {
    const { headers } = signRequest({ serviceName: 'acme', apiKey: 'AK', apiSecret: 's', timestamp: 1 })
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(['X-ACME-APIKEY', 'X-ACME-PAYLOAD', 'X-ACME-SIGNATURE']))
  })

  test('property: the payload decodes to the timestamp and the exact body sent, and verifies', () => {
    const jsonObject = fc.dictionary(fc.string(), fc.jsonValue()).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>)
    fc.assert(
      fc.property(jsonObject, fc.integer({ min: 0, max: 2 ** 47 }), fc.string({ minLength: 1 }), (body, timestamp, secret) => {
        const { headers, bodyText } = signRequest({ serviceName: 'service', apiKey: 'k', apiSecret: secret, body, timestamp })
        const payload = headers['X-SERVICE-PAYLOAD']!
        const decoded = decodePayload(payload)
        expect(decoded.timestamp).toBe(timestamp)
        // The bytes sent are the body that was signed (section 5 step 4).
        expect(JSON.stringify(decoded.body)).toBe(bodyText)
        // Number for number the same decimals, read from both texts (no float in between).
        const signed = readExact(Buffer.from(payload, 'base64').toString('utf8'))
        expect(signed.kind === 'object' && exactDifference(signed.members.get('body')!, readExact(bodyText))).toBeNull()
        expect(verifySignature(payload, headers['X-SERVICE-SIGNATURE']!, secret)).toBe(true)
        expect(verifySignature(payload, headers['X-SERVICE-SIGNATURE']!, secret + 'x')).toBe(false)
      })
    )
  })
})

// The webhook inbox holds the JSON body to the signed record number by number, each as the
// decimal its text writes (delivery-verdict.ts, rule 3): a body whose numbers JSON.parse
// reads as the signed ones but which are other decimals is refused, named by field; every
// way a real sender spells the same values still verifies. Over real loopback HTTP, with a
// real profile database.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { WebhookDelivery } from '../../../../src/shared/ipc/contract'
import { openLocalStore, type LocalStore } from '../../../../src/main/store/local-store'
import { startInbox, type RunningInbox, type WebhookRecord } from '../../../../src/main/webhooks/inbox'
import { hmacHex, LOGGED_FORM, SENDER_FORMS, signedWebhook } from '../../../support/webhook-senders'

const SECRET = 'exact-body-secret-123'
const NOW = 1_700_000_000_000

/** An onramp record as text, with `amount` written as given (a number's text, not a float). */
const recordText = (amount: string, extra = '') =>
  `{"orderId":4242,"walletAddress":"0x1111111111111111111111111111111111111111","coinId":54,"fiatType":1,` +
  `"expectedPrice":85.1,"fiatAmount":${amount},"expectedCryptoAmount":0.008157600000000001,"actualPrice":85.2,` +
  `"actualCryptoAmount":11.18,"kycNeeded":0,"createdAt":"2025-01-02T03:04:05.000Z","updatedAt":"2025-01-02T03:14:05.000Z",` +
  `"status":5,"referenceId":"ref-1","chainId":1,"onRampFee":2.5,"gasFee":0.1,"clientFee":0,"gatewayFee":5,` +
  `"transactionHash":"0xabc","merchantRecognitionId":"m/é"${extra}}`

/** A delivery whose payload is `payloadJson` exactly as written (base64), signed, and whose body is `body`. */
function delivery(payloadJson: string, body: string) {
  const payload = Buffer.from(payloadJson, 'utf8').toString('base64')
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-service-payload': payload, 'x-service-signature': hmacHex(payload, SECRET) }
  }
}
const wrapped = (record: string, ts = NOW) => `{"timestamp":${ts},"body":${record}}`

let dir: string
let store: LocalStore
let inbox: RunningInbox
let passed: WebhookRecord[]
let events: WebhookDelivery[]

async function post(d: { body: string; headers: Record<string, string> }) {
  const res = await request(inbox.url, { method: 'POST', body: d.body, headers: d.headers })
  return { status: res.statusCode, json: (await res.body.json()) as { ok: boolean; reason: string } }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-exact-body-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeEach(async () => {
  store = openLocalStore(join(dir, String(Math.random()).slice(2)))
  passed = []
  events = []
  inbox = await startInbox({
    serviceNow: () => NOW + 1_000,
    getSecret: async () => SECRET,
    deliveries: store.webhookDeliveries,
    onVerified: (w) => void passed.push(w),
    onDelivery: (d) => events.push(d)
  })
})
afterEach(async () => {
  await inbox.close()
  store.close()
})

describe('a body whose numbers are not the signed decimals', () => {
  it('refuses a body of 1000 under a signed 1000.00000000000001 (one float, two decimals), naming the field', async () => {
    const r = await post(delivery(wrapped(recordText('1000.00000000000001')), recordText('1000')))
    expect(r.status).toBe(400)
    expect(r.json.reason).toBe(
      'signature genuine, but the JSON body differs from the order record the signature covers at fiatAmount ' +
        '(the body has 1000, the signed record 1000.00000000000001; a body the signature does not vouch for): not applied'
    )
    expect(passed).toEqual([])
    expect(events[0]).toMatchObject({ verified: false, orderId: 4242 })
    expect(store.webhookDeliveries.list().rows[0]).toMatchObject({ verified: false, reason: r.json.reason })
    // The body byte for byte as signed verifies, though JSON.parse reads its amount as 1000.
    const same = await post(delivery(wrapped(recordText('1000.00000000000001'), NOW + 1), recordText('1000.00000000000001')))
    expect(same.status).toBe(200)
    expect(passed.map((p) => p.record.orderId)).toEqual([4242])
  })

  it('refuses null, or another huge exponent, under a signed 1e400 (both Infinity to JSON.parse); the same decimal verifies', async () => {
    const signed = recordText('1000', ',"extra":{"big":[1e400]}')
    const nulled = await post(delivery(wrapped(signed), recordText('1000', ',"extra":{"big":[null]}')))
    expect(nulled.json.reason).toMatch(/covers at extra\.big\[0\] \(the body has null, the signed record 1e400;/)
    const other = await post(delivery(wrapped(signed), recordText('1000', ',"extra":{"big":[1e401]}')))
    expect(other.json.reason).toMatch(/at extra\.big\[0\] \(the body has 1e401, the signed record 1e400;/)
    expect([nulled.status, other.status]).toEqual([400, 400])
    const respelled = await post(delivery(wrapped(signed), recordText('1000.0', ',"extra":{"big":[10E+399]}')))
    expect(respelled.status).toBe(200)
    expect(passed).toHaveLength(1)
  })

  it('refuses an amount written as a string where the signed record has a number, and a member the record lacks', async () => {
    const signed = wrapped(recordText('1000'))
    const quoted = await post(delivery(signed, recordText('"1000"')))
    expect(quoted.json.reason).toMatch(/at fiatAmount \(the body has "1000", the signed record 1000;/)
    const added = await post(delivery(signed, recordText('1000', ',"fiatAmountExact":"1000.5"')))
    expect(added.json.reason).toMatch(/at fiatAmountExact \(the body has "1000.5", the signed record nothing;/)
    expect(passed).toEqual([])
    expect(store.webhookDeliveries.list().rows.map((r) => r.verified)).toEqual([false, false])
  })
})

describe('every spelling of the signed values still verifies', () => {
  it.each(SENDER_FORMS)(
    '%s payload, with the service’s binary artefacts (0.008157600000000001) and a body JSON.stringify wrote',
    async (form) => {
      const record = JSON.parse(recordText('0.30000000000000004')) as Record<string, unknown>
      const w = signedWebhook(record, { secret: SECRET, timestamp: NOW, form })
      expect(w.body).toContain('"expectedCryptoAmount":0.008157600000000001')
      const r = await post(w)
      expect(r.status).toBe(200)
      expect(events[0]).toMatchObject({ verified: true, payloadForm: LOGGED_FORM[form] })
      expect(passed).toHaveLength(1)
    }
  )

  it('verifies a payload Python wrote (1e+16, 1000.0, \\u escapes) under the body JavaScript wrote of the same values', async () => {
    const python =
      '{"timestamp": 1700000000000, "body": {"orderId": 4242, "status": 5, "fiatAmount": 1000.0, "volume": 1e+16, ' +
      '"merchantRecognitionId": "m\\/\\u00e9", "updatedAt": "2025-01-02T03:14:05.000Z"}}'
    const body = JSON.stringify({
      updatedAt: '2025-01-02T03:14:05.000Z',
      merchantRecognitionId: 'm/é',
      volume: 1e16,
      fiatAmount: 1000,
      status: 5,
      orderId: 4242
    })
    expect(body).toContain('"volume":10000000000000000')
    const r = await post(delivery(python, body))
    expect(r.status).toBe(200)
    expect(events[0]).toMatchObject({ verified: true, payloadForm: 'timestamp+body (spaced, slash-escaped)' })
  })
})

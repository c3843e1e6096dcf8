// The webhookPayloadForm reading over loopback: a receiver checks every delivery with
// node:crypto over the x-service-payload header bytes, and reads which form arrived:
// compact JSON {timestamp, body}, Python's spaced JSON, PHP's escaped slashes, or the
// body alone. The delivered body is the same order in every form.
import type { IncomingHttpHeaders } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox, type WebhookPayloadForm } from '../../../src/sandbox'
import { data, hmacHex, startReceiver } from './sandbox-client'

interface Received {
  headers: IncomingHttpHeaders
  text: string
}

let sb: Sandbox
let receiver: Awaited<ReturnType<typeof startReceiver>>
const received: Received[] = []
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 12, orders: 10, autoGenerate: false, now: () => t, serviceName: 'acme', webhookBackoffMs: 5 })
  receiver = await startReceiver((headers, text, res) => {
    received.push({ headers, text })
    res.writeHead(200).end('ok')
  })
  await data(sb, 'setWebhookUrl', { webhookUrl: `${receiver.url}/hook` })
})
afterAll(async () => {
  await sb.close()
  await receiver.close()
})
beforeEach(() => {
  received.length = 0
  t += 61_000
})

/** Delivers one order's webhook in a form; returns the raw payload text, the signature check and the body. */
async function deliver(form: WebhookPayloadForm, orderId: number) {
  sb.control.setReadings({ webhookPayloadForm: form })
  await data(sb, 'resendWebhook', { orderId: String(orderId) })
  const got = received.at(-1)!
  // The header word is the service's name.
  const payload = String(got.headers['x-acme-payload'])
  const signature = String(got.headers['x-acme-signature'])
  return {
    text: Buffer.from(payload, 'base64').toString('utf8'),
    verified: hmacHex(payload, sb.apiSecret) === signature,
    body: JSON.parse(got.text) as Record<string, unknown>
  }
}

describe('webhookPayloadForm', () => {
  it('each form verifies over the header bytes and carries the delivered order', async () => {
    // A merchantRecognitionId with a slash and a non-ASCII letter, so every form writes it differently.
    const o = sb.control.createOrder({
      type: 1,
      coinCode: 'usdt',
      network: 'bep20',
      fiatType: 1,
      fiatAmount: 2500,
      merchantRecognitionId: 'shop/Zürich-42',
      hold: true
    })
    const at = sb.control.serverNow()

    const compact = await deliver('compact', o.orderId)
    expect(compact.verified).toBe(true)
    expect(compact.text).toBe(JSON.stringify({ timestamp: at, body: compact.body }))

    const spaced = await deliver('spaced', o.orderId)
    expect(spaced.verified).toBe(true)
    expect(spaced.text.startsWith(`{"timestamp": ${at}, "body": {"orderId": ${o.orderId}, `)).toBe(true)
    expect(spaced.text).toContain('"merchantRecognitionId": "shop/Z\\u00fcrich-42"')
    expect(JSON.parse(spaced.text)).toEqual({ timestamp: at, body: spaced.body })

    const php = await deliver('slashEscaped', o.orderId)
    expect(php.verified).toBe(true)
    expect(php.text).toContain('"merchantRecognitionId":"shop\\/Z\\u00fcrich-42"')
    expect(JSON.parse(php.text)).toEqual({ timestamp: at, body: php.body })

    const bare = await deliver('bodyOnly', o.orderId)
    expect(bare.verified).toBe(true)
    expect(JSON.parse(bare.text)).toEqual(bare.body)
    expect(JSON.parse(bare.text)).not.toHaveProperty('timestamp')

    // Same order every time (only webhookTrials counts up).
    for (const d of [compact, spaced, php, bare]) expect({ ...d.body, webhookTrials: 0 }).toEqual({ ...compact.body, webhookTrials: 0 })
    expect(compact.body).toMatchObject({ orderId: o.orderId, merchantRecognitionId: 'shop/Zürich-42' })
  })

  it('applies to completion webhooks and the dummy webhook too', async () => {
    sb.control.setReadings({ webhookPayloadForm: 'bodyOnly' })
    const o = sb.control.createOrder({ type: 2, coinCode: 'usdt', network: 'trc20', quantity: 120, path: 'completed', hold: true })
    for (let i = 0; i < 10; i++) {
      try {
        sb.control.advanceOrder(o.orderId)
      } catch {
        break
      }
    }
    await data(sb, 'sendDummyWebhook', {})
    await sb.control.deliveriesIdle()
    expect(received).toHaveLength(2)
    for (const r of received) {
      const payload = String(r.headers['x-acme-payload'])
      expect(hmacHex(payload, sb.apiSecret)).toBe(r.headers['x-acme-signature'])
      expect(JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))).toEqual(JSON.parse(r.text))
    }
  })
})

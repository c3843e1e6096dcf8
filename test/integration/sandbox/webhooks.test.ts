// Webhook delivery over loopback to a test receiver that verifies every signature:
// completion webhooks (onramp and offramp shapes), retries with backoff counting
// webhookTrials, the 5 s deadline (shortened to 1 s here), sendDummyWebhook and resendWebhook.
import type { IncomingHttpHeaders } from 'node:http'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { OfframpOrder, OnrampOrder } from '../../../src/shared/api/schemas'
import { call, data, hmacHex, startReceiver } from './sandbox-client'

interface Received {
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
  verified: boolean
}

let sb: Sandbox
let receiver: Awaited<ReturnType<typeof startReceiver>>
let hookUrl = ''
const received: Received[] = []
/** What the receiver answers next: a status per request (then 200), or 'hang'. */
let script: (number | 'hang')[] = []
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({
    seed: 8,
    orders: 20,
    autoGenerate: false,
    now: () => t,
    webhookBackoffMs: 5,
    webhookTimeoutMs: 1000,
    webhookMaxTrials: 4
  })
  receiver = await startReceiver((headers, text, res) => {
    const payload = String(headers['x-service-payload'] ?? '')
    const signature = String(headers['x-service-signature'] ?? '')
    const body = JSON.parse(text) as Record<string, unknown>
    // A receiver trusts a body only if the signature checks and the payload carries that very body.
    const signed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { timestamp: number; body: unknown }
    const verified =
      hmacHex(payload, sb.apiSecret) === signature && Number.isInteger(signed.timestamp) && isDeepStrictEqual(signed.body, body)
    received.push({ headers, body, verified })
    const next = script.shift() ?? 200
    if (next === 'hang') return
    res.writeHead(next, { 'content-type': 'text/plain' })
    res.end(next === 202 ? 'accepted' : next >= 400 ? 'nope' : 'ok')
  })
  hookUrl = `${receiver.url}/hooks/rampdesk`
})

afterAll(async () => {
  await sb.close()
  await receiver.close()
})

beforeEach(() => {
  received.length = 0
  script = []
  t += 61_000
})

async function finish(orderId: number): Promise<void> {
  for (let i = 0; i < 20; i++) {
    try {
      sb.control.advanceOrder(orderId)
    } catch {
      break
    }
  }
  await sb.control.deliveriesIdle()
}

describe('webhooks', () => {
  it('setWebhookUrl stores the URL per API key', async () => {
    expect(await data(sb, 'setWebhookUrl', { webhookUrl: hookUrl })).toBe(`Webhook URL set to ${hookUrl}`)
    expect(sb.control.webhookUrl()).toBe(hookUrl)
    expect(sb.control.webhookUrl('another-key')).toBeUndefined()
  })

  it('POSTs a signed onramp record when an order completes, then marks it "webhook sent"', async () => {
    const o = sb.control.createOrder({
      type: 1,
      coinCode: 'usdt',
      network: 'bep20',
      fiatType: 1,
      fiatAmount: 3000,
      path: 'completed',
      hold: true
    })
    await finish(o.orderId)
    expect(received).toHaveLength(1)
    const got = received[0]!
    expect(got.verified).toBe(true)
    expect(got.headers['content-type']).toMatch(/application\/json/)
    expect(OnrampOrder.safeParse(got.body).success).toBe(true)
    expect(got.body).toMatchObject({
      orderId: o.orderId,
      status: 15,
      webhookTrials: 1,
      paymentType: expect.any(Number),
      onRampFee: expect.any(Number)
    })
    for (const k of [
      'orderId',
      'walletAddress',
      'coinId',
      'fiatType',
      'expectedPrice',
      'fiatAmount',
      'expectedCryptoAmount',
      'actualPrice',
      'actualCryptoAmount',
      'kycNeeded',
      'createdAt',
      'updatedAt',
      'status',
      'referenceId',
      'chainId',
      'onRampFee',
      'gasFee',
      'clientFee',
      'gatewayFee',
      'transactionHash',
      'merchantRecognitionId'
    ]) {
      expect(got.body, k).toHaveProperty(k)
    }
    const truth = sb.control.order(o.orderId)!
    expect(truth.status).toBe(16)
    expect(truth.history.map((h) => h.status).slice(-2)).toEqual([15, 16])
    expect(truth.webhookTrials).toBe(1)
    const d = sb.control.listDeliveries().filter((x) => x.orderId === o.orderId)
    expect(d).toMatchObject([{ kind: 'order', attempt: 1, ok: true, httpStatus: 200, url: hookUrl }])
  })

  it('retries a failing receiver with backoff, counting webhookTrials', async () => {
    script = [500, 503, 'hang']
    const o = sb.control.createOrder({
      type: 1,
      coinCode: 'eth',
      network: 'matic20',
      fiatType: 1,
      fiatAmount: 5000,
      path: 'completed (legacy)',
      hold: true
    })
    await finish(o.orderId)
    expect(received.map((r) => r.body.webhookTrials)).toEqual([1, 2, 3, 4])
    expect(received.every((r) => r.verified)).toBe(true)
    const d = sb.control.listDeliveries().filter((x) => x.orderId === o.orderId)
    expect(d.map((x) => [x.attempt, x.ok, x.httpStatus])).toEqual([
      [1, false, 500],
      [2, false, 503],
      [3, false, null],
      [4, true, 200]
    ])
    expect(d[2]!.error).toBe('no answer within 1000 ms')
    expect(sb.control.order(o.orderId)).toMatchObject({ status: 5, webhookTrials: 4 })
  })

  it('gives up after the last trial and leaves the order at its completion status', async () => {
    script = [500, 500, 500, 500]
    const o = sb.control.createOrder({
      type: 1,
      coinCode: 'usdt',
      network: 'matic20',
      fiatType: 1,
      fiatAmount: 3000,
      path: 'completed',
      hold: true
    })
    await finish(o.orderId)
    expect(received).toHaveLength(4)
    expect(sb.control.order(o.orderId)).toMatchObject({ status: 15, webhookTrials: 4 })
    // A later resend that the merchant acknowledges completes the job.
    expect(await data<string>(sb, 'resendWebhook', { orderId: o.orderId })).toBe("Response received from merchant's server: HTTP 200: ok")
    expect(received[4]!.body).toMatchObject({ orderId: o.orderId, status: 15, webhookTrials: 5 })
    expect(sb.control.order(o.orderId)).toMatchObject({ status: 16, webhookTrials: 5 })
  })

  it('sends offramp records with the live extras', async () => {
    const o = sb.control.createOrder({ type: 2, coinCode: 'usdt', network: 'trc20', quantity: 150, path: 'completed', hold: true })
    await finish(o.orderId)
    const got = received[0]!
    expect(got.verified).toBe(true)
    expect(OfframpOrder.safeParse(got.body).success).toBe(true)
    expect(got.body).toMatchObject({
      orderId: o.orderId,
      eventType: 'offramp',
      coinCode: 'usdt',
      network: 'trc20',
      status: 14,
      statusDescription: 'fiat withdrawal processed',
      webhookTrials: 1
    })
    expect(sb.control.order(o.orderId)!.status).toBe(15)
  })

  it('sendDummyWebhook posts a dummy onramp body to the given URL (or the stored one)', async () => {
    expect(await data(sb, 'sendDummyWebhook', { webhookUrl: hookUrl + '?dummy=1' })).toBe(`Dummy webhook sent to ${hookUrl}?dummy=1`)
    await sb.control.deliveriesIdle()
    expect(await data(sb, 'sendDummyWebhook', {})).toBe(`Dummy webhook sent to ${hookUrl}`)
    await sb.control.deliveriesIdle()
    expect(received).toHaveLength(2)
    for (const r of received) {
      expect(r.verified).toBe(true)
      expect(OnrampOrder.safeParse(r.body).success).toBe(true)
      expect(r.body).toMatchObject({ paymentType: 1, webhookTrials: 1 })
    }
  })

  it('resendWebhook answers after the merchant server did, saying what it answered', async () => {
    const id = sb.control.groundTruth()[0]!.orderId
    const resendsBefore = sb.control.listDeliveries().filter((d) => d.kind === 'resend').length
    script = [202]
    const text = await data<string>(sb, 'resendWebhook', { orderId: String(id) })
    expect(text).toBe("Response received from merchant's server: HTTP 202: accepted")
    expect(received).toHaveLength(1)
    expect(received[0]!.body.orderId).toBe(id)
    script = [500]
    expect(await data<string>(sb, 'resendWebhook', { orderId: id })).toBe("Response received from merchant's server: HTTP 500: nope")
    expect(sb.control.listDeliveries().filter((d) => d.kind === 'resend')).toHaveLength(resendsBefore + 2)
  })

  it('without a webhook URL, the webhook calls answer 400', async () => {
    const other = await startSandbox({ orders: 5, autoGenerate: false })
    try {
      const r = await call(other, 'resendWebhook', { body: { orderId: 100001 } })
      expect(r.status).toBe(400)
      expect(r.json).toMatchObject({ status: 0, code: 400, error: expect.stringMatching(/No webhook URL/) })
      expect((await call(other, 'sendDummyWebhook', { body: {} })).status).toBe(400)
    } finally {
      await other.close()
    }
  })
})

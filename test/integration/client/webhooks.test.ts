// Webhooks end to end: setWebhookUrl through the real ApiClient points the sandbox at a
// node:http receiver on 127.0.0.1; orders completed through the control API, a dummy
// webhook and a resend all arrive there, and the receiver verifies each one the way a
// merchant must: x-service-signature is the HMAC of x-service-payload under the API
// secret (verifySignature, constant time), and the payload's body equals the JSON body
// exactly, numbers as the decimals their texts write (as the inbox holds it: exact-json.ts).
// resendWebhook's answer says what the receiver answered.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../src/main/api/client'
import type { Sandbox } from '../../../src/sandbox'
import { authHeaderNames } from '../../../src/shared/api/endpoints'
import { exactDifference, readExact } from '../../../src/shared/api/exact-json'
import { verifySignature } from '../../../src/shared/api/signature'
import { caught, clientFor, quietSandbox } from './support'

interface Received {
  path: string
  method: string
  headers: IncomingHttpHeaders
  body: unknown
  /** The receiver's own verdict, made as the request arrived. */
  verified: boolean
  payloadMatchesBody: boolean
}

let sb: Sandbox
let client: ApiClient
let receiver: Server
let base: string
const received: Received[] = []
/** What the receiver answers next: status and body text. */
let answer = { status: 200, text: 'ok' }
const names = authHeaderNames('service')

beforeAll(async () => {
  sb = await quietSandbox({ seed: 17, orders: 20 })
  client = clientFor(sb)
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const payload = String(req.headers[names.webhookPayload] ?? '')
      const signature = String(req.headers[names.webhookSignature] ?? '')
      let body: unknown = undefined
      let payloadMatchesBody = false
      try {
        body = JSON.parse(text)
        const signed = readExact(Buffer.from(payload, 'base64').toString('utf8'))
        const signedBody = signed.kind === 'object' ? signed.members.get('body') : undefined
        payloadMatchesBody = signedBody !== undefined && exactDifference(signedBody, readExact(text)) === null
      } catch {
        payloadMatchesBody = false
      }
      received.push({
        path: req.url ?? '',
        method: req.method ?? '',
        headers: req.headers,
        body,
        verified: verifySignature(payload, signature, sb.apiSecret),
        payloadMatchesBody
      })
      res.writeHead(answer.status, { 'content-type': 'text/plain' })
      res.end(answer.text)
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})
beforeEach(() => {
  received.length = 0
  answer = { status: 200, text: 'ok' }
})
afterAll(async () => {
  await client?.close()
  await sb?.close()
  receiver?.closeAllConnections()
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()))
})

function expectVerified(r: Received | undefined): asserts r is Received {
  expect(r).toBeDefined()
  const got = r as Received
  expect(got.method).toBe('POST')
  expect(got.verified, 'signature verifies under the API secret').toBe(true)
  expect(got.payloadMatchesBody, 'payload body equals the JSON body').toBe(true)
  // The check can fail: the same delivery does not verify under another secret.
  expect(verifySignature(String(got.headers[names.webhookPayload]), String(got.headers[names.webhookSignature]), 'another-secret')).toBe(
    false
  )
}

describe('webhooks through the client', () => {
  it('sendDummyWebhook before any URL is set is refused (400), and nothing is delivered', async () => {
    expect(await caught(client.sendDummyWebhook())).toMatchObject({ kind: 'api', code: 400 })
    await sb.control.deliveriesIdle()
    expect(received).toEqual([])
  })

  it('setWebhookUrl answers with the URL it set, and the sandbox keeps it for this key', async () => {
    const url = `${base}/hooks`
    expect(await client.setWebhookUrl({ webhookUrl: url })).toBe(`Webhook URL set to ${url}`)
    expect(sb.control.webhookUrl(sb.apiKey)).toBe(url)
  })

  it('an onramp order completed through the control API arrives signed; acknowledged, it moves to "webhook sent"', async () => {
    const o = sb.control.createOrder({
      type: 1,
      fiatType: 1,
      coinCode: 'usdt',
      network: 'bep20',
      fiatAmount: 5000,
      path: 'completed',
      hold: true,
      merchantRecognitionId: 'it-onramp-1'
    })
    sb.control.advanceOrder(o.orderId, 14)
    await sb.control.deliveriesIdle()
    expect(received).toEqual([]) // intermediate states are only seen by polling
    sb.control.advanceOrder(o.orderId, 15)
    await sb.control.deliveriesIdle()
    expect(received).toHaveLength(1)
    const r = received[0]
    expectVerified(r)
    expect(r.path).toBe('/hooks')
    expect(r.body).toMatchObject({
      orderId: o.orderId,
      status: 15,
      merchantRecognitionId: 'it-onramp-1',
      coinId: 54,
      chainId: 1,
      webhookTrials: 1
    })
    expect(await client.orderStatus({ orderId: o.orderId, type: 1 })).toEqual({ orderStatus: 16 })
  })

  it('an offramp order completed arrives with the offramp record and eventType "offramp"', async () => {
    const o = sb.control.createOrder({ type: 2, coinCode: 'usdt', network: 'trc20', quantity: 100, path: 'completed', hold: true })
    sb.control.advanceOrder(o.orderId, 14)
    await sb.control.deliveriesIdle()
    expect(received).toHaveLength(1)
    const r = received[0]
    expectVerified(r)
    expect(r.body).toMatchObject({ orderId: o.orderId, status: 14, eventType: 'offramp', coinCode: 'usdt', network: 'trc20' })
    expect(await client.orderStatus({ orderId: o.orderId, type: 2 })).toEqual({ orderStatus: 15 })
  })

  it('sendDummyWebhook goes to the URL set, or to the one given, signed either way', async () => {
    expect(await client.sendDummyWebhook()).toBe(`Dummy webhook sent to ${base}/hooks`)
    expect(await client.sendDummyWebhook({ webhookUrl: `${base}/elsewhere?x=1` })).toBe(`Dummy webhook sent to ${base}/elsewhere?x=1`)
    await sb.control.deliveriesIdle()
    expect(received.map((r) => r.path).sort()).toEqual(['/elsewhere?x=1', '/hooks'])
    for (const r of received) {
      expectVerified(r)
      expect(r.body).toMatchObject({ paymentType: 1, webhookTrials: 1, kycNeeded: 0 })
    }
  })

  it('resendWebhook delivers the order again and answers with what the receiver answered', async () => {
    const o = sb.control.groundTruth({ type: 1 }).find((x) => x.status === 15 || x.status === 16 || x.status === 4 || x.status === 5)
    expect(o).toBeDefined()
    const id = o?.orderId ?? 0
    answer = { status: 202, text: `accepted ${id}` }
    const said = await client.resendWebhook({ orderId: id })
    expect(said).toBe(`Response received from merchant's server: HTTP 202: accepted ${id}`)
    expect(received).toHaveLength(1)
    expectVerified(received[0])
    expect(received[0]?.body).toMatchObject({ orderId: id })
  })

  it('resendWebhook to a receiver answering 500 still answers (status 1), saying so', async () => {
    const id = sb.control.groundTruth({ type: 1 })[0]?.orderId ?? 0
    answer = { status: 500, text: 'receiver is down for maintenance' }
    expect(await client.resendWebhook({ orderId: String(id) })).toBe(
      "Response received from merchant's server: HTTP 500: receiver is down for maintenance"
    )
    expect(received).toHaveLength(1)
    expectVerified(received[0])
  })
})

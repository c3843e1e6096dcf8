// Attack: the hub in the merchant's webhook path (--forward-to) made to relay what the
// signature does not cover, what the sender added, or the same delivery twice. The
// attacker holds a genuine signed payload: an admin had the service send a
// dummy to the attacker's URL (an operator may no longer do that), and the service's own
// deliveries can be seen on the wire. Expected: forged bodies relayed 0, duplicate relays 0,
// nothing relayed but the allowlisted headers, the relay's password in no log line, and a
// receiver that was down given every relay once it is back.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { statusInfo } from '../../../src/shared/domain/status'
import { signedWebhook } from '../../support/webhook-senders'
import { recordAttack, startHubProcess, sleep, type HubProcess } from './hub-process'

interface Got {
  headers: IncomingHttpHeaders
  body: string
}

/** The merchant's receiver answers this (503: it is down). */
let merchantStatus = 200

async function listen(onRequest: (g: Got) => void, status = () => 200): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const code = status()
      if (code === 200) onRequest({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 200 ? 'ok' : 'down')
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const RELAY_PASSWORD = 'relay-pw-9f3a77c1'
let hub: HubProcess
let merchant: { server: Server; url: string }
let attacker: { server: Server; url: string }
const relayed: Got[] = []
const captured: Got[] = []
let admin: string
let operator: string

beforeAll(async () => {
  merchant = await listen(
    (g) => relayed.push(g),
    () => merchantStatus
  )
  attacker = await listen((g) => captured.push(g))
  const target = new URL('/hook', merchant.url)
  target.username = 'merchant'
  target.password = RELAY_PASSWORD
  hub = await startHubProcess({
    sandbox: { orders: 30, webhookMaxTrials: 1 },
    args: ['--forward-to', target.toString()]
  })
  admin = hub.addOperator('ada', 'admin')
  operator = hub.addOperator('otto', 'operator')
  const inbox = await hub.call<{ url: string }>(admin, 'webhooks:inbox')
  expect((await hub.call(admin, 'webhooks:setUrl', { url: inbox.value!.url })).ok).toBe(true)
})
afterAll(async () => {
  await hub?.stop()
  for (const s of [merchant?.server, attacker?.server]) await new Promise<void>((ok) => (s ? s.close(() => ok()) : ok()))
})

const postToHub = async (headers: Record<string, string>, body: string) => {
  const r = await request(`${hub.url}/webhook`, { method: 'POST', headers, body })
  return { status: r.statusCode, reason: ((await r.body.json()) as { reason: string }).reason }
}

const signedHeaders = (g: Got): Record<string, string> => ({
  'content-type': String(g.headers['content-type']),
  'x-service-payload': String(g.headers['x-service-payload']),
  'x-service-signature': String(g.headers['x-service-signature'])
})

/** Waits until the hub has had time to relay (it relays after answering). */
const settle = () => sleep(600)

describe('the relay under attack', () => {
  it('an operator cannot have the service sign a dummy for a URL of their choosing; an admin can', async () => {
    const refused = await hub.call(operator, 'webhooks:sendDummy', { target: 'url', url: `${attacker.url}/grab` })
    expect(refused.ok).toBe(false)
    expect(refused.error!.message).toMatch(/needs the admin role/)
    // The hub's own inbox stays an operator's.
    expect((await hub.call(operator, 'webhooks:sendDummy', { target: 'inbox' })).ok).toBe(true)
    expect((await hub.call(admin, 'webhooks:sendDummy', { target: 'url', url: `${attacker.url}/grab` })).ok).toBe(true)
    await hub.sandbox.control.deliveriesIdle()
    expect(captured).toHaveLength(1)
  })

  it('relays no forged body, strips what the sender added, relays each delivery once', async () => {
    await settle()
    const before = relayed.length
    const genuine = captured[0]!
    const record = JSON.parse(genuine.body) as Record<string, unknown>

    // 1. The genuine signature over a forged order: another wallet, a final status.
    const forgedBodies = [
      { ...record, walletAddress: '0x000000000000000000000000000000000000dEaD' },
      { ...record, status: 16, actualCryptoAmount: 1e6 },
      // A duplicate key a receiver's parser may read as the first value, ours as the last.
      genuine.body.replace(/^\{/, `{"status":-1,`)
    ]
    let forgedRefused = 0
    for (const body of forgedBodies) {
      const r = await postToHub(signedHeaders(genuine), typeof body === 'string' ? body : JSON.stringify(body))
      if (r.status === 400 || r.status === 403) forgedRefused++
    }
    await settle()
    const forgedRelayed = relayed.length - before
    expect(forgedRelayed).toBe(0)

    // 2. The genuine delivery with headers of the attacker's: relayed once, without them.
    const extra = { authorization: 'Bearer stolen', cookie: 'session=1', 'x-forwarded-for': '203.0.113.7', 'x-evil': '1' }
    const first = await postToHub({ ...signedHeaders(genuine), ...extra }, genuine.body)
    expect(first.status).toBe(200)
    await settle()
    expect(relayed.length - before).toBe(1)
    const sent = relayed.at(-1)!
    expect(JSON.parse(sent.body)).toEqual(record)
    expect(sent.headers['x-service-payload']).toBe(genuine.headers['x-service-payload'])
    expect(sent.headers['x-service-signature']).toBe(genuine.headers['x-service-signature'])
    expect(sent.headers.cookie).toBeUndefined()
    expect(sent.headers['x-forwarded-for']).toBeUndefined()
    expect(sent.headers['x-evil']).toBeUndefined()
    // The only Authorization is the relay URL's own Basic credentials.
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`merchant:${RELAY_PASSWORD}`).toString('base64')}`)

    // 3. The same delivery again, byte for byte: a replay.
    const again = await postToHub(signedHeaders(genuine), genuine.body)
    expect(again.status).toBe(403)
    // 4. The service's own retry of it, signed afresh with webhookTrials + 1: a duplicate, acknowledged, not relayed.
    const retry = signedWebhook(
      { ...record, webhookTrials: Number(record.webhookTrials ?? 1) + 1 },
      { secret: hub.sandbox.apiSecret, timestamp: hub.sandbox.control.serverNow(), serviceName: hub.sandbox.serviceName }
    )
    expect((await postToHub(retry.headers, retry.body)).status).toBe(200)
    // 5. The same order and status with other content, signed afresh: inside the replay window, not relayed.
    const variant = signedWebhook(
      { ...record, updatedAt: new Date(hub.sandbox.control.serverNow()).toISOString() },
      { secret: hub.sandbox.apiSecret, timestamp: hub.sandbox.control.serverNow() + 1, serviceName: hub.sandbox.serviceName }
    )
    expect((await postToHub(variant.headers, variant.body)).status).toBe(200)
    await settle()
    const duplicateRelays = relayed.length - before - 1
    expect(duplicateRelays).toBe(0)
    expect(hub.output()).toMatch(/webhook relay of order \d+ status -?\d+ skipped: order \d+ status -?\d+ was already relayed/)
    recordAttack(
      'relay: forged bodies, added headers and repeats',
      { forgedPosted: forgedBodies.length, forgedRefused, forgedRelayed, duplicatesPosted: 3, duplicateRelays },
      { forgedRelayed: '= 0', duplicateRelays: '= 0' }
    )
  })

  it('a real completed order is relayed once per status, however often the service resends it', async () => {
    await settle()
    const before = relayed.length
    const order = hub.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    let last = order
    while (!statusInfo(1, last.status).terminal) last = hub.sandbox.control.advanceOrder(order.orderId)
    await hub.sandbox.control.deliveriesIdle()
    await settle()
    const statuses = () =>
      relayed
        .slice(before)
        .map((g) => JSON.parse(g.body) as { orderId: number; status: number })
        .filter((r) => r.orderId === order.orderId)
        .map((r) => r.status)
    expect(statuses()).toHaveLength(1)
    const sent = () => hub.sandbox.control.listDeliveries().filter((d) => d.orderId === order.orderId && d.ok).length
    const deliveredBefore = sent()
    // Resent three times: the first reports the order's newer status ("webhook sent"), the rest repeat it.
    for (let i = 0; i < 3; i++) {
      expect((await hub.call(operator, 'webhooks:resend', { orderId: order.orderId })).ok).toBe(true)
      await hub.sandbox.control.deliveriesIdle()
    }
    await settle()
    expect(sent()).toBe(deliveredBefore + 3)
    const relayedStatuses = statuses()
    expect(new Set(relayedStatuses).size).toBe(relayedStatuses.length)
    recordAttack(
      'relay: the service resending one order',
      { deliveries: sent(), relays: relayedStatuses.length, duplicateRelays: relayedStatuses.length - new Set(relayedStatuses).size },
      { duplicateRelays: '= 0' }
    )
  })

  it('a receiver that is down gets every relay once it is back, in order, once each, resends included', async () => {
    await settle()
    merchantStatus = 503
    const before = relayed.length
    const order = hub.sandbox.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true })
    let last = order
    while (!statusInfo(1, last.status).terminal) last = hub.sandbox.control.advanceOrder(order.orderId)
    await hub.sandbox.control.deliveriesIdle()
    const failing = () =>
      (hub.output().match(new RegExp(`WARN webhook relay of order ${order.orderId} .*HTTP 503: "down" \\(attempt \\d+\\)`, 'g')) ?? [])
        .length
    for (let i = 0; i < 100 && failing() < 1; i++) await sleep(100)
    expect(failing()).toBeGreaterThanOrEqual(1)
    // Resent while the receiver is down: the first resend reports the order's newer status
    // ("webhook sent"), kept behind the first; the second repeats it and adds nothing.
    for (let i = 0; i < 2; i++) {
      expect((await hub.call(operator, 'webhooks:resend', { orderId: order.orderId })).ok).toBe(true)
      await hub.sandbox.control.deliveriesIdle()
    }
    await sleep(1_500)
    expect(relayed.length).toBe(before)
    merchantStatus = 200
    const mine = () =>
      relayed
        .slice(before)
        .map((g) => JSON.parse(g.body) as { orderId: number; status: number })
        .filter((r) => r.orderId === order.orderId)
        .map((r) => r.status)
    for (let i = 0; i < 400 && mine().length < 2; i++) await sleep(100)
    await settle()
    const statuses = mine()
    expect(statuses).toHaveLength(2)
    expect(statuses[1]).not.toBe(statuses[0])
    expect(statuses[0]).toBe(last.status)
    recordAttack(
      'relay: the receiver down while the service resends',
      { relays: statuses.length, duplicateRelays: statuses.length - new Set(statuses).size, attemptsLogged: failing() },
      { duplicateRelays: '= 0', relays: '= 2, in order' }
    )
  })

  it('names the relay target without its password on every line', () => {
    expect(hub.output()).not.toContain(RELAY_PASSWORD)
    expect(hub.output()).not.toContain(hub.sandbox.apiSecret)
    expect(hub.output()).toMatch(/relaying verified webhooks to http:\/\/127\.0\.0\.1:\d+\/hook \(with Basic authentication\)/)
  })
})

// Webhooks through the handlers with the local inbox on: a dummy webhook from the
// sandbox arrives verified (delivery log and 'webhook:delivery'), setUrl and resend reach
// the sandbox and are audit-logged, and webhooks:verify checks a payload and signature
// against the active profile's secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodePayload, signPayload } from '../../../src/shared/api/signature'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness

beforeAll(async () => {
  h = await startServicesHarness({ sandbox: { orders: 60, autoGenerate: false, seed: 31, webhookBackoffMs: 50, webhookMaxTrials: 2 } })
})
afterAll(async () => {
  await h?.close()
})

describe('webhooks', () => {
  it('sending a dummy to the inbox is refused in plain words while the inbox is off', async () => {
    const r = await h.envelope('webhooks:sendDummy', { target: 'inbox' })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.message).toMatch(/inbox is off/)
  })

  it('with the inbox on, a dummy webhook arrives verified in the log and as an event', async () => {
    await h.call('settings:update', { inbox: { enabled: true, host: '127.0.0.1', port: 0 } })
    const inbox = await h.call('webhooks:inbox', {})
    expect(inbox).toMatchObject({ enabled: true, listening: true, warning: null, error: null })
    expect(inbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/)

    const before = h.lastSeq()
    const sent = await h.call('webhooks:sendDummy', { target: 'inbox' })
    expect(sent.sentTo).toBe(inbox.url)
    expect(sent.message.length).toBeGreaterThan(0)
    const ev = await h.waitFor('webhook:delivery', () => true, before)
    expect(ev.verified).toBe(true)
    expect(ev.reason).not.toBe('')

    const log = await h.call('webhooks:deliveries', { offset: 0, limit: 10 })
    expect(log.total).toBeGreaterThanOrEqual(1)
    expect(log.rows.find((r) => r.id === ev.id)).toMatchObject({ verified: true, orderType: 1 })
    const audit = await h.call('audit:list', { limit: 20 })
    expect(audit.rows.some((r) => r.action === 'webhook.sendDummy' && r.detail.target === 'inbox')).toBe(true)
  })

  it('setUrl registers the URL at the service and resend delivers one order there, both audit-logged', async () => {
    const inbox = await h.call('webhooks:inbox', {})
    const set = await h.call('webhooks:setUrl', { url: inbox.url! })
    expect(set.message).toContain(inbox.url!)
    const sb = h.services.sandbox()!
    expect(sb.control.webhookUrl()).toBe(inbox.url)

    const order = sb.control.groundTruth({ type: 1, fiatType: 1 }).find((o) => o.status === 5 || o.status === 16)!
    expect(order).toBeDefined()
    await h.services.session().monitor.syncNow()
    const before = h.lastSeq()
    const resent = await h.call('webhooks:resend', { orderId: order.orderId })
    expect(resent.message.length).toBeGreaterThan(0)
    const ev = await h.waitFor('webhook:delivery', (d) => d.orderId === order.orderId, before)
    expect(ev.verified).toBe(true)
    expect(ev.status).toBe(order.status)

    const audit = await h.call('audit:list', { limit: 50 })
    expect(audit.rows.some((r) => r.action === 'webhook.setUrl' && r.detail.url === inbox.url)).toBe(true)
    expect(audit.rows.some((r) => r.action === 'webhook.resend' && r.detail.orderId === order.orderId)).toBe(true)
  })

  it('setUrl answers the URL it replaced, as this app set it: the previous one, not the one just set', async () => {
    const before = await h.call('webhooks:lastUrl', {})
    const first = await h.call('webhooks:setUrl', { url: 'https://merchant.example/first' })
    expect(first.replaced).toEqual(before)
    const second = await h.call('webhooks:setUrl', { url: 'https://merchant.example/second' })
    expect(second.replaced).toMatchObject({ url: 'https://merchant.example/first', at: expect.any(Number) })
    expect(await h.call('webhooks:lastUrl', {})).toMatchObject({ url: 'https://merchant.example/second' })
  })

  it('verify: true for a correctly signed payload, false with a reason for a tampered one', async () => {
    const secret = h.services.sandbox()!.apiSecret
    const body = { orderId: 100123, status: 16, merchantRecognitionId: 'verify-me' }
    const payload = encodePayload(Date.now(), body)
    const signature = signPayload(payload, secret)

    const good = await h.call('webhooks:verify', { payload, signature })
    expect(good.match).toBe(true)
    expect(good.decoded).toMatchObject({ body })
    expect(good.reason).toMatch(/matches/)

    const tampered = encodePayload(Date.now(), { ...body, status: 5 })
    const bad = await h.call('webhooks:verify', { payload: tampered, signature })
    expect(bad.match).toBe(false)
    expect(bad.reason).toMatch(/does not match/)

    const otherSecret = await h.call('webhooks:verify', { payload, signature: signPayload(payload, 'another-secret-entirely') })
    expect(otherSecret.match).toBe(false)

    const junk = await h.call('webhooks:verify', { payload: 'not base64 json!', signature })
    expect(junk.match).toBe(false)
    expect(junk.reason).toMatch(/does not decode/)
    expect(h.contractViolations).toEqual([])
  })
})

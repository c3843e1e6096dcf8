// A desktop whose inbox receives the service's notices itself, through the handlers: an order
// completed while the service had no webhook URL (its notice never came) is raised once the
// grace period has passed (on the app's clock, moved 11 min ahead), an order whose notice the
// inbox verified is not; Resend says the desktop passes nothing on and asks the service, whose
// notice then reaches the inbox and clears the alert, audit-logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UnacknowledgedAlert } from '../../../src/shared/ipc/contract'
import { startServicesHarness, type ServicesHarness } from './harness'

let h: ServicesHarness
let ahead = 0

beforeAll(async () => {
  h = await startServicesHarness({ now: () => Date.now() + ahead, sandbox: { orders: 0, autoGenerate: false, seed: 41 } })
})
afterAll(async () => {
  await h?.close()
})

const unacknowledged = async () =>
  (await h.call('alerts:list', {})).alerts.filter((a): a is UnacknowledgedAlert => a.kind === 'unacknowledged')

describe("a desktop inbox's unconfirmed completions", () => {
  it('raises the completion whose notice never came, and Resend asks the service, whose notice clears it', async () => {
    await h.call('settings:update', { inbox: { enabled: true, host: '127.0.0.1', port: 0 } })
    const inbox = await h.call('webhooks:inbox', {})
    const sb = h.services.sandbox()!.control
    const silent = sb.createOrder({ type: 1, fiatType: 1, hold: true, churn: false }).orderId
    const told = sb.createOrder({ type: 1, fiatType: 1, hold: true, churn: false }).orderId
    sb.advanceOrder(silent, 15, 1)
    await h.call('webhooks:setUrl', { url: inbox.url! })
    const before = h.lastSeq()
    sb.advanceOrder(told, 15, 1)
    await h.waitFor('webhook:delivery', (d) => d.orderId === told && d.verified, before)
    await h.services.session().monitor.syncNow()

    expect(await unacknowledged()).toEqual([])
    ahead = 11 * 60_000
    const [a, ...rest] = await unacknowledged()
    expect(rest).toEqual([])
    expect(a).toMatchObject({ order: { type: 1, orderId: silent }, delivery: { kind: 'not-received' } })
    expect(a!.why).toBe("The service's notice of this completion never reached this desktop's inbox.")

    const resent = await h.call('alerts:resend', { type: 1, orderId: silent })
    expect(resent.done).toBe('service-asked')
    expect(resent.message).toMatch(/^This desktop passes nothing on to the merchant's system/)
    expect(await unacknowledged()).toEqual([])
    const audit = await h.call('audit:list', { limit: 20 })
    expect(audit.rows.some((r) => r.action === 'webhook.resend' && r.detail.orderId === silent)).toBe(true)
  })
})

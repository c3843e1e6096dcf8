// Completions the merchant's system never confirmed, on a real hub with --forward-to, on
// hub.db and on PostgreSQL: the sandbox completes orders and sends their webhooks to the
// hub, which relays them to a real receiver that answers 500 for one chosen order, 403 for
// another and 200 for the rest; one more order completes before the service has any webhook
// URL, so its notice never comes. After the grace period exactly those three orders are
// listed as unacknowledged (alerts:list, the metric), each with why, once the hub's clock is
// moved past the 10 min grace period (and none before it); the receiver answering
// 200 clears the retried one by itself; a resend (operator, audited; refused to a viewer)
// relays the refused one again and clears it, and asks the service for the one never received,
// whose notice then comes through the hub and clears it too.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Alert, ResendCompletion, UnacknowledgedAlert } from '../../../src/shared/ipc/contract'
import { UNACKNOWLEDGED_GRACE_MS } from '../../../src/shared/domain/unacknowledged'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, waitUntil, type HubFixture } from './support'

const MIN = 60_000

interface Receiver {
  url: string
  /** Order id -> the status answered for it (200 for any other). */
  answers: Map<number, number>
  /** Order id -> the statuses answered, in order. */
  answered: Map<number, number[]>
  close(): Promise<void>
}

async function startReceiver(): Promise<Receiver> {
  const answers = new Map<number, number>()
  const answered = new Map<number, number[]>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const orderId = Number((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { orderId: unknown }).orderId)
      const status = answers.get(orderId) ?? 200
      answered.set(orderId, [...(answered.get(orderId) ?? []), status])
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'credited' : 'down')
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    answers,
    answered,
    close: () => new Promise<void>((ok) => server.close(() => ok()))
  }
}

const stores = [
  { name: 'hub.db', pg: false },
  { name: 'PostgreSQL', pg: true }
]

describe.each(stores)('unacknowledged completions on a hub on $name', ({ pg }) => {
  const skip = pg && postgresUnavailable !== null
  let cluster: PgCluster | null = null
  let receiver: Receiver
  let f: HubFixture
  let admin: string
  let operator: string
  let viewer: string
  /** How far the hub's clock is ahead of this machine's: the grace period passes without waiting for it. */
  let ahead = 0

  beforeAll(async () => {
    if (skip) return
    receiver = await startReceiver()
    const database = pg ? { url: await (cluster = await startPostgres()).createDatabase() } : undefined
    f = await startHubFixture({
      sandbox: { orders: 0 },
      hub: { forwardTo: receiver.url, now: () => Date.now() + ahead, ...(database ? { database } : {}) }
    })
    admin = await f.addOperator('ada', 'admin')
    operator = await f.addOperator('oli', 'operator')
    viewer = await f.addOperator('vera', 'viewer')
  }, 120_000)
  afterAll(async () => {
    await f?.close()
    await receiver?.close()
    await cluster?.stop()
  })

  /**
   * A call that must succeed. The sandbox posts its webhooks to the hub through this process's
   * shared connection pool; the hub answers 421 on a /webhook connection reused for /rpc, and
   * the call is made again on a new one, as a desktop's connection would.
   */
  async function call<T>(token: string, channel: string, input: unknown = {}): Promise<T> {
    for (let tries = 1; ; tries++) {
      const a = await f.rpc(token, channel, input)
      if (a.status === 421 && tries < 5) continue
      if (a.status !== 200 || !a.json?.ok) throw new Error(`${channel}: HTTP ${a.status} ${a.text.slice(0, 300)}`)
      return a.json.value as T
    }
  }
  const unacknowledged = async (): Promise<UnacknowledgedAlert[]> =>
    (await call<{ alerts: Alert[] }>(viewer, 'alerts:list')).alerts.filter((a): a is UnacknowledgedAlert => a.kind === 'unacknowledged')
  const ids = async () => (await unacknowledged()).map((a) => a.order.orderId).sort((a, b) => a - b)
  const metric = async () => Number(/^rampdesk_hub_unacknowledged_completions (\d+)$/m.exec(await f.hub.metrics.render())?.[1])

  it.skipIf(skip)(
    'lists exactly the completions the receiver did not take, clears them on a 2xx, and resends on request',
    async () => {
      const sandbox = f.sandbox.control
      const [retried, refused, taken, silent] = [0, 1, 2, 3].map(
        () => sandbox.createOrder({ type: 1, fiatType: 1, hold: true, churn: false }).orderId
      )
      receiver.answers.set(retried!, 500)
      receiver.answers.set(refused!, 403)
      // Completed while the service has no webhook URL: its notice is never sent.
      sandbox.advanceOrder(silent!, 15, 1)
      await call(admin, 'webhooks:setUrl', { url: `${f.url}/webhook` })
      for (const id of [retried!, refused!, taken!]) sandbox.advanceOrder(id, 15, 1)
      await f.hub.session().monitor.syncNow()
      await waitUntil(
        () => [retried!, refused!, taken!].every((id) => receiver.answered.has(id)),
        15_000,
        'the three notices relayed to the receiver'
      )
      // Within the grace period nothing is raised (the orders completed seconds ago), after it exactly the three.
      expect(await ids()).toEqual([])
      expect(await metric()).toBe(0)
      ahead = UNACKNOWLEDGED_GRACE_MS + MIN
      expect(await ids()).toEqual([retried!, refused!, silent!].sort((a, b) => a - b))
      const byId = new Map((await unacknowledged()).map((a) => [a.order.orderId, a]))
      expect(byId.get(retried!)!.delivery).toMatchObject({ kind: 'sending' })
      expect(byId.get(refused!)!.delivery).toMatchObject({ kind: 'stopped', attempts: 1, lastAnswer: 'HTTP 403: "down"' })
      expect(byId.get(silent!)!.delivery).toEqual({ kind: 'not-received' })
      expect(byId.get(silent!)!.text).toMatch(/^Completed 11 min ago; the merchant's system has not confirmed it$/)
      // The gauge reads the list as the alerts last looked at it.
      await waitUntil(async () => (await metric()) === 3, 20_000, 'the metric at 3')

      // The receiver takes the retried one: the relay's next try clears it, no resend needed.
      receiver.answers.set(retried!, 200)
      await waitUntil(async () => !(await ids()).includes(retried!), 60_000, 'the retried order cleared by its 2xx')
      expect(receiver.answered.get(retried!)!.at(-1)).toBe(200)

      // A viewer may not resend; an operator may, and it is audited.
      receiver.answers.set(refused!, 200)
      let denied = await f.rpc(viewer, 'alerts:resend', { type: 1, orderId: refused! })
      if (denied.status === 421) denied = await f.rpc(viewer, 'alerts:resend', { type: 1, orderId: refused! })
      expect(denied.status).toBe(403)
      const resent = await call<ResendCompletion>(operator, 'alerts:resend', { type: 1, orderId: refused! })
      expect(resent.done).toBe('relay-queued')
      await waitUntil(async () => !(await ids()).includes(refused!), 20_000, 'the refused order cleared by its resend')
      expect(receiver.answered.get(refused!)).toEqual([403, 200])

      // Never received: the service is asked, its notice comes through the hub and is relayed.
      const asked = await call<ResendCompletion>(operator, 'alerts:resend', { type: 1, orderId: silent! })
      expect(asked.done).toBe('service-asked')
      await waitUntil(async () => (await ids()).length === 0, 20_000, 'the silent order cleared once its notice came')
      expect(receiver.answered.get(silent!)).toEqual([200])
      await waitUntil(async () => (await metric()) === 0, 20_000, 'the metric back to 0')
      const audit = await call<{ rows: Array<{ operator: string; action: string }> }>(admin, 'audit:list', { limit: 50 })
      expect(audit.rows.filter((r) => r.action === 'alerts:resend').map((r) => r.operator)).toEqual(['oli', 'oli'])
    },
    150_000
  )
})

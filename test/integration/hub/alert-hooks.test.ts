// Alert hooks on a real hub in front of the sandbox, with a real loopback receiver that answers
// 500 to the first message and 200 after: a hook added with the command line gets an order
// parked past its threshold once (the 500 retried after the back-off, both attempts recorded,
// the body signed), nothing more while it stands, the test message when asked, a 'cleared'
// when the order moves on, and a new message when it is raised again; on hub.db across a
// restart of the hub, and on PostgreSQL with two hubs on one database (only one sends). A
// Slack hook beside it gets its body ({"text": ...}) once per alert.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../../src/hub/commands'
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyHookSignature } from '../../../src/hub/alert-hooks/hook-bodies'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { statusInfo } from '../../../src/shared/domain/status'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, waitUntil, type HubFixture } from './support'

const MIN = 60_000
const SECRET = 'whsec-alert-hooks-test-7f3a'

interface Received {
  headers: IncomingHttpHeaders
  body: string
  json: { event: string; alertId: string | null; kind: string | null; text: string; order: unknown }
  status: number
}

/** A receiver that answers 500 to its first request and 200 after, and keeps what it was sent. */
async function startReceiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const status = got.length === 0 ? 500 : 200
      got.push({ headers: req.headers, body, json: JSON.parse(body) as Received['json'], status })
      res.statusCode = status
      res.end(status === 200 ? 'ok' : 'down')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hooks/T000/secret-part`,
    got,
    close: () => new Promise((r) => server.close(() => r()))
  }
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

interface Setup {
  sandbox: Sandbox
  hubs: HubFixture[]
  /** --data-dir DIR or --database URL */
  storeArgs: string[]
  close(): Promise<void>
}

function scenario(name: string, start: (now: () => number) => Promise<Setup>, restart: boolean) {
  describe(name, () => {
    let t = Date.now()
    let s: Setup
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let dir: string
    const leader = () => s.hubs.find((h) => h.hub.role.current().role === 'leader') ?? s.hubs[0]!
    beforeAll(async () => {
      receiver = await startReceiver()
      dir = mkdtempSync(join(tmpdir(), 'rampdesk-hooks-it-'))
      writeFileSync(join(dir, 'secret'), SECRET + '\n', { mode: 0o600 })
      s = await start(() => t)
    })
    afterAll(async () => {
      await s?.close()
      await receiver?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('sends each alert once until it clears (retrying a 500), signed, a test when asked, and again once raised anew', async () => {
      const added = await cli([
        'alerts',
        'add-hook',
        receiver.url,
        '--format',
        'json',
        '--secret-file',
        join(dir, 'secret'),
        ...s.storeArgs
      ])
      expect(added.code, added.err).toBe(0)
      expect(added.out).toMatch(/^added alert hook 1: json to http:\/\/127\.0\.0\.1:\d+\/hooks\/…$/m)
      expect(added.out + added.err).not.toContain('secret-part')
      const admin = await leader().addOperator('ada', 'admin')
      await waitUntil(async () => (await leader().rpc(admin, 'team:access')).status === 200, 5_000, 'the admin on the leader')
      await leader().call(admin, 'settings:update', { stalledMinutes: { '2:17': 5 } })

      const o = s.sandbox.control.createOrder({ type: 2, fiatType: 1, path: 'alternate bank', hold: true })
      s.sandbox.control.advanceOrder(o.orderId, 17, 2)
      await leader().hub.session().monitor.syncNow()
      const alertId = `stalled:2:${o.orderId}`
      const mine = (event: string) => receiver.got.filter((g) => g.json.alertId === alertId && g.json.event === event)
      t += 5 * MIN
      leader().hub.session().alerts.refresh()

      const store = leader().hub.store.alertHooks
      const messagesOf = async () => (await store.messages(100)).filter((m) => m.alertId === alertId)
      // The first attempt answered 500; the next, after the 1 s back-off on the hub's clock, 200.
      await waitUntil(() => mine('raised').length === 1, 10_000, 'the first attempt')
      // The back-off counts from when the hub records the 500, which follows the receiver's
      // answer: the clock moves only once it is recorded, or the retry would be due later.
      await waitUntil(async () => (await messagesOf())[0]?.attempts === 1, 5_000, 'the first attempt recorded')
      t += 1_000
      await waitUntil(() => mine('raised').length === 2, 10_000, 'the retry')
      const [first, retry] = mine('raised')
      expect([first!.status, retry!.status]).toEqual([500, 200])
      expect(retry!.body).toBe(first!.body)
      expect(retry!.json).toMatchObject({ kind: 'stalled', order: { type: 2, orderId: o.orderId } })
      expect(retry!.json.text).toMatch(new RegExp(`^Order ${o.orderId} \\(offramp · \\S+\\) stalled 5 min in `))
      expect(
        verifyHookSignature({
          secret: SECRET,
          body: retry!.body,
          timestamp: retry!.headers[TIMESTAMP_HEADER] as string,
          signature: retry!.headers[SIGNATURE_HEADER] as string,
          now: t
        })
      ).toBe(true)
      // Recorded: one message, two attempts.
      // The receiver answered before the hub recorded the answer: wait for the record.
      await waitUntil(async () => (await messagesOf())[0]?.state === 'delivered', 5_000, 'the retry recorded')
      const messages = await messagesOf()
      expect(messages.map((m) => [m.event, m.state, m.attempts])).toEqual([['raised', 'delivered', 2]])
      expect((await store.attempts(messages[0]!.id)).map((a) => a.httpStatus)).toEqual([500, 200])

      // Standing on: nothing more, however often the hubs look.
      for (let i = 0; i < 3; i++) {
        t += 20_000
        for (const h of s.hubs) h.hub.session().alerts.refresh()
        await new Promise((r) => setTimeout(r, 600))
      }
      if (restart) {
        await s.hubs[0]!.stopHub()
        await s.hubs[0]!.startHub()
        await new Promise((r) => setTimeout(r, 1_500))
      }
      expect(mine('raised')).toHaveLength(2)

      // The test message, from the command line.
      const tested = await cli(['alerts', 'test-hook', '1', ...s.storeArgs])
      expect(tested.code, tested.err).toBe(0)
      expect(tested.out).toMatch(/^test message to alert hook 1 \(http:\/\/127\.0\.0\.1:\d+\/hooks\/…\): HTTP 200, delivered$/)
      expect(receiver.got.filter((g) => g.json.event === 'test')).toHaveLength(1)

      // The order moves on: the alert clears, and the hook hears it once.
      const moved = s.sandbox.control.advanceOrder(o.orderId, undefined, 2)
      expect(statusInfo(2, moved.status).terminal).toBe(false)
      await waitUntil(
        async () => {
          await leader().hub.session().monitor.syncNow()
          return !leader()
            .hub.session()
            .alerts.refresh()
            .alerts.some((a) => a.id === alertId)
        },
        10_000,
        'the alert to clear'
      )
      await waitUntil(() => mine('cleared').length === 1, 10_000, 'the cleared message')
      expect(mine('cleared')[0]!.json.text).toMatch(/^Resolved: Order /)

      // Parked past a threshold again: a new message.
      await leader().call(admin, 'settings:update', { stalledMinutes: { '2:17': 5, [`2:${moved.status}`]: 5 } })
      t += 5 * MIN
      leader().hub.session().alerts.refresh()
      await waitUntil(() => mine('raised').length === 3, 10_000, 'the alert raised again')
      await new Promise((r) => setTimeout(r, 1_000))
      expect(mine('raised')).toHaveLength(3)
      expect(mine('cleared')).toHaveLength(1)
      const lines = (await cli(['alerts', 'list-hooks', ...s.storeArgs])).out
      expect(lines).toMatch(/^1\tjson\thttp:\/\/127\.0\.0\.1:\d+\/hooks\/…\tsigned\t/)
      expect(lines).not.toContain('secret-part')
      console.log(
        `${name}: ${receiver.got.length} requests received (${receiver.got.filter((g) => g.status === 500).length} answered 500), ` +
          `${mine('raised').length} raised attempts, ${mine('cleared').length} cleared for order ${o.orderId}`
      )
    })

    it('a Slack hook gets an alert as a Slack incoming-webhook body, once', async () => {
      const slack: string[] = []
      const server: Server = createServer((req, res) => {
        let body = ''
        req.on('data', (c: Buffer) => (body += c.toString()))
        req.on('end', () => {
          slack.push(body)
          res.end('ok')
        })
      })
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/slack-secret`
        writeFileSync(join(dir, 'slack-url'), url + '\n', { mode: 0o600 })
        const added = await cli(['alerts', 'add-hook', '--url-file', join(dir, 'slack-url'), '--format', 'slack', ...s.storeArgs])
        expect(added.code, added.err).toBe(0)
        expect(added.out + added.err).not.toContain('slack-secret')

        const o = s.sandbox.control.createOrder({ type: 2, fiatType: 1, path: 'alternate bank', hold: true })
        s.sandbox.control.advanceOrder(o.orderId, 17, 2)
        await leader().hub.session().monitor.syncNow()
        t += 5 * MIN
        leader().hub.session().alerts.refresh()
        const about = () => slack.filter((b) => b.includes(`Order ${o.orderId} `))
        await waitUntil(() => about().length === 1, 10_000, 'the Slack message')
        for (let i = 0; i < 2; i++) {
          t += 20_000
          for (const h of s.hubs) h.hub.session().alerts.refresh()
          await new Promise((r) => setTimeout(r, 600))
        }
        expect(about()).toHaveLength(1)
        const body = JSON.parse(about()[0]!) as Record<string, unknown>
        expect(Object.keys(body)).toEqual(['text'])
        expect(body.text).toMatch(new RegExp(`^:warning: Order ${o.orderId} \\(offramp · [A-Z0-9]+\\) stalled 5 min in `))
      } finally {
        await new Promise((r) => server.close(() => r(undefined)))
      }
    })
  })
}

scenario(
  'alert hooks on hub.db',
  async (now) => {
    const f = await startHubFixture({ sandbox: { orders: 5, now }, hub: { now } })
    return { sandbox: f.sandbox, hubs: [f], storeArgs: ['--data-dir', f.dataDir], close: () => f.close() }
  },
  true
)

describe.skipIf(postgresUnavailable !== null)('on PostgreSQL', () => {
  scenario(
    'alert hooks on two hubs of one PostgreSQL database',
    async (now) => {
      let cluster: PgCluster | null = null
      let sandbox: Sandbox | null = null
      const hubs: HubFixture[] = []
      const close = async () => {
        for (const h of hubs) await h.close()
        await sandbox?.close()
        await cluster?.stop()
      }
      try {
        cluster = await startPostgres()
        const url = await cluster.createDatabase()
        sandbox = await startSandbox({ orders: 5, autoGenerate: false, now })
        for (let i = 0; i < 2; i++) hubs.push(await startHubFixture({ sharedSandbox: sandbox, hub: { database: { url }, now } }))
        return { sandbox, hubs, storeArgs: ['--database', url], close }
      } catch (e) {
        await close()
        throw e
      }
    },
    false
  )
})

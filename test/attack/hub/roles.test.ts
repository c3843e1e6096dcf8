// Attack: what each role can reach on a real hub process (docs/hub-reference.md, "Operators and roles").
//   - every channel of the contract, called by each role: what answers is exactly what the
//     table in docs/hub-reference.md grants that role (a refused one is 403);
//   - an admin sets the merchant's webhook URL with `user:password@`: no answer or event to a
//     viewer or an operator carries the password, nor does any file of the hub (the audit
//     tables, the order database) or its log; the admin is shown the URL redacted;
//   - a viewer reading everything it may, and its event stream, never sees the service's base
//     URL or host, the API key or the secret; nor when the service cannot be reached and the
//     hub's errors would name its address.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { channelNames, type ChannelName } from '../../../src/shared/ipc/contract'
import type { TeamRole } from '../../../src/shared/ipc/contract'
import { docsChannelsOf } from '../../support/docs-role-table'
import { recordAttack, sleep, startHubProcess, type HubProcess } from './hub-process'

const PASSWORD = 'Hook-pass-93xQ'
const HOOK = `https://hookuser:${PASSWORD}@hooks.example.test/in`

let hub: HubProcess
const tokens = {} as Record<TeamRole, string>

beforeAll(async () => {
  hub = await startHubProcess()
  tokens.admin = hub.addOperator('ada', 'admin')
  tokens.operator = hub.addOperator('otto', 'operator')
  tokens.viewer = hub.addOperator('vera', 'viewer')
}, 60_000)
afterAll(async () => {
  await hub?.stop()
})

async function rpc(url: string, token: string, channel: string, input: unknown = {}): Promise<{ status: number; text: string }> {
  const r = await request(`${url}/rpc/${channel}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input)
  })
  return { status: r.statusCode, text: await r.body.text() }
}

/** Valid input for every channel a viewer may call, so that each answers in full. */
const viewerInputs = (orderId: number): Partial<Record<ChannelName, unknown>> => ({
  'orders:query': { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 200 },
  'orders:get': { type: 1, orderId },
  'tickers:get': { fiatType: 2 },
  'tickers:visibility': { view: 'main', visible: true },
  'webhooks:deliveries': { offset: 0, limit: 100 }
})

/** Reads a viewer's event stream for `ms`; every event's text. */
async function streamFor(url: string, token: string, ms: number): Promise<string> {
  const r = await request(`${url}/events`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' } })
  let text = ''
  const t = setTimeout(() => r.body.destroy(), ms)
  try {
    for await (const c of r.body) text += (c as Buffer).toString('utf8')
  } catch {
    // closed when the time was up
  }
  clearTimeout(t)
  return text
}

/** Every file under a directory, as bytes (the hub's SQLite databases and their write-ahead logs). */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, bytes: readFileSync(path) }]
  })
}

describe('roles on a hub', () => {
  it('answers each role exactly the channels docs/hub-reference.md grants it, and refuses every other 403', async () => {
    const figures: Record<string, number> = {}
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const granted = new Set(docsChannelsOf(role))
      const answered: string[] = []
      for (const channel of channelNames) {
        // A channel that takes input answers 200 with an invalid_input envelope to {}: the role
        // was checked before the input was read. Only a refusal of the role is 403.
        const r = await rpc(hub.url, tokens[role], channel, channel === 'sync:resync' ? null : {})
        if (r.status !== 403) answered.push(channel)
        else expect(JSON.parse(r.text)).toMatchObject({ ok: false, error: { kind: 'forbidden' } })
      }
      expect(answered.sort(), role).toEqual([...granted].sort())
      figures[`${role}Channels`] = answered.length
    }
    recordAttack(
      'every channel called by each role',
      { ...figures, contractChannels: channelNames.length },
      {
        viewerChannels: '= docs/hub-reference.md viewer row',
        operatorChannels: '= viewer + operator rows',
        adminChannels: '= every hub channel'
      }
    )
  }, 120_000)

  it('keeps a webhook URL’s password from viewers and operators, from every file and from the log; admins see it redacted', async () => {
    const set = JSON.parse((await rpc(hub.url, tokens.admin, 'webhooks:setUrl', { url: HOOK })).text) as { ok: boolean }
    expect(set.ok).toBe(true)
    const orderId = (
      JSON.parse((await rpc(hub.url, tokens.admin, 'orders:query', viewerInputs(0)['orders:query'])).text) as {
        value: { rows: Array<{ orderId: number }> }
      }
    ).value.rows[0]!.orderId
    const seen: Record<string, string[]> = { viewer: [], operator: [] }
    for (const role of ['viewer', 'operator'] as const)
      for (const channel of docsChannelsOf(role)) {
        const input = viewerInputs(orderId)[channel] ?? {}
        const r = await rpc(hub.url, tokens[role], channel, input)
        seen[role]!.push(r.text)
      }
    const lastUrl = JSON.parse((await rpc(hub.url, tokens.admin, 'webhooks:lastUrl')).text) as { value: { url: string } }
    const audit = (await rpc(hub.url, tokens.admin, 'audit:list', { limit: 100 })).text
    await sleep(1_500)
    const files = filesUnder(hub.dataDir).filter((f) => f.bytes.includes(PASSWORD))
    const answers = [...seen.viewer!, ...seen.operator!]
    recordAttack(
      'a webhook URL with user:password@ set by an admin',
      {
        viewerAndOperatorAnswers: answers.length,
        answersWithPassword: answers.filter((a) => a.includes(PASSWORD)).length,
        filesWithPassword: files.length,
        logLinesWithPassword: hub
          .output()
          .split('\n')
          .filter((l) => l.includes(PASSWORD)).length,
        adminShown: lastUrl.value.url
      },
      { answersWithPassword: '= 0', filesWithPassword: '= 0', logLinesWithPassword: '= 0' }
    )
    expect(answers.filter((a) => a.includes(PASSWORD) || a.includes('hookuser'))).toEqual([])
    expect(files.map((f) => f.path)).toEqual([])
    expect(hub.output()).not.toContain(PASSWORD)
    expect(audit).not.toContain(PASSWORD)
    expect(audit).toContain('https://[redacted]@hooks.example.test/in')
    expect(lastUrl.value.url).toBe('https://[redacted]@hooks.example.test/in')
  }, 120_000)

  it('never shows a viewer the service’s address, API key or secret, in any answer or event', async () => {
    const host = new URL(hub.sandbox.url).host
    const orderId = 1
    const stream = streamFor(hub.url, tokens.viewer, 3_000)
    await rpc(hub.url, tokens.viewer, 'sync:now')
    const answers = await Promise.all(
      docsChannelsOf('viewer').map(async (c) => (await rpc(hub.url, tokens.viewer, c, viewerInputs(orderId)[c] ?? {})).text)
    )
    const events = await stream
    const leaks = [...answers, events].filter((t) => [host, hub.sandbox.apiKey, hub.sandbox.apiSecret].some((s) => t.includes(s)))
    // The admin is shown the address (the test would prove nothing if the hub never said it).
    const adminInfo = (await rpc(hub.url, tokens.admin, 'app:info')).text
    recordAttack(
      'a viewer reading every channel it may, and its event stream',
      { answers: answers.length, eventBytes: events.length, answersNamingTheService: leaks.length },
      { answersNamingTheService: '= 0' }
    )
    expect(adminInfo).toContain(host)
    expect(events.length).toBeGreaterThan(0)
    expect(leaks).toEqual([])
  }, 60_000)

  it('never shows a viewer the service’s address in the errors of a hub that cannot reach it', async () => {
    // A port nothing listens on: every request of the hub fails naming it.
    const closed = await new Promise<number>((ok) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port
        s.close(() => ok(port))
      })
    })
    const lost = await startHubProcess({ baseUrl: `http://127.0.0.1:${closed}` })
    try {
      const admin = lost.addOperator('ada', 'admin')
      const viewer = lost.addOperator('vera', 'viewer')
      const host = `127.0.0.1:${closed}`
      let adminState = ''
      const end = Date.now() + 30_000
      while (!adminState.includes(host) && Date.now() < end) {
        adminState = (await rpc(lost.url, admin, 'diagnostics:text')).text + (await rpc(lost.url, admin, 'sync:state')).text
        await sleep(500)
      }
      const stream = streamFor(lost.url, viewer, 2_000)
      const answers = await Promise.all(
        docsChannelsOf('viewer').map(async (c) => (await rpc(lost.url, viewer, c, viewerInputs(1)[c] ?? {})).text)
      )
      const events = await stream
      const naming = [...answers, events].filter((t) => t.includes(host))
      recordAttack(
        'a viewer of a hub whose service cannot be reached',
        { adminSeesAddress: adminState.includes(host) ? 1 : 0, viewerAnswersNamingIt: naming.length },
        { viewerAnswersNamingIt: '= 0' }
      )
      expect(adminState).toContain(host)
      expect(naming).toEqual([])
      expect(answers.join('')).toContain('[the service]')
    } finally {
      await lost.stop()
    }
  }, 90_000)
})

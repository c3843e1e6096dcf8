// Attacks on a hub behind the reverse proxy docs/hub.md recommends (a proxy process of its own,
// connecting to the hub from one address the hub trusts with --trusted-proxy), and on its
// operator tokens:
//   - the team is not one address: 20 viewers hold 160 event streams through the proxy and
//     another operator is still served; one client behind it is held to the per-address cap;
//   - 3,000 wrong tokens from one client are throttled (429 after the first few), while a
//     valid token behind the same proxy, from another client and from the guesser's own
//     address, answers within 1 s throughout;
//   - one token's first characters tried from 50 addresses are throttled together;
//   - X-Forwarded-For from a peer that is not trusted changes nothing: it is counted as the peer;
//   - a stranger flooding /webhook through the proxy is limited by its own address, and the
//     service's delivery through the same proxy is still taken;
//   - the log says it in a summary line, not a line per failure.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FREE_FAILURES } from '../../../src/hub/auth-throttle'
import { percentile, recordAttack, REPO_ROOT, sleep, startHubProcess, type HubProcess } from './hub-process'
import { signedWebhook } from '../../support/webhook-senders'

const PROXY_FROM = '127.0.0.50'

let hub: HubProcess
let proxy: { url: string; child: ChildProcessWithoutNullStreams }
let admin: string
let logBefore = 0
let stopped = false

/** Starts one of this directory's scripts in a process of its own; resolves with its first line. */
function script(file: string, args: string[]): { child: ChildProcessWithoutNullStreams; line: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, file), ...args], { cwd: REPO_ROOT, stdio: 'pipe' })
  child.stderr.on('data', (c: Buffer) => process.stderr.write(c))
  const line = new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout }).once('line', ok)
    child.once('exit', (code) => fail(new Error(`${file} exited with ${code}`)))
  })
  return { child, line }
}

const agents = new Map<string, Agent>()
/** A client of the proxy connecting from `from` (one keep-alive connection pool per client, as a desktop has). */
const client = (from: string) => agents.get(from) ?? agents.set(from, new Agent({ localAddress: from })).get(from)!

async function call(
  token: string,
  channel: string,
  from: string,
  input: unknown = {}
): Promise<{ status: number; ms: number; body: string }> {
  const t = performance.now()
  const r = await request(`${proxy.url}/rpc/${channel}`, {
    method: 'POST',
    dispatcher: client(from),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input)
  })
  const body = await r.body.text()
  return { status: r.statusCode, ms: performance.now() - t, body }
}

beforeAll(async () => {
  hub = await startHubProcess({ args: ['--trusted-proxy', `${PROXY_FROM}/32`] })
  const p = script('forwarding-proxy.ts', [hub.url, PROXY_FROM])
  proxy = { child: p.child, url: (await p.line).slice('proxy listening on '.length) }
  admin = hub.addOperator('ada', 'admin')
  logBefore = hub.logBytes()
}, 60_000)
afterAll(async () => {
  for (const a of agents.values()) await a.close()
  proxy?.child.kill('SIGKILL')
  if (!stopped) await hub?.stop()
})

async function addOperator(name: string, role: 'viewer' | 'operator'): Promise<string> {
  const r = await hub.call<{ token: string }>(admin, 'team:addOperator', { name, role })
  return r.value!.token
}

/** Opens an event stream through the proxy from `from`; its status, and the body to close. */
async function openStream(token: string, from: string): Promise<{ status: number; close(): void }> {
  const r = await request(`${proxy.url}/events`, {
    dispatcher: client(from),
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    headersTimeout: 10_000
  })
  if (r.statusCode !== 200) await r.body.dump()
  else r.body.on('data', () => undefined).on('error', () => undefined)
  return { status: r.statusCode, close: () => r.body.destroy() }
}

describe('behind a trusted reverse proxy', () => {
  it('counts each client by its own address: 160 streams from 20 viewers leave another operator served; one client is held to 64', async () => {
    const viewers = await Promise.all(Array.from({ length: 20 }, (_, i) => addOperator(`viewer${i}`, 'viewer')))
    const streams = (
      await Promise.all(viewers.flatMap((t, i) => Array.from({ length: 8 }, () => openStream(t, `127.0.11.${i + 1}`))))
    ).flat()
    const otto = await addOperator('otto', 'operator')
    const probes: Array<{ status: number; ms: number }> = []
    for (let i = 0; i < 10; i++) probes.push(await call(otto, 'app:info', '127.0.12.1'))
    const ottoStream = await openStream(otto, '127.0.12.1')

    // Nine operators behind one client address (an office): 72 streams, over the per-address cap.
    const office = await Promise.all(Array.from({ length: 9 }, (_, i) => addOperator(`office${i}`, 'viewer')))
    const crowd = await Promise.all(office.flatMap((t) => Array.from({ length: 8 }, () => openStream(t, '127.0.13.1'))))
    for (const s of [...streams, ottoStream, ...crowd]) s.close()

    const opened = streams.filter((s) => s.status === 200).length
    recordAttack(
      '160 event streams from 20 viewers through a trusted proxy, then 72 from one client behind it',
      {
        streamsOpened: opened,
        streamsRefused: streams.length - opened,
        otherOperatorAnswered: probes.filter((p) => p.status === 200).length,
        otherOperatorP95Ms: Math.round(
          percentile(
            probes.map((p) => p.ms),
            95
          )
        ),
        otherOperatorStream: ottoStream.status,
        oneClientOpened: crowd.filter((s) => s.status === 200).length,
        oneClientRefused503: crowd.filter((s) => s.status === 503).length
      },
      { streamsOpened: '= 160', otherOperatorAnswered: '= 10', oneClientOpened: '= 64' }
    )
    expect(opened).toBe(160)
    expect(probes.every((p) => p.status === 200)).toBe(true)
    expect(ottoStream.status).toBe(200)
    expect(crowd.filter((s) => s.status === 200).length).toBe(64)
    expect(crowd.filter((s) => s.status === 503).length).toBe(8)
  }, 120_000)

  it('throttles 3,000 wrong tokens from one client, while a valid token behind the same proxy answers within 1 s throughout', async () => {
    // Two operators (each within their own request rate) poll while the guesser runs: one from
    // another client, one from the guesser's own address (an office behind one address).
    const tokens: Record<string, string> = {
      '127.0.9.2': await addOperator('olga', 'operator'),
      '127.0.9.1': await addOperator('oleg', 'operator')
    }
    const guesser = script('token-guesser.ts', [proxy.url, '3000', '32', '127.0.9.1'])
    const polls: Record<string, Array<{ status: number; ms: number }>> = { '127.0.9.2': [], '127.0.9.1': [] }
    let done = false
    const result = guesser.line.finally(() => (done = true))
    await Promise.all(
      Object.entries(polls).map(async ([from, seen]) => {
        while (!done) {
          seen.push(await call(tokens[from]!, 'app:info', from))
          // Within an operator's own request rate (600 a minute) for as long as the attack lasts.
          await sleep(150)
        }
      })
    )
    const r = JSON.parse(await result) as { byStatus: Record<string, number>; ms: number; maxRetryAfter: number }
    const all = Object.values(polls).flat()
    const figures = {
      wrongTokens: 3000,
      answered401: r.byStatus['401'] ?? 0,
      answered429: r.byStatus['429'] ?? 0,
      attackMs: r.ms,
      guessesPerSecond: Math.round((3000 / r.ms) * 1000),
      maxRetryAfterS: r.maxRetryAfter,
      validCalls: all.length,
      validFailed: all.filter((p) => p.status !== 200).length,
      validStatuses: [...new Set(all.map((p) => p.status))].join(' '),
      validOtherClientP95Ms: Math.round(
        percentile(
          polls['127.0.9.2']!.map((p) => p.ms),
          95
        )
      ),
      validOtherClientMaxMs: Math.round(Math.max(...polls['127.0.9.2']!.map((p) => p.ms))),
      validSameClientP95Ms: Math.round(
        percentile(
          polls['127.0.9.1']!.map((p) => p.ms),
          95
        )
      ),
      validSameClientMaxMs: Math.round(Math.max(...polls['127.0.9.1']!.map((p) => p.ms)))
    }
    recordAttack('3,000 wrong tokens from one client behind a trusted proxy, a valid token polled behind it', figures, {
      answered401: `= ${FREE_FAILURES}`,
      answered429: `= ${3000 - FREE_FAILURES}`,
      guessesPerSecond: '< 200 (32 at once, each throttled answer 250 ms late)',
      validFailed: '= 0',
      validOtherClientMaxMs: '< 1000',
      validSameClientMaxMs: '< 1000'
    })
    expect(figures.answered401).toBe(FREE_FAILURES)
    expect(figures.answered429).toBe(3000 - FREE_FAILURES)
    expect(figures.guessesPerSecond).toBeLessThan(200)
    expect(figures.validCalls).toBeGreaterThan(10)
    expect(figures.validFailed).toBe(0)
    expect(figures.validOtherClientMaxMs).toBeLessThan(1_000)
    expect(figures.validSameClientMaxMs).toBeLessThan(1_000)
  }, 120_000)

  it('throttles one token’s first characters tried from 50 client addresses together', async () => {
    const from = Array.from({ length: 50 }, (_, i) => `127.0.10.${i + 1}`).join(',')
    const guesser = script('token-guesser.ts', [proxy.url, '500', '16', from, 'rdh_AbCd'])
    const r = JSON.parse(await guesser.line) as { byStatus: Record<string, number> }
    recordAttack(
      '500 tokens sharing their first 8 characters from 50 clients behind the proxy (10 each)',
      { answered401: r.byStatus['401'] ?? 0, answered429: r.byStatus['429'] ?? 0 },
      { answered401: `= ${FREE_FAILURES}` }
    )
    expect(r.byStatus['401']).toBe(FREE_FAILURES)
    expect(r.byStatus['429']).toBe(500 - FREE_FAILURES)
  }, 60_000)

  it('ignores X-Forwarded-For from a peer it does not trust: 200 spoofed addresses count as the peer', async () => {
    const guesser = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'token-guesser.ts'), hub.url, '200', '8', '127.0.0.60'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, SPOOF_FORWARDED_FOR: '1' }
    })
    const r = JSON.parse(await new Promise<string>((ok) => createInterface({ input: guesser.stdout }).once('line', ok))) as {
      byStatus: Record<string, number>
    }
    recordAttack(
      '200 wrong tokens straight to the hub, each claiming another X-Forwarded-For',
      { answered401: r.byStatus['401'] ?? 0, answered429: r.byStatus['429'] ?? 0 },
      { answered401: `= ${FREE_FAILURES}` }
    )
    expect(r.byStatus['401']).toBe(FREE_FAILURES)
    expect(r.byStatus['429']).toBe(200 - FREE_FAILURES)
  }, 60_000)

  it('limits a stranger flooding /webhook through the proxy by its own address, while the service’s delivery through it is taken', async () => {
    const post = (from: string, headers: Record<string, string>, body: string) =>
      request(`${proxy.url}/webhook`, { method: 'POST', dispatcher: client(from), headers, body }).then(async (r) => {
        await r.body.dump()
        return r.statusCode
      })
    const junk = { 'content-type': 'application/json', 'x-service-payload': 'e30=', 'x-service-signature': 'ab'.repeat(64) }
    const statuses = await Promise.all(Array.from({ length: 200 }, () => post('127.0.0.71', junk, '{"orderId":1}')))
    const order = hub.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    const genuine = signedWebhook(
      { ...hub.sandbox.control.order(order.orderId, 1)!.record, webhookTrials: 1 },
      { secret: hub.sandbox.apiSecret, timestamp: hub.sandbox.control.serverNow(), serviceName: hub.sandbox.serviceName }
    )
    const service = await post('127.0.0.72', genuine.headers, genuine.body)
    const limited = statuses.filter((s) => s === 429).length
    recordAttack(
      '200 junk webhook posts from one client behind the proxy, then the service’s own delivery through it',
      { junkAnswered401: statuses.filter((s) => s === 401).length, junkAnswered429: limited, serviceAnswered: service },
      { junkAnswered429: '> 0', serviceAnswered: '= 200' }
    )
    expect(limited).toBeGreaterThan(0)
    expect(service).toBe(200)
  }, 60_000)

  it('logs the throttling as a summary, not a line per failure', async () => {
    const output = () => hub.output()
    const grown = hub.logBytes() - logBefore
    // The summaries are written when their minute ends, or when the hub stops.
    stopped = true
    await hub.stop()
    const summary = /throttled ([\d,]+) failed tokens in the last 60 s \(429, back-off up to \d+ s\) from ([^\n]+)/.exec(output())
    recordAttack(
      'the log during the token attacks',
      { logBytesDuringAttacks: grown, summaryLine: summary?.[0] ?? '(none)' },
      {
        logBytesDuringAttacks: '< 65536'
      }
    )
    expect(summary).not.toBeNull()
    expect(Number(summary![1]!.replace(/,/g, ''))).toBeGreaterThanOrEqual(3000 - FREE_FAILURES + 490 + 190)
    expect(summary![2]).toContain('127.0.9.1')
    expect(output()).toMatch(/refused [\d,]+ more requests from 127\.0\.9\.1 in the last 60 s: 401 ×\d+, 429 ×[\d,]+/)
    expect(grown).toBeLessThan(64 * 1024)
  }, 60_000)
})

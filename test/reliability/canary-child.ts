// Child process of the secrets scenario: the whole main side behind the web harness,
// driven only through POST /rpc (what a window can call) with GET /events open, on a
// live profile whose API secret is the canary. Every response body and every event
// frame is appended to the transcript file (outside the data directory) for the parent
// to search; stdout and stderr are the logs the parent searches.
//
// Usage: node --import tsx canary-child.ts <dataDir> <transcript> <sandboxUrl> <apiKey> <run|restart> <controlToken>
//   run      create the profile, store the canary (RAMPDESK_CANARY), sync, quotes, webhooks,
//            errors (faults, clock skew, a wrong key), then start a slow sync and say
//            "crash-me" (the parent SIGKILLs it there)
//   restart  start again on the stored secret, sync, check the connection, delete the secret, close
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { startWebHarness } from '../../src/web/server'
import type { ChannelName } from '../../src/shared/ipc/contract'
import { confirmationLines, createChildServices, say } from './child-support'
import { localhostDispatcher } from '../support/localhost-names'

const [dataDir, transcript, sandboxUrl, apiKey, mode, controlToken] = process.argv.slice(2)
if (!dataDir || !transcript || !sandboxUrl || !apiKey || (mode !== 'run' && mode !== 'restart') || !controlToken) {
  process.stderr.write('usage: canary-child.ts <dataDir> <transcript> <sandboxUrl> <apiKey> <run|restart> <controlToken>\n')
  process.exit(2)
}
const record = (kind: string, channel: string, text: string): void =>
  appendFileSync(transcript, JSON.stringify({ kind, channel, text }) + '\n')

// A fixed key for the fallback store, so the restarted process can read what the first one stored.
const services = await createChildServices(dataDir, '0.0.0-canary', 9)
await services.start()
const staticDir = join(dataDir, '..', 'static')
mkdirSync(staticDir, { recursive: true })
const harness = await startWebHarness({ handlers: services.handlers, subscribe: services.subscribe, staticDir })
const login = await request(harness.openUrl, { dispatcher: localhostDispatcher })
await login.body.dump()
const cookie = String(login.headers['set-cookie']).split(';')[0]!

// Every event the windows would get, as it goes over the wire.
const events = await request(`${harness.url}events`, { headers: { cookie }, dispatcher: localhostDispatcher })
events.body.on('data', (chunk: Buffer | string) => record('event', '', typeof chunk === 'string' ? chunk : chunk.toString('utf8')))
events.body.on('error', () => undefined)

interface Reply {
  ok: boolean
  value?: Record<string, unknown> & {
    rows?: Array<{ orderId: number }>
    states?: Array<{ running: boolean; lastSuccessAt: number | null; lastError: unknown }>
  }
  error?: { message: string }
}

async function rpc(channel: ChannelName, input: unknown = {}): Promise<Reply> {
  const r = await request(`${harness.url}rpc/${channel}`, {
    dispatcher: localhostDispatcher,
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', origin: harness.url.replace(/\/$/, '') },
    body: JSON.stringify(input)
  })
  const text = await r.body.text()
  record('rpc', channel, text)
  return JSON.parse(text) as Reply
}

async function admin(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void> {
  const r = await request(`${sandboxUrl}/__sandbox${path}`, {
    method,
    headers: { 'x-sandbox-token': controlToken, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  // The control API's own refusals mean this script is wrong; an order already at its end is not.
  if ([401, 403, 415].includes(r.statusCode)) throw new Error(`control API ${method} ${path}: ${r.statusCode} ${await r.body.text()}`)
  await r.body.dump()
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Waits until no scope is syncing (and the given number of ms have passed at least): up to
 * 75 s, a budget window and more, since the errors before spend most of the minute's
 * merchantHistory budget and a reopened session (a profile edited) starts from what the
 * last one spent (api/budget-carry.ts).
 */
async function syncSettled(minMs = 0): Promise<void> {
  await sleep(minMs)
  for (let i = 0; i < 1500; i++) {
    const s = await rpc('sync:state')
    if (s.ok && (s.value?.states ?? []).every((x) => !x.running && (x.lastSuccessAt !== null || x.lastError !== null))) return
    await sleep(50)
  }
  throw new Error('sync did not settle')
}

async function everyReadChannel(): Promise<void> {
  for (const c of [
    'app:info',
    'profiles:list',
    'settings:get',
    'config:get',
    'bank:get',
    'sync:state',
    'budget:get',
    'orders:watched',
    'orders:unreadable',
    'webhooks:inbox',
    'diagnostics:get',
    'diagnostics:text'
  ] as const)
    await rpc(c)
  await rpc('tickers:get', { fiatType: 1 })
  await rpc('audit:list', { limit: 500 })
  await rpc('webhooks:deliveries', { offset: 0, limit: 500 })
  const q = await rpc('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 20 })
  for (const row of (q.value?.rows ?? []).slice(0, 5)) await rpc('orders:get', { type: 1, orderId: row.orderId })
  await rpc('orders:query', { filter: { type: 2 }, sort: 'updatedAt:desc', offset: 0, limit: 20 })
}

const secret = process.env.RAMPDESK_CANARY
if (!secret) throw new Error('RAMPDESK_CANARY is not set')

if (mode === 'run') {
  const p = await rpc('profiles:create', { name: 'Canary live', baseUrl: sandboxUrl, apiKey })
  const id = String(p.value?.id)
  say(`profile ${JSON.stringify({ id })}`)
  const stored = await rpc('secrets:set', { profileId: id, secret })
  say(`backend ${JSON.stringify(stored.value ?? stored.error)}`)
  await rpc('secrets:status', { profileId: id })
  await rpc('profiles:switch', { id })
  await rpc('secrets:test', { profileId: id })
  await rpc('settings:update', {
    inbox: { enabled: true, host: '127.0.0.1', port: 0 },
    notify: { terminalSuccess: true, terminalFailure: true, needsAttention: true, anyChange: true, watchedOnly: false }
  })
  const inbox = await rpc('webhooks:inbox')
  // A live profile's webhook URL is a production change: the operator types main's code.
  const asked = new Promise<string>((resolve) => {
    const off = services.subscribe((event, payload) => {
      if (event !== 'confirm:request') return
      off()
      resolve((payload as { id: string }).id)
    })
  })
  const setUrl = rpc('webhooks:setUrl', { url: inbox.value?.url })
  await rpc('confirm:answer', { id: await asked, code: /type (\d{4}-\d{4})/.exec(confirmationLines.join('\n'))?.[1] ?? null })
  say(`webhook url ${JSON.stringify((await setUrl).ok)}`)
  // Sync.
  await rpc('sync:now')
  await syncSettled(200)
  await rpc('config:refresh')
  // Quotes (and a compare across networks).
  await rpc('quotes:get', { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '2500' })
  await rpc('quotes:get', { type: 2, coinId: 54, chainId: 1, quantity: '40' })
  await rpc('quotes:compare', { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '2500' })
  // Webhooks: a dummy to the inbox, orders completing (delivered by the service), a resend, a manual verify.
  await rpc('webhooks:sendDummy', { target: 'inbox' })
  for (let i = 0; i < 3; i++) {
    const r = await request(`${sandboxUrl}/__sandbox/orders`, {
      method: 'POST',
      headers: { 'x-sandbox-token': controlToken, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 1, fiatType: 1, path: 'completed', hold: true })
    })
    const o = (await r.body.json()) as { orderId: number }
    await rpc('sync:now')
    await syncSettled(100)
    await rpc('orders:watch', { type: 1, orderId: o.orderId, watch: true })
    for (let s = 0; s < 8; s++) await admin('POST', `/orders/${o.orderId}/advance`, {})
    await rpc('webhooks:resend', { orderId: o.orderId })
  }
  await sleep(300)
  await rpc('webhooks:verify', { payload: 'eyJ0aW1lc3RhbXAiOjEsImJvZHkiOnt9fQ==', signature: 'deadbeef' })
  // Errors: 5xx, a malformed body, the service's clock far ahead, then a wrong API key.
  await admin('POST', '/faults', { endpoint: '*', errorRate: 1, errorStatus: 500, remaining: 12 })
  await rpc('sync:now')
  await syncSettled(100)
  await rpc('quotes:get', { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '2500' })
  await admin('DELETE', '/faults')
  await admin('POST', '/faults', { endpoint: 'merchantHistory', malformedJsonRate: 1, remaining: 4 })
  await rpc('sync:now')
  await syncSettled(100)
  await admin('DELETE', '/faults')
  await admin('POST', '/clock', { offsetMs: -10 * 60_000 })
  await rpc('secrets:test', { profileId: id })
  await rpc('sync:now')
  await syncSettled(100)
  await admin('POST', '/clock', { offsetMs: 0 })
  await rpc('profiles:update', { id, patch: { apiKey: 'wrong-key' } })
  await rpc('secrets:test', { profileId: id })
  await rpc('sync:now')
  await syncSettled(100)
  await rpc('profiles:update', { id, patch: { apiKey } })
  await rpc('orders:export', { filter: { type: 1 } })
  await everyReadChannel()
  // A crash in the middle of a sync: the history answers slowly, the parent kills us.
  await admin('POST', '/faults', { endpoint: 'merchantHistory', latencyMs: 30_000 })
  await rpc('sync:now')
  await sleep(200)
  say('crash-me')
  await sleep(60_000)
  process.stderr.write('not killed\n')
  process.exit(3)
} else {
  const list = await rpc('profiles:list')
  const id = String(list.value?.activeId)
  await rpc('sync:now')
  await syncSettled(200)
  await rpc('secrets:test', { profileId: id })
  await everyReadChannel()
  await rpc('secrets:delete', { profileId: id })
  await rpc('secrets:status', { profileId: id })
  await rpc('secrets:test', { profileId: id })
  events.body.destroy()
  await harness.close()
  await services.close()
  say('closed')
  process.exit(0)
}

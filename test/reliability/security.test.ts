// Security hardening, each defence attacked end to end on the real main side
// (createServices on the embedded sandbox, a second sandbox as the live service, the real
// secret store, the web harness) and seen to hold. One summary line per defence: what was
// tried, what was checked, and what got through (nothing). The Electron shell's own
// defences (app:// pages, DevTools, the autostart entry) are attacked in
// electron-checklist.test.ts, test/unit/main/app-scheme.test.ts and
// test/unit/main/linux-autostart.test.ts; the browser-side ones in test/e2e/security.spec.ts.
import { subscribe } from 'node:diagnostics_channel'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/main/services'
import { KEYCHAIN_SERVICES, SecretStore, type KeytarLike } from '../../src/main/secrets/secret-store'
import { CONTROL_TOKEN_HEADER, startSandbox, type Sandbox } from '../../src/sandbox'
import { startWebApp } from '../../src/web/app'
import { SESSION_COOKIE } from '../../src/web/server'
import type { EventName, EventPayload } from '../../src/shared/ipc/contract'
import { memorySafeStorage } from '../support/memory-safe-storage'
import { CSV_ATTACKS, cellsThatWouldRun, parseCsv } from '../support/csv-reader'
import { localhostDispatcher } from '../support/localhost-names'
import { recordScenario, until } from './support'

const LIVE_KEY = 'live-security-key'
const LIVE_SECRET = 'live-security-secret-0123456789'
const dirs: string[] = []
const cleanups: Array<() => Promise<unknown>> = []

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

// Every request the app's HTTP client creates, by origin: "never connected" is checked here.
const requestedOrigins: string[] = []
subscribe('undici:request:create', (m) => void requestedOrigins.push(String((m as { request: { origin: unknown } }).request.origin)))

interface App {
  services: Services
  dataDir: string
  /** The newest one-time code the typed confirmations showed (the harness's terminal). */
  code(): string | null
  events: Array<{ event: EventName; payload: unknown }>
}

async function startApp(prepare?: (dataDir: string) => Promise<void> | void): Promise<App> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-security-'))
  dirs.push(dataDir)
  await prepare?.(dataDir)
  const terminal: string[] = []
  const services = await createServices({
    dataDir,
    exportDir: join(dataDir, 'exports'),
    version: '0.0.0-security',
    shellKind: 'web',
    safeStorage: memorySafeStorage({ key: Buffer.alloc(32, 7) }),
    sandbox: { orders: 30, autoGenerate: false, seed: 21 },
    confirmationCodes: { show: (line) => void terminal.push(line), shownIn: 'the test' }
  })
  cleanups.push(() => services.close())
  const events: App['events'] = []
  services.subscribe((event, payload) => void events.push({ event, payload }))
  return { services, dataDir, events, code: () => [...terminal.join('\n').matchAll(/type (\d{4}-\d{4})/g)].at(-1)?.[1] ?? null }
}

/** The app started with a live profile active: a second sandbox as the live service, its secret stored. */
async function withLiveProfile(): Promise<{ app: App; live: Sandbox; profileId: string }> {
  const app = await startApp()
  await app.services.start()
  const live = await startSandbox({ orders: 20, autoGenerate: false, seed: 22, apiKey: LIVE_KEY, apiSecret: LIVE_SECRET })
  cleanups.push(() => live.close())
  const h = app.services.handlers
  const p = await h['profiles:create']({ name: 'Live', baseUrl: live.url, apiKey: LIVE_KEY, serviceName: 'service', kind: 'live' })
  await h['secrets:set']({ profileId: p.id, secret: LIVE_SECRET })
  await h['profiles:switch']({ id: p.id })
  return { app, live, profileId: p.id }
}

/** An HTTP server that answers 200 {} to anything and keeps what it was sent. */
async function captureServer(host: string): Promise<{ url: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }> }> {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = []
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers })
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{}')
  })
  await new Promise<void>((r) => server.listen(0, host, r))
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())))
  const port = (server.address() as AddressInfo).port
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, seen }
}

/** Waits for the next event of a kind (registered before the call that causes it). */
function nextEvent<E extends EventName>(app: App, event: E): Promise<EventPayload<E>> {
  return new Promise((resolve) => {
    const off = app.services.subscribe((e, p) => {
      if (e !== event) return
      off()
      resolve(p as EventPayload<E>)
    })
  })
}

/** What the caller's promise ended as: 'done', or the error's kind and message. */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'done',
    (e: unknown) => `${(e as { kind?: string }).kind ?? 'error'}: ${(e as Error).message}`
  )

describe('security hardening, attacked end to end', () => {
  it('item 3: a live profile saved over plain http to another computer never connects, and its secret is never handed out', async () => {
    const through: string[] = []
    // A listener on this machine's own network address where there is one (else an address nothing answers on).
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address
    const capture = lan ? await captureServer(lan) : null
    const plainUrl = capture?.url ?? 'http://192.0.2.1:9'
    const at = new Date().toISOString()
    const app = await startApp(async (dataDir) => {
      // As an older version would have saved it, active, with its secret stored.
      const profile = (id: string, name: string, kind: string, baseUrl: string, apiKey: string) => ({
        id,
        name,
        kind,
        baseUrl,
        serviceName: 'service',
        apiKey,
        createdAt: at,
        updatedAt: at
      })
      writeFileSync(
        join(dataDir, 'profiles.json'),
        JSON.stringify({
          version: 1,
          activeId: 'legacy-plain',
          profiles: [
            profile('sandbox', 'Sandbox', 'sandbox', 'http://127.0.0.1:8787', ''),
            profile('legacy-plain', 'Legacy plain', 'live', plainUrl, LIVE_KEY)
          ]
        })
      )
      const store = new SecretStore({
        userDataDir: dataDir,
        safeStorage: memorySafeStorage({ key: Buffer.alloc(32, 7) }),
        service: KEYCHAIN_SERVICES.web
      })
      await store.set('legacy-plain', LIVE_SECRET)
      cleanups.push(() => store.delete('legacy-plain'))
    })
    const h = app.services.handlers
    const started = await outcome(app.services.start())
    if (!/must use https/.test(started)) through.push(`start: ${started}`)
    if ((await h['app:info']({})).profile.id !== 'sandbox') through.push('the plain-http profile became active')
    if (!/must use https/.test(await outcome(h['profiles:switch']({ id: 'legacy-plain' })))) through.push('switching to it')
    const tested = await h['secrets:test']({ profileId: 'legacy-plain' })
    if (tested.ok || !/https/.test(tested.message)) through.push(`connection test: ${tested.message}`)
    const origin = new URL(plainUrl).origin
    for (const baseUrl of [plainUrl, 'http://merchant-api.example', 'http://127.0.0.1.nip.io'])
      if (
        !/must use https/.test(
          await outcome(h['profiles:create']({ name: `Plain ${baseUrl}`, baseUrl, apiKey: LIVE_KEY, serviceName: 'service', kind: 'live' }))
        )
      )
        through.push(`creating a profile at ${baseUrl}`)
    if (requestedOrigins.includes(origin)) through.push(`a request was created to ${origin}`)
    if (capture && capture.seen.length > 0) through.push(`${capture.seen.length} requests reached ${origin}`)
    recordScenario({
      scenario: 'security: live profile over plain http',
      injected: [
        `an active live profile at ${plainUrl} (another computer, plain http) with its secret stored, as saved before https was required`,
        'switching to it, testing its connection, creating profiles at plain-http URLs'
      ],
      checked: [
        'start-up falls back to the sandbox and says https is required',
        'switch, connection test and create refused in plain words',
        capture
          ? `no request reached the listener at ${origin}`
          : 'no request was created to that origin (no network interface to listen on)'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it('item 3: a base URL moved to another origin loses its stored secret, so nothing signed goes there', async () => {
    const through: string[] = []
    const { app, live, profileId } = await withLiveProfile()
    const h = app.services.handlers
    expect((await h['secrets:test']({ profileId })).ok).toBe(true)

    // Pointed elsewhere (a slip, or someone at the keyboard): a server on this machine under another origin.
    const capture = await captureServer('127.0.0.1')
    const elsewhere = capture.url.replace('127.0.0.1', 'localhost')
    await h['profiles:update']({ id: profileId, patch: { baseUrl: elsewhere } })
    await h['sync:now']({})
    // The public endpoints go out unsigned: they show the profile does talk to the new origin.
    await h['config:refresh']({}).catch(() => undefined)
    await h['bank:get']({}).catch(() => undefined)
    const tested = await h['secrets:test']({ profileId })
    await until(async () => (await h['sync:state']({})).states.every((s) => !s.running), 'the sync against the new origin to give up')
    if ((await h['secrets:status']({ profileId })).has) through.push('the secret is still stored')
    if (tested.ok || tested.error?.kind !== 'missing_secret') through.push(`connection test: ${tested.message}`)
    if (capture.seen.length === 0) through.push('nothing reached the new origin, so this run shows nothing')
    const signed = capture.seen.filter((r) => Object.keys(r.headers).some((k) => /signature|payload|apikey/i.test(k)))
    if (signed.length > 0) through.push(`${signed.length} signed requests reached ${elsewhere}`)
    const audit = await h['audit:list']({ limit: 20 })
    const update = audit.rows.find((r) => r.action === 'profile.update')
    if (update?.detail.credentialDeleted !== true) through.push('the audit log does not say the secret was deleted')
    recordScenario({
      scenario: 'security: base URL moved to another origin',
      injected: [`a live profile with its secret moved from ${live.url} to ${elsewhere}, active, then synced and tested`],
      checked: [
        'the secret is deleted before the move is saved; the connection test says no secret is stored',
        `${capture.seen.length} requests reached the new origin, none of them signed or carrying the API key`,
        'the audit log records the deletion'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it('item 6: a CSV export of orders carrying formula payloads runs nothing in a spreadsheet; numbers stay numbers', async () => {
    const through: string[] = []
    const app = await startApp()
    await app.services.start()
    const h = app.services.handlers
    const sb = app.services.sandbox()!
    const ids = CSV_ATTACKS.map((attack) => sb.control.createOrder({ type: 1, fiatType: 1, merchantRecognitionId: attack }).orderId)
    await h['sync:now']({})
    await until(async () => (await h['orders:get']({ type: 1, orderId: ids.at(-1)! })) !== null, 'the attack orders to sync')
    const out = await h['orders:export']({ filter: { type: 1 } })
    const [header, ...rows] = parseCsv(readFileSync(out.path, 'utf8').slice(1))
    const col = (name: string) => header!.indexOf(name)
    for (const row of rows)
      for (const [i, field] of row.entries()) {
        const runs = cellsThatWouldRun(field)
        if (runs.length > 0) through.push(`${header![i]} of ${row[col('orderId')]}: ${JSON.stringify(runs)}`)
      }
    const byId = new Map(rows.map((r) => [Number(r[col('orderId')]), r]))
    for (const [i, id] of ids.entries()) {
      const got = byId.get(id)?.[col('merchantRecognitionId')]
      if (got?.replace(/'/g, '') !== CSV_ATTACKS[i]!.replace(/'/g, ''))
        through.push(`order ${id}: the merchant id came out as ${JSON.stringify(got)}`)
    }
    for (const row of rows)
      for (const name of ['fiatAmount', 'onrampFee', 'gatewayFee', 'expectedPrice'])
        if (!/^(-?\d+(\.\d+)?)?$/.test(row[col(name)] ?? '')) through.push(`${name} of ${row[col('orderId')]} is not a plain number`)
    recordScenario({
      scenario: 'security: CSV export in a spreadsheet',
      injected: [`${ids.length} orders whose merchant id is a formula payload (=, +, -, @, tab, CR, LF, full-width, after ; , or tab)`],
      checked: [
        `${rows.length} exported rows read with a strict RFC 4180 reader: every field quoted`,
        'no cell, split at ; , tab or line breaks, trimmed and NFKC-folded, starts a formula',
        'each payload survives as text; amounts stay plain numbers'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it("item 7: the sandbox's control API answers only its operator", async () => {
    const sb = await startSandbox({ orders: 10, autoGenerate: false, seed: 23 })
    cleanups.push(() => sb.close())
    const before = { now: sb.control.serverNow(), faults: sb.control.faults(), orders: sb.control.groundTruth().length }
    const send = async (path: string, headers: Record<string, string>, body?: string) => {
      const r = await request(`${sb.url}/__sandbox${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body })
      const text = await r.body.text()
      return { status: r.statusCode, leaked: text.includes(sb.apiSecret) }
    }
    const token = { [CONTROL_TOKEN_HEADER]: sb.controlToken }
    const json = { 'content-type': 'application/json' }
    const attacks: Array<[string, Promise<{ status: number; leaked: boolean }>]> = [
      ['no token', send('/info', {})],
      ['a wrong token', send('/info', { [CONTROL_TOKEN_HEADER]: 'x'.repeat(32) })],
      ['a rebinding page (foreign Host)', send('/clock', { ...token, ...json, host: `evil.test:${sb.port}` }, '{"offsetMs":86400000}')],
      ['a browser page (Origin)', send('/faults', { ...token, ...json, origin: 'http://evil.test' }, '{"errorRate":1}')],
      ['an HTML form (text/plain)', send('/orders', { ...token, 'content-type': 'text/plain' }, '{"type":1}')]
    ]
    const through: string[] = []
    const statuses: string[] = []
    for (const [what, p] of attacks) {
      const r = await p
      statuses.push(`${what}: ${r.status}`)
      if (r.status < 400 || r.leaked) through.push(`${what}: ${r.status}${r.leaked ? ', the API secret in the answer' : ''}`)
    }
    const after = { now: sb.control.serverNow(), faults: sb.control.faults(), orders: sb.control.groundTruth().length }
    if (after.now - before.now > 60_000 || JSON.stringify(after.faults) !== '{}' || after.orders !== before.orders)
      through.push('the sandbox changed')
    recordScenario({
      scenario: "security: the sandbox's control API",
      injected: attacks.map(([what]) => what),
      checked: [statuses.join('; '), 'clock, faults and orders unchanged, and no answer carried the API secret'],
      lost: through
    })
    expect(through).toEqual([])
  })

  it('item 7: the browser harness binds to loopback, answers only its per-launch name, and its cookie is not the token', async () => {
    const through: string[] = []
    const staticDir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-static-'))
    dirs.push(staticDir)
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>harness</title>')
    const refused = await outcome(startWebApp({ staticDir, host: '0.0.0.0' }))
    if (!/--allow-remote/.test(refused)) through.push(`binding 0.0.0.0: ${refused}`)
    const web = await startWebApp({ staticDir, sandbox: { orders: 5, autoGenerate: false } })
    cleanups.push(() => web.close())
    const get = (url: string, headers: Record<string, string> = {}) =>
      request(url, { headers, dispatcher: localhostDispatcher }).then(async (r) => ({
        status: r.statusCode,
        cookie: String(r.headers['set-cookie'] ?? ''),
        body: await r.body.text()
      }))
    const login = await get(web.openUrl)
    const session = login.cookie.split(';')[0]!
    if (!session.startsWith(`${SESSION_COOKIE}=`) || session.includes(web.harness.token)) through.push(`the cookie: ${session}`)
    const port = web.harness.port
    const attempts: Array<[string, Promise<{ status: number }>]> = [
      ['the token itself as the cookie', get(web.url, { cookie: `${SESSION_COOKIE}=${web.harness.token}` })],
      ['127.0.0.1 on its port, with the session', get(`http://127.0.0.1:${port}/`, { cookie: session })],
      ['localhost on its port, with the session', get(`http://localhost:${port}/`, { cookie: session })],
      ['a rebinding name, with the session', get(web.url, { cookie: session, host: `evil.test:${port}` })]
    ]
    const statuses: string[] = []
    for (const [what, p] of attempts) {
      const r = await p
      statuses.push(`${what}: ${r.status}`)
      if (r.status < 400) through.push(`${what}: ${r.status}`)
    }
    const own = await get(web.url, { cookie: session })
    if (own.status !== 200) through.push(`its own name with the session answered ${own.status}`)
    recordScenario({
      scenario: 'security: browser harness name and session',
      injected: ['--host 0.0.0.0 without --allow-remote', ...attempts.map(([what]) => what)],
      checked: [
        'binding beyond loopback refused before anything starts',
        `the token buys a session id of its own (${SESSION_COOKIE}, HttpOnly, SameSite=Strict)`,
        statuses.join('; '),
        'its <random>.localhost name with the session: 200'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it('item 8: a script in the page cannot allow plaintext secrets or open the inbox beyond loopback; the operator can, and both are logged', async () => {
    const through: string[] = []
    const app = await startApp()
    await app.services.start()
    const h = app.services.handlers
    const before = await h['settings:get']({})
    const guesses = ['0000-0000', '1234-5678', '9999-9999']
    for (const patch of [{ allowPlaintextSecrets: true }, { inbox: { enabled: true, host: '0.0.0.0', port: 0 } }]) {
      // The page sees the request (it must show the dialog) but not the code: it guesses.
      const asked = nextEvent(app, 'confirm:request')
      const result = outcome(h['settings:update'](patch))
      const req = await asked
      const answers = []
      for (const g of guesses) answers.push((await h['confirm:answer']({ id: req.id, code: g === app.code() ? '0000-0001' : g })).outcome)
      if (!(await result).startsWith('not_confirmed')) through.push(`${JSON.stringify(patch)} with guessed codes: ${await result}`)
      if (answers.join() !== 'wrong_code,wrong_code,cancelled') through.push(`answers to guesses: ${answers.join()}`)
    }
    if (JSON.stringify(await h['settings:get']({})) !== JSON.stringify(before)) through.push('the settings changed')
    const shown = JSON.stringify(app.events)
    const code = app.code()
    if (code && shown.includes(code)) through.push('a code reached the window')
    // The operator, with the code from the terminal.
    const asked = nextEvent(app, 'confirm:request')
    const applied = outcome(h['settings:update']({ allowPlaintextSecrets: true }))
    await h['confirm:answer']({ id: (await asked).id, code: app.code() })
    if ((await applied) !== 'done' || !(await h['settings:get']({})).allowPlaintextSecrets) through.push('the operator could not confirm')
    const logged = (await h['audit:list']({ limit: 20 })).rows
      .filter((r) => r.action === 'security.confirmation')
      .map((r) => `${String(r.detail.change)}:${String(r.detail.confirmed)}`)
    if (logged.join() !== 'allowPlaintextSecrets:true,inboxBeyondLoopback:false,allowPlaintextSecrets:false')
      through.push(`audit log: ${logged.join()}`)
    recordScenario({
      scenario: 'security: switches that weaken security',
      injected: ['settings:update for plaintext secrets and for the inbox on 0.0.0.0 from the window, answered with 3 guessed codes each'],
      checked: [
        'both refused (not_confirmed) after three wrong codes; settings unchanged',
        'the code appears in no event the window receives',
        'the operator confirms with the code shown outside the window; every answer is in the audit log'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it('item 8: a rotation the keychain refuses never lets the old secret be read again; entries are named per shell', async () => {
    const through: string[] = []
    const dir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-keychain-'))
    dirs.push(dir)
    // A keychain that took the old secret (under the first naming too) and now refuses writes and deletes of that profile.
    const items = new Map<string, string>([
      [`${KEYCHAIN_SERVICES.web}/profile:p`, 'old-secret'],
      ['rampdesk/p', 'older-secret']
    ])
    const stuck: KeytarLike = {
      getPassword: async (s, a) => items.get(`${s}/${a}`) ?? null,
      setPassword: async (s, a, v) => {
        if (a.endsWith('p')) throw new Error('keychain locked')
        items.set(`${s}/${a}`, v)
      },
      deletePassword: async (s, a) => {
        if (a.endsWith('p')) throw new Error('keychain locked')
        return items.delete(`${s}/${a}`)
      }
    }
    const open = () =>
      new SecretStore({
        userDataDir: dir,
        safeStorage: memorySafeStorage({ key: Buffer.alloc(32, 9) }),
        keytar: stuck,
        service: KEYCHAIN_SERVICES.web
      })
    const store = open()
    if ((await store.get('p')) !== 'old-secret') through.push('the setup did not read the old secret')
    await store.set('p', LIVE_SECRET)
    for (const [when, s] of [
      ['after the rotation', store],
      ['on the next launch', open()]
    ] as const) {
      await s.migrateLegacy(['p'])
      const read = await s.get('p')
      if (read !== LIVE_SECRET) through.push(`${when}: read ${JSON.stringify(read)}`)
    }
    // The real keychain, where one answers: the web shell's entry is app.rampdesk.web / profile:<id>.
    const real = new SecretStore({ userDataDir: dir, safeStorage: null, service: KEYCHAIN_SERVICES.web })
    const available = (await real.keychainStatus()).available
    if (available) {
      await real.set('naming-check', LIVE_SECRET)
      const keytar = ((await import('keytar')) as unknown as { default: KeytarLike }).default
      if ((await keytar.getPassword('app.rampdesk.web', 'profile:naming-check')) !== LIVE_SECRET)
        through.push('the entry is not under app.rampdesk.web')
      await real.delete('naming-check')
    }
    recordScenario({
      scenario: 'security: keychain rotation and naming',
      injected: ['a new secret for a profile whose keychain entry (both namings) refuses writes and deletes'],
      checked: [
        'the new secret is read, never the old one: right away, on the next launch, and after a migration of the first naming',
        available
          ? 'a real keychain holds the web shell entry under app.rampdesk.web / profile:<id>'
          : 'no keychain answered here: naming checked with the stand-in only'
      ],
      lost: through
    })
    expect(through).toEqual([])
  })

  it("item 9: a live profile's webhook URL changes only when the operator confirms, told which URL it replaces", async () => {
    const through: string[] = []
    const { app, live } = await withLiveProfile()
    const h = app.services.handlers

    /** Sets the URL and answers main's confirmation with each code in turn (null: cancel; a function: read once asked) until it is settled. */
    const setUrl = async (url: string, codes: Array<string | null | (() => string | null)>) => {
      const asked = nextEvent(app, 'confirm:request')
      const result = outcome(h['webhooks:setUrl']({ url }))
      const req = await asked
      for (const code of codes) {
        const a = await h['confirm:answer']({ id: req.id, code: typeof code === 'function' ? code() : code })
        if (a.outcome !== 'wrong_code') break
      }
      return { result: await result, detail: req.detail }
    }
    const attacker = await setUrl('https://attacker.example/a', ['0000-0000', '1234-5678', '1111-2222'])
    const attacker2 = await setUrl('https://attacker.example/b', [null])
    if (live.control.webhookUrl(LIVE_KEY) !== undefined) through.push(`the service URL became ${live.control.webhookUrl(LIVE_KEY)}`)
    if (![attacker.result, attacker2.result].every((r) => r.startsWith('not_confirmed')))
      through.push(`unconfirmed: ${attacker.result}, ${attacker2.result}`)
    const operator = await setUrl('https://merchant.example/hook', [() => app.code()])
    if (operator.result !== 'done' || live.control.webhookUrl(LIVE_KEY) !== 'https://merchant.example/hook')
      through.push('the operator could not set it')
    const next = await setUrl('https://attacker.example/c', [null])
    if (!next.detail.includes('It replaces https://merchant.example/hook'))
      through.push(`the prompt did not name the URL it replaces: ${next.detail}`)
    if (live.control.webhookUrl(LIVE_KEY) !== 'https://merchant.example/hook') through.push('a cancelled change went through')
    recordScenario({
      scenario: 'security: production webhook URL',
      injected: [
        'webhooks:setUrl on a live profile from the window: with a guessed code, cancelled, and once more after the operator set one'
      ],
      checked: [
        "the live service's URL changed only with the operator's code",
        `the prompt names the URL it replaces (${operator.detail.includes('not known') ? 'unknown at first' : operator.detail}, then the one set)`
      ],
      lost: through
    })
    expect(through).toEqual([])
  })
})

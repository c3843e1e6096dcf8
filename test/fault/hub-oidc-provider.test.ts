// The team's identity provider failing under a hub process started as a team lead starts it
// (`serve --oidc-issuer …`), on real sockets: a gate in front of the provider
// (test/support/provider-gate.ts) makes it unreachable (nothing listening), silent (accepts,
// never answers), slow (discovery answered after 30 s) or answering garbage:
//   1. at hub start: the hub starts anyway, token operators are served, a sign-in start is
//      answered 503 with words a desktop can show, and a sign-in works once the provider is back;
//   2. at sign-in (the start, and the code's exchange at the callback): answered within the
//      hub's timeout for the provider (PROVIDER_TIMEOUT_S) plus a margin, with those words;
//   3. at renewal: the session is renewed without the provider (not ended), and a support
//      engineer reads the provider's problem in the log and in /metrics;
// and nothing the hub logs carries a code, a state, a token or the client secret.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PROVIDER_TIMEOUT_S } from '../../src/hub/oidc/oidc-provider'
import { startHubProcess, type HubProcess } from '../attack/hub/hub-process'
import { startTestProvider, type TestProvider } from '../support/oidc-provider'
import { startProviderGate, type GateMode, type ProviderGate } from '../support/provider-gate'
import { recordFault } from './fault-support'

const DESKTOP = 'http://127.0.0.1:9/done'
const SECRET = 'fault-client-secret-Xw27'
/** The longest a person waits for an answer while the provider is silent: its timeout and a margin for a loaded machine. */
const BOUND_MS = PROVIDER_TIMEOUT_S * 1000 + 3_000
const WORDS = /Test IdP did not answer the hub\. Try again in a minute; if it goes on, ask your team lead\./

let gate: ProviderGate
let provider: TestProvider
let hub: HubProcess
let secretDir: string
let operatorToken: string
/** Each test's desktop and browser on an address of its own: the sign-in routes allow one address 20 requests at once. */
let client: Agent | null = null
let clients = 0
/** Every code, state and token this test saw: none may be in the hub's log. */
const seen: string[] = []

async function get(url: string): Promise<{ status: number; location: string; text: string; ms: number }> {
  const t = performance.now()
  const r = await request(url, { headersTimeout: 60_000, dispatcher: client ?? undefined })
  const text = await r.body.text()
  return { status: r.statusCode, location: String(r.headers.location ?? ''), text, ms: performance.now() - t }
}

async function post(
  path: string,
  body: unknown
): Promise<{ status: number; json: { value: { accessToken: string; refreshToken: string; operator: string } }; ms: number }> {
  const t = performance.now()
  const r = await request(`${hub.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 60_000,
    dispatcher: client ?? undefined
  })
  return { status: r.statusCode, json: (await r.body.json()) as never, ms: performance.now() - t }
}

function startQuery(): { verifier: string; q: URLSearchParams } {
  const verifier = randomBytes(32).toString('base64url')
  const state = randomBytes(16).toString('base64url')
  seen.push(verifier, state)
  const q = new URLSearchParams({
    redirect_uri: DESKTOP,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256'
  })
  return { verifier, q }
}

/** Up to the callback: the desktop's start and the browser at the provider. */
async function toCallback(): Promise<{ verifier: string; callback: string }> {
  const { verifier, q } = startQuery()
  const start = await get(`${hub.url}/auth/oidc/start?${q}`)
  expect(start.status, start.text).toBe(302)
  seen.push(new URL(start.location).searchParams.get('state')!)
  const atProvider = await get(start.location)
  expect(atProvider.status).toBe(302)
  seen.push(new URL(atProvider.location).searchParams.get('code')!)
  return { verifier, callback: atProvider.location }
}

async function signIn(): Promise<{ accessToken: string; refreshToken: string; operator: string }> {
  const { verifier, callback } = await toCallback()
  const back = new URL((await get(callback)).location)
  expect(back.searchParams.get('error_description')).toBeNull()
  const code = back.searchParams.get('code')!
  seen.push(code)
  const r = await post('/auth/oidc/token', { code, verifier })
  expect(r.status).toBe(200)
  seen.push(r.json.value.accessToken, r.json.value.refreshToken)
  return r.json.value
}

/** A token operator's call, timed: served whatever the provider does. */
async function tokenOperatorMs(): Promise<number> {
  const t = performance.now()
  const r = await hub.call(operatorToken, 'team:access')
  expect(r.ok).toBe(true)
  return performance.now() - t
}

async function metric(stage: string): Promise<number> {
  const text = (await get(`${hub.url}/metrics`)).text
  return Number(new RegExp(`^rampdesk_hub_oidc_provider_failures_total\\{stage="${stage}"\\} (\\d+)`, 'm').exec(text)?.[1])
}

beforeAll(async () => {
  gate = await startProviderGate()
  provider = await startTestProvider('rampdesk-hub', { issuer: gate.url })
  provider.person.groups = ['rd-operators']
  gate.target = provider.listening
  secretDir = mkdtempSync(join(tmpdir(), 'rampdesk-oidc-fault-'))
  writeFileSync(join(secretDir, 'client-secret'), SECRET, { mode: 0o600 })
  // The provider is down as the hub starts.
  await gate.set({ kind: 'down' })
  hub = await startHubProcess({
    args: [
      '--oidc-issuer',
      gate.url,
      '--oidc-client-id',
      provider.clientId,
      '--oidc-client-secret-file',
      join(secretDir, 'client-secret'),
      '--oidc-role-claim',
      'groups',
      '--oidc-roles',
      'operator=rd-operators',
      '--oidc-provider-name',
      'Test IdP'
    ]
  })
  operatorToken = hub.addOperator('ola', 'operator')
}, 60_000)

beforeEach(async () => {
  await client?.close()
  client = new Agent({ localAddress: `127.5.0.${++clients}` })
})

afterAll(async () => {
  await client?.close()
  await hub?.stop()
  await provider?.close()
  await gate?.close()
  if (secretDir) rmSync(secretDir, { recursive: true, force: true })
})

describe('the identity provider failing', () => {
  it('at hub start: the hub starts, token operators are served, a sign-in is refused in words until the provider is back', async () => {
    const operatorMs = await tokenOperatorMs()
    const refused = await get(`${hub.url}/auth/oidc/start?${startQuery().q}`)
    expect(refused.status).toBe(503)
    expect(refused.text).toMatch(WORDS)
    expect(hub.output()).toMatch(
      /identity provider http:\/\/127\.0\.0\.1:\d+\/? failed at sign-in start: .*connection refused \(nothing listening\)/
    )
    expect(await metric('discovery')).toBeGreaterThanOrEqual(1)
    recordFault(
      'sign-in provider down at hub start',
      { tokenOperatorMs: Math.round(operatorMs), refusedMs: Math.round(refused.ms) },
      {
        refusedMs: `< ${BOUND_MS}`
      }
    )
    expect(refused.ms).toBeLessThan(BOUND_MS)
  }, 60_000)

  it.each<[string, GateMode]>([
    ['nothing listening', { kind: 'down' }],
    ['accepting and never answering', { kind: 'silent' }],
    ['answering discovery after 30 s', { kind: 'slow', delayMs: 30_000 }],
    ['answering garbage', { kind: 'garbage' }]
  ])(
    'at a sign-in start, with the provider %s: answered in words within the timeout, token operators served meanwhile',
    async (what, mode) => {
      // The hub has not reached the provider yet (it discovers it at the first start, and again after each failure).
      await gate.set(mode)
      const pending = get(`${hub.url}/auth/oidc/start?${startQuery().q}`)
      const operatorMs = await tokenOperatorMs()
      const refused = await pending
      expect(refused.status).toBe(503)
      expect(refused.text).toMatch(WORDS)
      recordFault(
        `sign-in start, provider ${what}`,
        { answeredMs: Math.round(refused.ms), tokenOperatorMs: Math.round(operatorMs) },
        {
          answeredMs: `< ${BOUND_MS}`,
          tokenOperatorMs: '< 1000'
        }
      )
      expect(refused.ms).toBeLessThan(BOUND_MS)
      expect(operatorMs).toBeLessThan(1_000)
    },
    90_000
  )

  it('signs a person in as soon as the provider is back', async () => {
    await gate.set({ kind: 'pass' })
    expect((await signIn()).operator).toBe('ana')
  })

  it.each<[string, GateMode]>([
    ['nothing listening', { kind: 'down' }],
    ['accepting and never answering', { kind: 'silent' }],
    ['answering garbage', { kind: 'garbage' }]
  ])(
    'at the callback, with the provider %s: the desktop is told in words within the timeout',
    async (what, mode) => {
      await gate.set({ kind: 'pass' })
      const { callback } = await toCallback()
      const before = await metric('sign_in')
      await gate.set(mode)
      const back = await get(callback)
      expect(back.status).toBe(302)
      const desktop = new URL(back.location)
      expect(desktop.searchParams.get('error')).toBe('access_denied')
      expect(desktop.searchParams.get('error_description')).toMatch(/^Sign-in did not finish: /)
      expect(desktop.searchParams.get('error_description')).toMatch(WORDS)
      expect(await metric('sign_in')).toBe(before + 1)
      recordFault(`sign-in callback, provider ${what}`, { answeredMs: Math.round(back.ms) }, { answeredMs: `< ${BOUND_MS}` })
      expect(back.ms).toBeLessThan(BOUND_MS)
    },
    60_000
  )

  it.each<[string, GateMode]>([
    ['nothing listening', { kind: 'down' }],
    ['accepting and never answering', { kind: 'silent' }],
    ['answering garbage', { kind: 'garbage' }],
    ['in maintenance (503 temporarily_unavailable)', { kind: 'trouble' }]
  ])(
    'at renewal, with the provider %s: the session goes on (renewed unchecked), and the log names the problem',
    async (what, mode) => {
      await gate.set({ kind: 'pass' })
      const s = await signIn()
      const before = await metric('renewal')
      await gate.set(mode)
      const r = await post('/auth/oidc/refresh', { refreshToken: s.refreshToken })
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      seen.push(r.json.value.accessToken, r.json.value.refreshToken)
      expect((await hub.call(r.json.value.accessToken, 'team:access')).ok).toBe(true)
      // The old tokens were replaced, as at any renewal: the old refresh token, asked again at
      // once (an answer lost), gets the same new session, not another one.
      expect((await hub.call(s.accessToken, 'team:access')).ok).toBe(false)
      expect((await post('/auth/oidc/refresh', { refreshToken: s.refreshToken })).json.value.accessToken).toBe(r.json.value.accessToken)
      expect(await metric('renewal')).toBeGreaterThan(before)
      expect(hub.output()).toMatch(/identity provider http:\/\/127\.0\.0\.1:\d+\/? failed at renewal: /)
      await gate.set({ kind: 'pass' })
      // Back: the next renewal asks the provider again.
      const grants = provider.grants.length
      const next = await post('/auth/oidc/refresh', { refreshToken: r.json.value.refreshToken })
      expect(next.status).toBe(200)
      seen.push(next.json.value.accessToken, next.json.value.refreshToken)
      expect(provider.grants.slice(grants)).toContain('refresh_token')
      recordFault(`sign-in renewal, provider ${what}`, { answeredMs: Math.round(r.ms) }, { answeredMs: `< ${BOUND_MS}` })
      expect(r.ms).toBeLessThan(BOUND_MS)
    },
    60_000
  )

  it('never logs a code, a state, a token or the client secret', () => {
    const log = hub.output()
    expect(seen.length).toBeGreaterThan(40)
    expect(log).not.toContain(SECRET)
    for (const v of seen) expect(log).not.toContain(v)
  })
})

// Bad input over IPC: every channel of the contract fed arbitrary payloads (fast-check),
// through the real Electron dispatch (src/main/electron/ipc.ts, 'electron' mocked) and
// through the web harness's POST /rpc/<channel>, both in front of the REAL services
// handlers (createServices on the sandbox profile). Every payload the contract rejects
// must come back as an invalid_input envelope without reaching a handler; nothing may
// throw, hang or take the services down: they answer valid calls afterwards.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as realSleep } from 'node:timers/promises'
import fc from 'fast-check'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { electronMock, ipcMainHandlers } from '../electron/electron-mock'
import { channelNames, channels, type ChannelName, type Envelope } from '../../src/shared/ipc/contract'
import type { Services } from '../../src/main/services'
import type { WebHarness } from '../../src/web/server'
import { recordScenario, spiedHandlers } from './support'
import { localhostDispatcher } from '../support/localhost-names'

vi.mock('electron', () => electronMock())

const { registerIpc } = await import('../../src/main/electron/ipc')
const { createServices } = await import('../../src/main/services')
const { startWebHarness } = await import('../../src/web/server')

/** One valid input per channel: the base the mutations start from (and proof the schemas accept something). */
const VALID: Record<ChannelName, unknown> = {
  'app:info': {},
  'app:openLogs': {},
  'app:openExport': { file: 'rampdesk-onramp-2026-11-25T14-30-00-000Z.csv', action: 'show' },
  'app:openExternal': { url: 'https://etherscan.io/tx/0xabc' },
  'app:showMain': { order: { type: 1, orderId: 5 } },
  'app:wake': {},
  'profiles:list': {},
  'profiles:create': { name: 'Fuzz', baseUrl: 'https://api.example.com', apiKey: 'key-1' },
  'profiles:update': { id: 'sandbox', patch: { name: 'Other' } },
  'profiles:delete': { id: 'some-profile' },
  'profiles:switch': { id: 'sandbox' },
  'profiles:signInInfo': { id: 'sandbox' },
  'profiles:signIn': { id: 'sandbox' },
  'profiles:cancelSignIn': { id: 'sandbox' },
  'profiles:signOut': { id: 'sandbox' },
  'profiles:test': { baseUrl: 'http://127.0.0.1:9', serviceName: 'service', apiKey: 'key-1', secret: 'abcdefgh12' },
  'secrets:status': { profileId: 'sandbox' },
  'secrets:set': { profileId: 'sandbox', secret: 'abcdefgh12' },
  'secrets:delete': { profileId: 'sandbox' },
  'secrets:test': { profileId: 'sandbox' },
  'secrets:where': {},
  'settings:get': {},
  'settings:update': { theme: 'dark', historyPollSeconds: 60 },
  'config:get': {},
  'config:refresh': {},
  'bank:get': {},
  'tickers:get': { fiatType: 1 },
  'tickers:visibility': { view: 'main', visible: true },
  'quotes:get': { type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '1000' },
  'quotes:compare': { type: 2, coinId: 54, chainId: 1, quantity: '12.5' },
  'orders:query': { filter: { type: 1, statusGroup: 'completed', search: 'abc' }, sort: 'updatedAt:desc', offset: 0, limit: 50 },
  'orders:get': { type: 2, orderId: 100001 },
  'orders:watch': { type: 1, orderId: 100001, watch: true },
  'orders:check': { type: 1, orderId: 100001 },
  'orders:claim': { type: 1, orderId: 100001, action: 'hand', to: 'Ana' },
  'orders:note': { type: 1, orderId: 100001, text: 'Customer called' },
  'orders:watched': {},
  'orders:export': { filter: { type: 1, from: '2025-01-01T00:00:00Z' } },
  'sync:state': {},
  'sync:now': {},
  'sync:resync': {},
  'sync:coverage': {},
  'sync:audit': {},
  'orders:unreadable': {},
  'diagnostics:get': {},
  'diagnostics:text': {},
  'budget:get': {},
  'webhooks:setUrl': { url: 'https://merchant.example/hook' },
  'webhooks:sendDummy': { target: 'url', url: 'http://127.0.0.1:9/hook' },
  'webhooks:resend': { orderId: 100001 },
  'webhooks:deliveries': { offset: 0, limit: 20 },
  'webhooks:verify': { payload: 'eyJ0aW1lc3RhbXAiOjF9', signature: 'ab' },
  'webhooks:inbox': {},
  'webhooks:relays': { limit: 20 },
  'webhooks:retryRelays': { ids: [1] },
  'tray:state': {},
  'alerts:list': {},
  'alerts:resend': { type: 1, orderId: 100001 },
  'activity:since': { since: 0 },
  'activity:lastLooked': {},
  'activity:seen': {},
  'webhooks:lastUrl': {},
  'confirm:answer': { id: 'no-such-request', code: '1234-5678' },
  'audit:list': { limit: 10 },
  'team:access': {},
  'team:operators': {},
  'team:addOperator': { name: 'ana', role: 'viewer' },
  'team:revokeOperator': { name: 'ana' },
  'team:secondFactor': {},
  'team:proveSecondFactor': { code: '123456' },
  'team:enrolSecondFactor': {},
  'team:confirmSecondFactor': { code: '123456' }
}

const isValid = (c: ChannelName, v: unknown): boolean =>
  (channels[c].input as { safeParse(x: unknown): { success: boolean } }).safeParse(v === undefined ? {} : v).success

/** Anything at all, including values no JSON or structured clone carries. */
const anything = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true
})

const nastyKeys = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'then', '', ' ', 'type ', 'x'.repeat(300))

/** Payloads built from a valid one: a field replaced, dropped, or an extra one; or the whole payload replaced. */
function mutations(c: ChannelName): fc.Arbitrary<unknown> {
  const base = VALID[c] as Record<string, unknown>
  const keys = Object.keys(base)
  const out: fc.Arbitrary<unknown>[] = [
    anything,
    fc.record({ k: fc.oneof(fc.string(), nastyKeys), v: anything }).map(({ k, v }) => ({ ...base, [k]: v })),
    fc.constantFrom(null, 0, -1, '', 'x', true, [], [base], Number.NaN, Infinity, 2 ** 53, '{}'),
    fc.string({ maxLength: 5000 }).map((s) => ({ ...base, ...Object.fromEntries(keys.map((k) => [k, s])) }))
  ]
  if (keys.length > 0) {
    out.push(fc.record({ k: fc.constantFrom(...keys), v: anything }).map(({ k, v }) => ({ ...base, [k]: v })))
    out.push(fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(base).filter(([x]) => x !== k))))
    // Proto pollution attempts ride along with an otherwise valid payload.
    out.push(fc.constant(JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(base).slice(1)}`) as unknown))
  }
  return fc.oneof(...out).filter((v) => !isValid(c, v))
}

/** What a value becomes after JSON.stringify and JSON.parse; undefined when JSON cannot carry it. */
function jsonRoundTrip(v: unknown): unknown {
  try {
    const text = JSON.stringify(v)
    return text === undefined ? undefined : (JSON.parse(text) as unknown)
  } catch {
    return undefined
  }
}

let dir: string
let services: Services
let harness: WebHarness
let cookie = ''
const reachedHandlers: string[] = []
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => void unhandled.push(e)
const counts = { ipc: 0, http: 0, rawHttp: 0 }

const ourWc = { id: 1 }
const goodEvent = { sender: ourWc, senderFrame: { url: 'file:///app/out/renderer/index.html?view=main', parent: null } }

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-rel-ipc-'))
  services = await createServices({
    dataDir: join(dir, 'data'),
    exportDir: join(dir, 'exports'),
    version: '0.0.0-fuzz',
    shellKind: 'web',
    sandbox: { seed: 2, orders: 50, autoGenerate: false }
  })
  await services.start()
  // The real handlers, each noting that it was reached.
  const spied = spiedHandlers(services.handlers, reachedHandlers)
  registerIpc(spied, { isOurWebContents: (wc) => wc === (ourWc as never), isAppUrl: (u) => u.startsWith('file:///app/out/renderer/') })
  const staticDir = join(dir, 'static')
  mkdirSync(staticDir)
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>fuzz</title>')
  harness = await startWebHarness({ handlers: spied, subscribe: services.subscribe, staticDir })
  const r = await request(harness.openUrl, { method: 'GET', dispatcher: localhostDispatcher })
  await r.body.dump()
  cookie = String(r.headers['set-cookie']).split(';')[0]!
}, 60_000)

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
  await harness?.close()
  await services?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A dispatch that must settle; a hang fails the test instead of stalling it. */
async function settled<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([p, realSleep(5_000).then(() => Promise.reject(new Error(`${what} did not answer within 5 s`)))])
}

function expectRefused(r: Envelope<unknown>, what: string): void {
  if (r.ok) throw new Error(`${what} was accepted: ${JSON.stringify(r).slice(0, 300)}`)
  expect(r.error.kind, what).toBe('invalid_input')
  expect(r.error.message, what).toMatch(/^invalid input for /)
}

async function rpc(channel: string, body: string): Promise<{ status: number; json: Envelope<unknown> }> {
  const r = await request(`${harness.url}rpc/${channel}`, {
    dispatcher: localhostDispatcher,
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', origin: harness.url.replace(/\/$/, '') },
    body
  })
  return { status: r.statusCode, json: (await r.body.json()) as Envelope<unknown> }
}

describe('bad input over IPC', () => {
  it('the valid examples cover every channel and are valid', () => {
    expect(Object.keys(VALID).sort()).toEqual([...channelNames].sort())
    for (const c of channelNames) expect(isValid(c, VALID[c]), c).toBe(true)
  })

  it.each(channelNames.map((c) => [c]))('%s: arbitrary payloads through the Electron dispatch are refused', async (c) => {
    const handler = ipcMainHandlers.get(c)!
    await fc.assert(
      fc.asyncProperty(mutations(c), async (payload) => {
        const r = (await settled(Promise.resolve(handler(goodEvent, payload)), c)) as Envelope<unknown>
        counts.ipc++
        expectRefused(r, `${c} ${fc.stringify(payload).slice(0, 120)}`)
      }),
      { numRuns: 60 }
    )
    expect(reachedHandlers).toEqual([])
  })

  it.each(channelNames.map((c) => [c]))('%s: arbitrary JSON through the web harness /rpc is refused', async (c) => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(
            fc.jsonValue({ maxDepth: 3 }),
            mutations(c)
              .map(jsonRoundTrip)
              .filter((v) => v !== undefined)
          )
          .filter((v) => !isValid(c, v)),
        async (payload) => {
          const r = await settled(rpc(c, JSON.stringify(payload)), c)
          counts.http++
          expect(r.status).toBe(200)
          expectRefused(r.json, `${c} ${JSON.stringify(payload).slice(0, 120)}`)
        }
      ),
      { numRuns: 15 }
    )
    expect(reachedHandlers).toEqual([])
  })

  it('bodies that are not JSON, or too large, are refused by /rpc', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...channelNames),
        fc.string({ minLength: 1 }).filter((s) => {
          try {
            JSON.parse(s)
            return false
          } catch {
            return true
          }
        }),
        async (c, body) => {
          const r = await settled(rpc(c, body), c)
          counts.rawHttp++
          expect(r.status).toBe(400)
          expect(r.json).toMatchObject({ ok: false, error: { kind: 'invalid_input' } })
        }
      ),
      { numRuns: 60 }
    )
    const big = await rpc('orders:query', JSON.stringify({ filter: { type: 1, search: 'x'.repeat(3 * 1024 * 1024) } }))
    expect(big.status).toBe(413)
    const unknown = await rpc('orders:drop', '{}')
    expect(unknown.status).toBe(404)
    expect(reachedHandlers).toEqual([])
  })

  it('valid shapes with bad meaning reach the handlers and come back as envelopes, never a throw or a hang', async () => {
    const cases: Array<[ChannelName, unknown]> = [
      ['profiles:switch', { id: 'no-such-profile' }],
      ['profiles:delete', { id: 'sandbox' }],
      ['profiles:delete', { id: 'no-such-profile' }],
      ['secrets:set', { profileId: 'sandbox', secret: 'abcdefgh12' }],
      ['secrets:status', { profileId: 'no-such-profile' }],
      ['secrets:test', { profileId: 'no-such-profile' }],
      ['orders:get', { type: 1, orderId: -5 }],
      [
        'orders:query',
        {
          filter: { type: 2, search: '%_\\\'"; DROP TABLE orders; --', from: '2030-01-01T00:00:00Z', to: '2020-01-01T00:00:00Z' },
          sort: 'orderId:asc',
          offset: 1_000_000,
          limit: 1000
        }
      ],
      ['webhooks:verify', { payload: '%%%not base64%%%', signature: 'zz' }],
      ['webhooks:resend', { orderId: 2_147_483_647 }],
      ['quotes:get', { type: 1, coinId: 2_147_483_647, chainId: -1, fiatType: 0, fiatAmount: '0' }],
      ['tickers:get', { fiatType: 999 }]
    ]
    for (const [c, input] of cases) {
      const r = (await settled(Promise.resolve(ipcMainHandlers.get(c)!(goodEvent, input)), c)) as Envelope<unknown>
      expect(typeof r.ok, c).toBe('boolean')
      if (!r.ok) expect(r.error.message.length, c).toBeGreaterThan(0)
    }
    expect(reachedHandlers.length).toBe(cases.length)
    const orders = await ipcMainHandlers.get('orders:query')!(goodEvent, {
      filter: { type: 1 },
      sort: 'updatedAt:desc',
      offset: 0,
      limit: 1
    })
    expect((orders as Envelope<{ total: number }>).ok).toBe(true)
    reachedHandlers.length = 0
  })

  it('afterwards nothing crashed: no unhandled rejection, and the services answer valid calls', async () => {
    expect(unhandled).toEqual([])
    const q = (await ipcMainHandlers.get('orders:query')!(goodEvent, VALID['orders:query'])) as Envelope<{ total: number }>
    expect(q.ok).toBe(true)
    const s = await rpc('sync:state', '{}')
    expect(s.json.ok).toBe(true)
    // Proto pollution attempts left Object.prototype alone.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    recordScenario({
      scenario: 'bad input over IPC',
      injected: [
        `${counts.ipc} arbitrary payloads (fast-check: any value, mutated valid inputs, proto keys, huge strings) on all ${channelNames.length} channels through the Electron dispatch`,
        `${counts.http} arbitrary JSON payloads through the web harness POST /rpc/<channel>`,
        `${counts.rawHttp} bodies that are not JSON, one of 3 MiB, one unknown channel`
      ],
      checked: [
        '12 valid-shaped but meaningless calls (unknown profile, SQL-ish search, huge ids, bad base64) answered with envelopes',
        'each refused with an invalid_input envelope (non-JSON 400, oversized 413, unknown channel 404)',
        'no handler reached',
        'no hang (5 s bound per call), no unhandled rejection',
        'the services answered valid calls afterwards'
      ],
      lost: []
    })
  })
})

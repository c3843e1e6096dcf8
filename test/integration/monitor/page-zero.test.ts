// A live profile's history sync against a service that counts pages from 1 and refuses page
// 0 with 400 "Invalid page: must be at least 1", as the live service does. The sync asks
// page 0 once, to learn how pages are numbered (the spec says only "default 1"), and takes
// the refusal as that answer: every order syncs, and no operator-visible error, no failing
// Diagnostics line and no warning in the support log comes of it.
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { startCountingProxy, startServicesHarness, type CountingProxy, type ServicesHarness } from '../services/harness'

const SECRET = `page-zero-${randomBytes(12).toString('hex')}`

let h: ServicesHarness
let sb: Sandbox
let proxy: CountingProxy

beforeAll(async () => {
  sb = await startSandbox({ seed: 29, orders: 400, autoGenerate: false, apiKey: 'page-zero-key', apiSecret: SECRET })
  proxy = await startCountingProxy(sb.url)
  h = await startServicesHarness()
})
afterAll(async () => {
  await h?.close()
  await proxy?.close()
  await sb?.close()
})

async function synced(): Promise<void> {
  await h.call('sync:now', {})
  for (let i = 0; i < 600; i++) {
    const { states } = await h.call('sync:state', {})
    if (states.length > 0 && states.every((s) => !s.running && s.lastSuccessAt !== null)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`sync did not settle: ${JSON.stringify((await h.call('sync:state', {})).states)}`)
}

/** The merchantHistory requests that reached the service asking page 0. */
const pageZeroAsked = (): number =>
  proxy.requests.filter((r) => r.path.endsWith('/merchantHistory') && (JSON.parse(r.body || '{}') as { page?: unknown }).page === 0).length

type Line = Record<string, unknown> & { level: string; msg: string }
function logLines(): Line[] {
  const dir = join(h.dataDir, 'logs')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as Line)
}

it('learns that pages count from 1 from the refusal of page 0, and shows no error for it anywhere', async () => {
  // The premise: this service answers page 0 as the live one does.
  expect(sb.control.readings().firstPage).toBe(1)

  const profile = await h.call('profiles:create', { name: 'Counts from 1', baseUrl: proxy.url, apiKey: sb.apiKey })
  await h.call('secrets:set', { profileId: profile.id, secret: SECRET })
  await h.call('profiles:switch', { id: profile.id })
  await synced()

  expect(pageZeroAsked()).toBeGreaterThan(0)
  const refusal = logLines().find((l) => l.msg === 'api call' && l.endpoint === 'merchantHistory' && l.status === 400)
  expect(JSON.stringify(refusal), 'the service refused page 0 as the live one does').toMatch(/Invalid page: must be at least 1/)

  // Every order of the synced scopes is here: the refusal cost nothing.
  for (const type of [1, 2] as const) {
    const truth = sb.control.groundTruth({ type, fiatType: 1 })
    expect((await h.call('orders:query', { filter: { type, fiatType: 1 }, sort: 'orderId:asc', offset: 0, limit: 1 })).total).toBe(
      truth.length
    )
  }

  // Nothing an operator sees: no sync error, no failing merchantHistory line in Diagnostics.
  const { states } = await h.call('sync:state', {})
  expect(states.filter((s) => s.lastError !== null)).toEqual([])
  const d = await h.call('diagnostics:get', {})
  const history = d.endpoints.find((e) => e.endpoint === 'merchantHistory')!
  expect(history).toMatchObject({ failures: 0, lastError: null, lastOutcome: 'ok' })
  expect((await h.call('diagnostics:text', {})).text).not.toMatch(/Invalid page/)
  // What was learned is in the readings, in words.
  const coverage = await h.call('sync:coverage', {})
  expect(coverage.readings.find((r) => r.key === 'firstPage')).toMatchObject({ value: '1', state: 'checked', how: 'page 0 refused (400)' })
  expect(coverage.gaps.filter((g) => /page/i.test(g.text))).toEqual([])
  // The support log keeps the answer, at info, never as a warning.
  expect(logLines().filter((l) => l.level !== 'info' && JSON.stringify(l).includes('Invalid page'))).toEqual([])

  // A refusal settles it: the next syncs never ask page 0 again.
  const asked = pageZeroAsked()
  await synced()
  await synced()
  expect(pageZeroAsked()).toBe(asked)
}, 120_000)

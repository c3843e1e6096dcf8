// The control API (/__sandbox/, loopback only) and fault injection: orders created and
// advanced through HTTP, prices that move quotes and tickers, the generator stepped on
// the injected clock, and every kind of fault a client must survive.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { CONTROL_TOKEN_HEADER, startSandbox, type Sandbox } from '../../../src/sandbox'
import { ownHosts } from '../../../src/sandbox/admin-api'
import { isLoopback } from '../../../src/sandbox/http-server'
import { call, data, raw } from './sandbox-client'

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 9, orders: 100, autoGenerate: false, now: () => t, createChance: 1 })
})
afterAll(async () => {
  await sb.close()
})
beforeEach(() => {
  t += 61_000
  sb.control.clearFaults()
})

async function admin(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | undefined> = {}
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await request(`${sb.url}/__sandbox${path}`, {
    method: method as 'GET',
    headers: Object.fromEntries(
      Object.entries({ [CONTROL_TOKEN_HEADER]: sb.controlToken, 'content-type': 'application/json', ...headers }).filter(
        (e): e is [string, string] => e[1] !== undefined
      )
    ),
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  })
  return { status: r.statusCode, json: (await r.body.json()) as Record<string, unknown> }
}

describe('control API over HTTP', () => {
  it('answers loopback clients only', () => {
    expect(isLoopback('127.0.0.1')).toBe(true)
    expect(isLoopback('::1')).toBe(true)
    expect(isLoopback('::ffff:127.0.0.1')).toBe(true)
    expect(isLoopback('10.1.2.3')).toBe(false)
    expect(isLoopback('::ffff:192.168.1.4')).toBe(false)
    expect(isLoopback(undefined)).toBe(false)
  })

  it('refuses a caller without the per-launch token, a foreign Host, any Origin, and a body that is not typed JSON; nothing changes', async () => {
    const offset = sb.control.serverNow() - t
    const refused = [
      await admin('GET', '/info', undefined, { [CONTROL_TOKEN_HEADER]: undefined }),
      await admin('GET', '/info', undefined, { [CONTROL_TOKEN_HEADER]: 'x'.repeat(sb.controlToken.length) }),
      await admin('GET', '/info', undefined, { [CONTROL_TOKEN_HEADER]: sb.controlToken.slice(1) }),
      // DNS rebinding: a page at evil.test whose name now points at 127.0.0.1 sends its own Host.
      await admin('POST', '/clock', { offsetMs: 99_000 }, { host: `evil.test:${sb.port}` }),
      await admin('POST', '/clock', { offsetMs: 99_000 }, { host: `localhost:${sb.port + 1}` }),
      // A browser page calling with the token it somehow learnt.
      await admin('POST', '/clock', { offsetMs: 99_000 }, { origin: 'https://evil.test' }),
      await admin('POST', '/clock', { offsetMs: 99_000 }, { origin: 'null' }),
      // An HTML form can post text/plain without a preflight: it is not read as JSON.
      await admin('POST', '/clock', '{"offsetMs":99000}', { 'content-type': 'text/plain' }),
      await admin('POST', '/clock', '{"offsetMs":99000}', { 'content-type': 'application/x-www-form-urlencoded' }),
      await admin('POST', '/clock', '{"offsetMs":99000}', { 'content-type': undefined })
    ]
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 403, 403, 403, 403, 415, 415, 415])
    for (const r of refused) expect(JSON.stringify(r.json)).not.toContain(sb.apiSecret)
    expect(sb.control.serverNow() - t).toBe(offset)
    // Its own names pass: the address it is bound to and localhost on its port.
    expect(ownHosts('127.0.0.1', 8787)).toEqual(new Set(['127.0.0.1:8787', 'localhost:8787']))
    expect(ownHosts('::1', 1)).toEqual(new Set(['[::1]:1', 'localhost:1']))
    expect((await admin('GET', '/faults', undefined, { host: `localhost:${sb.port}` })).status).toBe(200)
    expect((await admin('DELETE', '/faults', undefined, { 'content-type': undefined })).status).toBe(200)
    expect((await admin('POST', '/clock', { offsetMs: offset }, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200)
  })

  it('tells what it runs with', async () => {
    const r = await admin('GET', '/info')
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({
      url: sb.url,
      serviceName: 'service',
      apiKey: sb.apiKey,
      apiSecret: sb.apiSecret,
      serverNow: new Date(t).toISOString(),
      orders: 100
    })
  })

  it('creates and advances orders; the API sees each step', async () => {
    const created = await admin('POST', '/orders', {
      type: 2,
      coinCode: 'usdc',
      network: 'bep20',
      quantity: 200,
      path: 'over limit, reviewed',
      hold: true
    })
    expect(created.status).toBe(201)
    const id = created.json.orderId as number
    expect(created.json).toMatchObject({ type: 2, status: 0, path: 'over limit, reviewed' })
    const adv = await admin('POST', `/orders/${id}/advance`, { status: 3 })
    expect(adv.json).toMatchObject({ status: 3, statusLabel: 'over limit, held for manual review' })
    expect((adv.json.history as { status: number }[]).map((h) => h.status)).toEqual([0, 1, 2, 3])
    expect(await data(sb, 'orderStatus', { orderId: id, type: 2 })).toEqual({ orderStatus: 3 })
    expect((await admin('POST', `/orders/${id}/advance`)).json).toMatchObject({ status: 4 })
    expect((await admin('POST', `/orders/${id}/advance`, { status: -1 })).status).toBe(400)
    expect((await admin('GET', `/orders/${id}`)).json).toMatchObject({ orderId: id, status: 4 })
    expect((await admin('GET', '/orders/999999999')).status).toBe(404)
    expect((await admin('POST', '/orders', { type: 1, coinCode: 'doge', network: 'bep20' })).status).toBe(406)
    expect((await admin('GET', '/nothing')).status).toBe(404)
  })

  it('serves the ground truth and the deliveries', async () => {
    const truth = await admin('GET', '/truth?type=2&limit=3')
    expect(truth.json.count).toBe(sb.control.groundTruth({ type: 2 }).length)
    expect((truth.json.orders as unknown[]).length).toBe(3)
    expect(await admin('GET', '/deliveries')).toMatchObject({ status: 200, json: { deliveries: [] } })
  })

  it('sets prices; quotes and tickers follow', async () => {
    const set = await admin('POST', '/prices', { coinCode: 'usdt', fiatType: 1, price: '80' })
    expect(set.json).toMatchObject({ coinCode: 'usdt', mid: '80', buy: '81.2', sell: '78.8' })
    const q = await data<{ rate: number; quantity: number }>(sb, 'quotes', {
      type: 1,
      coinCode: 'usdt',
      network: 'bep20',
      fiatAmount: 1000,
      fiatType: 1
    })
    expect(q.rate).toBe(81.2)
    const tick = await data<{ onramp: Record<string, number>; offramp: Record<string, number> }>(sb, 'priceTicker', {
      type: 3,
      fiatType: 1
    })
    expect(tick.onramp['54']).toBe(81.2)
    expect(tick.offramp['54']).toBe(78.8)
    expect((await admin('POST', '/prices', { coinCode: 'nope', price: 1 })).status).toBe(400)
  })

  it('steps the generator on the injected clock: prices tick, orders appear and move', async () => {
    const before = sb.control.prices().find((p) => p.coinCode === 'eth' && p.fiatType === 1)!.mid
    const r = await admin('POST', '/tick', { count: 3 })
    expect((r.json.created as number[]).length).toBe(3)
    expect(sb.control.prices().find((p) => p.coinCode === 'eth' && p.fiatType === 1)!.mid).not.toBe(before)
    const id = (r.json.created as number[])[0]!
    expect(sb.control.order(id)!.status).toBe(0)
    t += 2 * 3600_000
    const moved = sb.control.step(1)
    expect(moved.advanced).toContain(id)
    expect(sb.control.order(id)!.history.length).toBe(2)
  })

  it('shifts the clock', async () => {
    const r = await admin('POST', '/clock', { offsetMs: 120_000 })
    expect(r.json).toMatchObject({ clockOffsetMs: 120_000, serverNow: new Date(t + 120_000).toISOString() })
    const old = await call(sb, 'limits', { body: { type: 1 }, timestamp: t })
    expect(old.status).toBe(401)
    expect((old.json as { error: string }).error).toMatch(/expired/)
    await admin('POST', '/clock', { offsetMs: 0 })
  })

  it('sets and clears faults', async () => {
    expect((await admin('POST', '/faults', { endpoint: 'limits', errorRate: 1, errorStatus: 503 })).json).toEqual({
      faults: { limits: { errorRate: 1, errorStatus: 503 } }
    })
    expect((await call(sb, 'limits', { body: { type: 1 } })).status).toBe(503)
    expect((await admin('POST', '/faults', { endpoint: 'nope' })).status).toBe(400)
    expect((await admin('POST', '/faults', { endpoint: 'limits', errorRate: 'all' })).status).toBe(400)
    expect((await admin('DELETE', '/faults')).json).toEqual({ faults: {} })
    expect((await call(sb, 'limits', { body: { type: 1 } })).status).toBe(200)
  })
})

describe('readings', () => {
  it('GET and PUT /__sandbox/readings: read them, switch some, and refuse a bad one with the reason, changing nothing', async () => {
    const start = await admin('GET', '/readings')
    expect(start.status).toBe(200)
    expect(start.json).toEqual(sb.control.readings())
    expect(start.json).toMatchObject({ since: 'inclusive', tieOrder: 'orderId', dateHeader: true, currentTimestamp: true })

    const put = await admin('PUT', '/readings', { since: 'exclusive', unknownLimits: { merchantHistory: 5 }, paramTypes: 'strict' })
    expect(put.status).toBe(200)
    expect(put.json).toMatchObject({ since: 'exclusive', tieOrder: 'orderId', unknownLimits: { merchantHistory: 5 } })
    expect(Object.values(put.json.paramTypes as Record<string, string>).every((m) => m === 'strict')).toBe(true)
    expect(sb.control.readings()).toEqual(put.json)
    expect((await admin('GET', '/info')).json.readings).toEqual(put.json)

    const bad = await admin('PUT', '/readings', { since: 'inclusive', tieOrder: 'shuffled' })
    expect(bad.status).toBe(400)
    expect(bad.json.error).toBe('tieOrder must be one of orderId, hidden, limit, not "shuffled"')
    expect(sb.control.readings()).toEqual(put.json)
    expect((await admin('PUT', '/readings', { sinc: 'exclusive' })).json.error).toMatch(/unknown reading sinc/)

    sb.control.setReadings({ since: 'inclusive', unknownLimits: {}, paramTypes: start.json.paramTypes as Record<string, 'strict'> })
    expect(sb.control.readings()).toEqual(start.json)
  })

  it('control.readings() is a copy: changing it changes nothing', () => {
    const r = sb.control.readings()
    r.since = 'exclusive'
    r.paramTypes['merchantHistory.fiatType'] = 'strict'
    expect(sb.control.readings()).toMatchObject({ since: 'inclusive', paramTypes: { 'merchantHistory.fiatType': 'lenient' } })
  })

  it('startSandbox takes readings, and refuses an invalid one before it listens', async () => {
    const s = await startSandbox({
      orders: 5,
      autoGenerate: false,
      readings: { tieOrder: 'hidden', dateHeader: false, paramTypes: { 'limits.type': 'strict' } }
    })
    try {
      expect(s.control.readings()).toMatchObject({ tieOrder: 'hidden', dateHeader: false, paramTypes: { 'limits.type': 'strict' } })
      expect((await call(s, 'limits', { body: { type: 1 } })).status).toBe(409)
    } finally {
      await s.close()
    }
    await expect(startSandbox({ orders: 0, autoGenerate: false, readings: { limiter: 'leaky' as 'fixed' } })).rejects.toThrow(
      /limiter must be one of sliding, fixed/
    )
  })
})

describe('faults', () => {
  it('adds latency', async () => {
    sb.control.setFault('bankDetails', { latencyMs: 150 })
    const started = performance.now()
    expect((await call(sb, 'bankDetails')).status).toBe(200)
    // A lower bound only: the answer cannot come before the injected delay.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('sends malformed JSON with status 200', async () => {
    sb.control.setFault('publicAllConfig', { malformedJsonRate: 1 })
    const r = await call(sb, 'publicAllConfig')
    expect(r.status).toBe(200)
    expect(r.json).toBeUndefined()
    expect(() => JSON.parse(r.text)).toThrow()
  })

  it('truncates a body mid-way', async () => {
    sb.control.setFault('publicAllConfig', { truncateRate: 1 })
    await expect(call(sb, 'publicAllConfig')).rejects.toThrow()
  })

  it('drops connections', async () => {
    sb.control.setFault('*', { dropRate: 1, remaining: 2 })
    await expect(call(sb, 'bankDetails')).rejects.toThrow()
    await expect(call(sb, 'limits', { body: { type: 1 } })).rejects.toThrow()
    expect((await call(sb, 'bankDetails')).status).toBe(200)
  })

  it('injects an error rate deterministically from the seed', async () => {
    const run = async (): Promise<number[]> => {
      const s = await startSandbox({
        seed: 77,
        orders: 0,
        autoGenerate: false,
        faults: { bankDetails: { errorRate: 0.5, errorStatus: 500 } }
      })
      try {
        const out: number[] = []
        for (let i = 0; i < 20; i++) out.push((await call(s, 'bankDetails')).status)
        return out
      } finally {
        await s.close()
      }
    }
    const a = await run()
    expect(a).toEqual(await run())
    expect(a).toContain(500)
    expect(a).toContain(200)
  })

  it('does not touch the control API', async () => {
    sb.control.setFault('*', { errorRate: 1 })
    expect((await admin('GET', '/info')).status).toBe(200)
    expect((await raw(sb, '/__sandbox/faults', { method: 'GET', headers: { [CONTROL_TOKEN_HEADER]: sb.controlToken } })).status).toBe(200)
  })
})

describe('chain health', () => {
  const usdtTrc20 = async () => {
    const gas = await data<Record<string, Record<string, { nodeInSync: number; depositEnable: number }>>>(sb, 'allGasFee')
    return gas['54']?.['3']
  }
  it('a chain switched out of sync or closed is reported so by allGasFee from the next request, and back', async () => {
    expect(await usdtTrc20()).toMatchObject({ nodeInSync: 1, depositEnable: 1 })
    const set = await admin('POST', '/chains', { coinCode: 'usdt', chainId: 3, nodeInSync: 0 })
    expect(set).toEqual({ status: 200, json: { coinId: 54, coinCode: 'usdt', chainId: 3, nodeInSync: 0, depositEnable: 1 } })
    expect(await usdtTrc20()).toMatchObject({ nodeInSync: 0, depositEnable: 1 })
    sb.control.setChainHealth({ coinId: 54, chainId: 3, depositEnable: 0 })
    expect(await usdtTrc20()).toMatchObject({ nodeInSync: 0, depositEnable: 0 })
    expect((await admin('GET', '/chains')).json).toEqual({
      chains: [{ coinId: 54, coinCode: 'usdt', chainId: 3, nodeInSync: 0, depositEnable: 0 }]
    })
    await admin('POST', '/chains', { coinId: 54, chainId: 3, nodeInSync: 1, depositEnable: 1 })
    expect(await usdtTrc20()).toMatchObject({ nodeInSync: 1, depositEnable: 1 })
  })
  it('refuses a chain the coin is not on and a health other than 0 or 1', async () => {
    expect((await admin('POST', '/chains', { coinCode: 'usdt', chainId: 99, nodeInSync: 0 })).status).toBe(400)
    expect((await admin('POST', '/chains', { coinCode: 'usdt', chainId: 3, nodeInSync: 2 })).status).toBe(400)
  })
})

// Every response the sandbox can produce parses with the endpoint's response schema:
// each endpoint is driven through every shape it can answer (all fiat types, ticker
// and limit types, both history types for every fiat and both sort orders, quotes for
// every supported coin and network, the webhook calls), and every failure parses as
// the error envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PATHS, startSandbox, type Sandbox } from '../../../src/sandbox'
import { endpointNames, endpoints, type EndpointName } from '../../../src/shared/api/endpoints'
import { ErrorEnvelope } from '../../../src/shared/api/schemas'
import { COINS, FIATS } from '../../../src/sandbox/catalogue'
import { call } from './sandbox-client'

let sb: Sandbox
let t = Date.parse('2025-06-01T10:00:00.000Z')

beforeAll(async () => {
  sb = await startSandbox({ seed: 11, orders: 4000, autoGenerate: false, now: () => t, webhookBackoffMs: 1, webhookMaxTrials: 2 })
})
afterAll(async () => {
  await sb.close()
})

const seen = new Set<EndpointName>()

async function expectParses(name: EndpointName, body?: unknown): Promise<unknown> {
  // Stay clear of the per-minute limits: every call happens a minute after the last.
  t += 61_000
  const r = await call(sb, name, { body })
  if (r.status === 200) {
    const parsed = endpoints[name].response.safeParse(r.json)
    expect(
      parsed.success,
      `${name} ${JSON.stringify(body)}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))}`
    ).toBe(true)
    seen.add(name)
  } else {
    expect(ErrorEnvelope.safeParse(r.json).success, `${name} ${r.status} ${r.text}`).toBe(true)
    expect((r.json as { code: number }).code).toBe(r.status)
  }
  return r.json
}

describe('every sandbox response parses with its schema', () => {
  it('configuration endpoints, every fiat and type', async () => {
    for (const name of [
      'allChainMapping',
      'allGasFee',
      'allConfigMapping',
      'publicAllGasFee',
      'bankDetails',
      'publicAllConfig',
      'currentTimestamp'
    ] as const)
      await expectParses(name)
    for (const f of FIATS) {
      await expectParses('allCoinLimits', { fiatType: f.id })
      await expectParses('allCoinLimits', { fiatType: String(f.id) })
      for (const type of [1, 2, 3]) await expectParses('priceTicker', { type, fiatType: f.id })
    }
    for (const type of [1, 2, 3]) await expectParses('limits', { type })
  })

  it('quotes for every coin, network and fiat', async () => {
    for (const c of COINS) {
      for (const ch of c.networks) {
        for (const f of FIATS)
          await expectParses('quotes', { type: 1, coinId: c.id, chainId: ch, fiatType: f.id, fiatAmount: Number(f.onramp.min) * 20 })
      }
      for (const ch of c.offrampNetworks)
        await expectParses('quotes', { type: 2, coinCode: c.code, chainId: ch, fiatType: 1, quantity: c.stable ? 100 : 0.1 })
    }
  })

  it('history for both types, every fiat, both orders, and orderStatus for every order', async () => {
    for (const type of [1, 2, '']) {
      for (const f of FIATS) {
        for (const order of ['ASC', 'DESC']) await expectParses('merchantHistory', { type, fiatType: String(f.id), order, pageSize: 500 })
      }
    }
    const truth = sb.control.groundTruth()
    for (const o of truth.slice(0, 60)) await expectParses('orderStatus', { orderId: String(o.orderId), type: o.type })
  })

  it('history records at every step of every status path', async () => {
    for (const p of PATHS) {
      const o = sb.control.createOrder(
        p.type === 1
          ? { type: 1, path: p.name, hold: true, fiatType: 1, coinCode: 'usdt', network: 'bep20', fiatAmount: 1500 }
          : { type: 2, path: p.name, hold: true, coinCode: 'eth', network: 'matic20', quantity: 0.2 }
      )
      const statuses: number[] = []
      for (;;) {
        t += 1000
        const page = (await expectParses('merchantHistory', { type: p.type, order: 'DESC', pageSize: 1 })) as {
          data: { orderId: number; status: number }[]
        }
        expect(page.data[0]!.orderId).toBe(o.orderId)
        statuses.push(page.data[0]!.status)
        await expectParses('orderStatus', { orderId: o.orderId, type: p.type })
        try {
          sb.control.advanceOrder(o.orderId)
        } catch {
          break
        }
      }
      expect(statuses).toEqual(p.statuses)
    }
  })

  it('webhook calls', async () => {
    await expectParses('setWebhookUrl', { webhookUrl: 'http://127.0.0.1:9/hook' })
    await expectParses('sendDummyWebhook', {})
    await expectParses('resendWebhook', { orderId: sb.control.groundTruth()[0]!.orderId })
    await sb.control.deliveriesIdle()
  })

  it('reached every endpoint with a success', () => {
    expect([...seen].sort()).toEqual([...endpointNames].sort())
  })
})

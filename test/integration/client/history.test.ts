// merchantHistory (spec 4.4) through the real ApiClient: paging, since (inclusive), ASC and
// DESC, type 1 and 2 (offramp answers without code), fiatType as number or text, and the
// cutover rule (orders last updated on or before 2022-11-09T16:58:07.000Z report that
// instant). Every page is compared with the sandbox's ground truth parsed by the same
// response schema the client uses, so "equal" means record for record, field for field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../src/main/api/client'
import { CUTOVER, type Sandbox, type TruthOrder } from '../../../src/sandbox'
import { OfframpHistoryResponse, OnrampHistoryResponse } from '../../../src/shared/api/endpoints'
import { caught, clientFor, quietSandbox } from './support'

const CUTOVER_ISO = '2022-11-09T16:58:07.000Z'
let sb: Sandbox
let client: ApiClient

beforeAll(async () => {
  sb = await quietSandbox({ seed: 44, orders: 900 })
  client = clientFor(sb)
})
afterAll(async () => {
  await client?.close()
  await sb?.close()
})

const byReported = (a: TruthOrder, b: TruthOrder) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.orderId - b.orderId

/** The truth of one (type, fiat) group in history order, as the client's schema parses it. */
function expected(type: 1 | 2, fiatType: number) {
  const records = sb.control
    .groundTruth({ type, fiatType })
    .sort(byReported)
    .map((o) => o.record)
  return type === 1
    ? OnrampHistoryResponse.parse({ status: 1, code: 200, data: records }).data
    : OfframpHistoryResponse.parse({ status: 1, data: records }).data
}

async function pages(req: { type: 1 | 2; fiatType?: number | string; since?: string; order?: 'ASC' | 'DESC' }, pageSize: number) {
  const out: unknown[] = []
  for (let page = 1; ; page++) {
    const d = await client.merchantHistory({ ...req, page, pageSize })
    out.push(...d)
    if (d.length < pageSize) return out
  }
}

describe('merchantHistory through the client', () => {
  it('pages through onramp INR, offramp INR and onramp TRY exactly as the ground truth has them, ASC and DESC', async () => {
    for (const [type, fiatType] of [
      [1, 1],
      [2, 1],
      [1, 2]
    ] as const) {
      const truth = expected(type, fiatType)
      expect(truth.length, `${type}/${fiatType}`).toBeGreaterThan(20)
      const asc = await pages({ type, fiatType: type === 2 ? String(fiatType) : fiatType }, 37)
      expect(asc).toEqual(truth)
      expect(await pages({ type, fiatType, order: 'DESC' }, 500)).toEqual([...truth].reverse())
    }
  })

  it('defaults: 50 per page, ASC, INR; a page past the end is empty', async () => {
    const first = await client.merchantHistory({ type: 1 })
    expect(first).toEqual(expected(1, 1).slice(0, 50))
    expect(await client.merchantHistory({ type: 2, page: 1000, pageSize: 500 })).toEqual([])
  })

  it('offramp records come back as offramp records (the answer without code passes the schema)', async () => {
    const [o] = await client.merchantHistory({ type: 2, pageSize: 1 })
    expect(o).toBeDefined()
    expect(o).toHaveProperty('actualFiatAmount')
    expect(o).toHaveProperty('tdsFee')
  })

  it('since is inclusive and combines with paging and both orders', async () => {
    const truth = expected(1, 1)
    const pivot = truth[Math.floor(truth.length / 2)] as { updatedAt: string }
    const from = truth.filter((r) => Date.parse(r.updatedAt) >= Date.parse(pivot.updatedAt))
    expect(from.length).toBeLessThan(truth.length)
    expect(from[0]?.updatedAt).toBe(pivot.updatedAt)
    expect(await pages({ type: 1, since: pivot.updatedAt }, 25)).toEqual(from)
    expect(await pages({ type: 1, since: pivot.updatedAt, order: 'DESC' }, 25)).toEqual([...from].reverse())
    // since in another spelling of the same instant (offset form) selects the same records.
    const shifted = new Date(Date.parse(pivot.updatedAt)).toISOString().replace('Z', '+00:00')
    expect(await client.merchantHistory({ type: 1, since: shifted, pageSize: 500 })).toEqual(from.slice(0, 500))
  })

  it('the cutover: orders last updated on or before it report exactly that instant, and since splits on it', async () => {
    const truth = expected(1, 1)
    const old = sb.control.groundTruth({ type: 1, fiatType: 1 }).filter((o) => Date.parse(o.lastChangeAt) <= CUTOVER)
    expect(old.length).toBeGreaterThan(5)
    expect(old.every((o) => o.updatedAt === CUTOVER_ISO)).toBe(true)
    const atCutover = truth.filter((r) => r.updatedAt === CUTOVER_ISO)
    expect(atCutover.map((r) => r.orderId).sort((a, b) => a - b)).toEqual(old.map((o) => o.orderId).sort((a, b) => a - b))
    // Nothing reports a time before the cutover: the first page starts with the cutover block, by orderId.
    const first = await client.merchantHistory({ type: 1, pageSize: old.length })
    expect(first.every((r) => r.updatedAt === CUTOVER_ISO)).toBe(true)
    expect(first.map((r) => r.orderId)).toEqual([...first.map((r) => r.orderId)].sort((a, b) => a - b))
    // since = the cutover includes the whole block; one millisecond later excludes all of it.
    const fromCutover = await pages({ type: 1, since: CUTOVER_ISO }, 500)
    expect(fromCutover).toEqual(truth)
    const after = await pages({ type: 1, since: '2022-11-09T16:58:07.001Z' }, 500)
    expect(after).toEqual(truth.filter((r) => r.updatedAt !== CUTOVER_ISO))
  })

  it('an order created and moved now appears after the last seen updatedAt (the incremental sync pattern)', async () => {
    const all = expected(1, 1)
    const lastSeen = all[all.length - 1]?.updatedAt as string
    const o = sb.control.createOrder({
      type: 1,
      fiatType: 1,
      coinCode: 'usdt',
      network: 'trc20',
      fiatAmount: 2500,
      path: 'completed',
      hold: true
    })
    sb.control.advanceOrder(o.orderId, 2)
    const fresh = await client.merchantHistory({ type: 1, since: lastSeen, pageSize: 500 })
    const mine = fresh.find((r) => r.orderId === o.orderId)
    expect(mine).toMatchObject({ orderId: o.orderId, status: 2, fiatType: 1, coinId: 54, chainId: 2, fiatAmount: '2500' })
    expect(fresh[fresh.length - 1]?.orderId).toBe(o.orderId)
  })

  it("fiatType 9 is the sandbox's 400 (the client's schema allows any id)", async () => {
    expect(await caught(client.merchantHistory({ type: 1, fiatType: 9 }))).toMatchObject({
      kind: 'api',
      code: 400,
      httpStatus: 400,
      message: expect.stringMatching(/fiatType/) as unknown
    })
  })
})

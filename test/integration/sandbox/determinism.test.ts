// Same seed and same clock, same service: the data a client sees is reproducible, and
// another seed gives other data.
import { describe, expect, it } from 'vitest'
import { startSandbox } from '../../../src/sandbox'
import { data } from './sandbox-client'

const NOW = Date.parse('2025-02-01T08:00:00.000Z')

async function snapshot(seed: number): Promise<unknown[]> {
  let t = NOW
  const sb = await startSandbox({ seed, orders: 800, autoGenerate: false, now: () => t })
  try {
    sb.control.step(5)
    t += 3600_000
    sb.control.step(5)
    return [
      await data(sb, 'merchantHistory', { pageSize: 500, order: 'DESC' }),
      await data(sb, 'merchantHistory', { type: 2, pageSize: 100 }),
      await data(sb, 'priceTicker', { type: 3, fiatType: 1 }),
      await data(sb, 'quotes', { type: 1, coinCode: 'eth', network: 'erc20', fiatAmount: 25_000, fiatType: 1 }),
      sb.control.groundTruth().map((o) => [o.orderId, o.status, o.history])
    ]
  } finally {
    await sb.close()
  }
}

describe('determinism', () => {
  it('the same seed and clock reproduce every answer; another seed does not', async () => {
    const a = await snapshot(12)
    expect(await snapshot(12)).toEqual(a)
    const b = await snapshot(13)
    expect(b[0]).not.toEqual(a[0])
    expect(b[2]).not.toEqual(a[2])
  })
})

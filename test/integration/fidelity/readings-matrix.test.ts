// The app's history sync (ApiClient over HTTP, signed, budgeted; HistorySync; the real
// database) against the sandbox under every reading of what the spec leaves open that
// matters to it: `since` inclusive or exclusive × ties in updatedAt by order id or by a
// hidden row order × parameter types strict (the spec's) or lenient × orders changing
// while it pages. After the churning sync and one quiet poll, the database must equal
// the sandbox's ground truth: no order missing, none stale, none extra. The sandbox is
// an independent reading of the spec (its own schemas and HMAC check), not the client's twin.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/api/client'
import { ParamEncodings } from '../../../src/main/api/param-encoding'
import { HistorySync } from '../../../src/main/monitor/history-sync'
import { openLocalStore, type LocalStore } from '../../../src/main/store/local-store'
import { CUTOVER, startSandbox, type Sandbox } from '../../../src/sandbox'

const ORDERS = 1800
// Smaller than the shipped 500 so that the sandbox's cutover run (about a hundred orders
// sharing one updatedAt at this size) is longer than a page: offset paging inside a run,
// the overlap check and its restarts are what the readings can break.
const PAGE_SIZE = 50
const SCOPES = [
  [1, 1],
  [2, 1]
] as const

let sb: Sandbox
let dir: string

beforeAll(async () => {
  sb = await startSandbox({ seed: 53, orders: ORDERS, autoGenerate: false })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-matrix-'))
})
afterAll(async () => {
  await sb.close()
  rmSync(dir, { recursive: true, force: true })
})

function clientFor(store: LocalStore): ApiClient {
  return new ApiClient({
    profileId: 'matrix',
    baseUrl: sb.url,
    serviceName: sb.serviceName,
    apiKey: sb.apiKey,
    getSecret: async () => sb.apiSecret,
    encodings: new ParamEncodings({
      load: () => store.serviceFacts.all('param'),
      save: (k, v) => store.serviceFacts.put('param', k, v)
    })
  })
}

/** The database against the ground truth of one scope: every order, its status and updatedAt; nothing else. */
function expectEqualToTruth(store: LocalStore, type: 1 | 2, fiatType: number): void {
  const truth = sb.control.groundTruth({ type, fiatType })
  const db = store.database.sql.all<{ order_id: number; status: number; updated_at: string }>(
    'SELECT order_id, status, updated_at FROM orders WHERE type = ? AND fiat_type = ? ORDER BY order_id',
    type,
    fiatType
  )
  const want = truth.map((o) => [o.orderId, o.status, o.updatedAt]).sort((a, b) => (a[0] as number) - (b[0] as number))
  expect(db.map((r) => [r.order_id, r.status, new Date(r.updated_at).toISOString()])).toEqual(want)
}

const combos = (['inclusive', 'exclusive'] as const).flatMap((since) =>
  (['orderId', 'hidden'] as const).flatMap((tieOrder) =>
    (['strict', 'lenient'] as const).flatMap((paramTypes) => ([0, 4] as const).map((churn) => ({ since, tieOrder, paramTypes, churn })))
  )
)

describe('history sync under every reading of the spec', () => {
  it('the sandbox holds a run of equal updatedAt longer than a page (the cutover), so paging inside a run is exercised', () => {
    const atCutover = sb.control.groundTruth({ type: 1, fiatType: 1 }).filter((o) => Date.parse(o.updatedAt) === CUTOVER)
    expect(atCutover.length).toBeGreaterThan(PAGE_SIZE * 1.5)
  })

  it.each(combos)('since $since, ties by $tieOrder, $paramTypes types, churn $churn per page: database equals the truth', async (r) => {
    sb.control.setReadings({ since: r.since, tieOrder: r.tieOrder, paramTypes: r.paramTypes, churnPerHistoryRequest: r.churn })
    const store = openLocalStore(join(dir, `${r.since}-${r.tieOrder}-${r.paramTypes}-${r.churn}`))
    try {
      const client = clientFor(store)
      const sync = new HistorySync({ client, store, pageSize: PAGE_SIZE })
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      // A second churning poll, then the service goes quiet and one more poll catches up.
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      sb.control.setReadings({ churnPerHistoryRequest: 0 })
      for (const [type, fiat] of SCOPES) await sync.run(type, fiat)
      for (const [type, fiat] of SCOPES) expectEqualToTruth(store, type, fiat)
      // Spec types throughout: a strict service never had to refuse one.
      expect(store.serviceFacts.all<{ encoding: string }>('param')['merchantHistory.fiatType']?.encoding ?? 'string').toBe('string')
    } finally {
      store.close()
    }
  })
})

// The hub's store under test, of either kind: hub.db in a fresh data directory, or a fresh
// database on a throwaway PostgreSQL cluster (postgres-cluster.ts, one per test file).
// Suites run over both with describe.each(STORE_KINDS) and storeBench(kind), which opens
// as many stores on the same tables as a test asks for: the hub, the command line beside
// it, another hub. PostgreSQL suites skip, saying why, where PostgreSQL is not installed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import type { HubStore, StoreKind } from '../../src/hub/hub-store'
import { openSqliteHubStore } from '../../src/hub/sqlite-hub-store'
import { openPgHubStore } from '../../src/hub/pg/pg-hub-store'
import { secondFactorKeyIn } from '../../src/hub/second-factor-key'
import { postgresUnavailable, startPostgres, type PgCluster } from './postgres-cluster'

/** The second-factor key the PostgreSQL stores share, as every hub on one database does. */
const pgKey = secondFactorKeyIn(mkdtempSync(join(tmpdir(), 'rampdesk-hubstore-key-')))

export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres']

/** Whether a suite of this kind cannot run here (describe.skipIf). */
export const unavailable = (kind: StoreKind): boolean => kind === 'postgres' && postgresUnavailable !== null

export interface OpenOptions {
  now?: () => number
  /** Errors the store reports (PostgreSQL's audit writer, its listener). */
  onError?: (m: string) => void
}

export interface StoreBench {
  /** Opens a store on this test's tables (closed after the test). */
  open(o?: OpenOptions): Promise<HubStore>
  /** The PostgreSQL URL of this test's database (postgres only). */
  url(): string
  /** This test's data directory (sqlite only). */
  dir(): string
}

let cluster: PgCluster | null = null
let clusterUsers = 0

/** Registers the hooks of a suite of `kind`; call inside its describe. */
export function storeBench(kind: StoreKind): StoreBench {
  let dir = ''
  let url = ''
  let opened: HubStore[] = []
  beforeAll(async () => {
    if (kind !== 'postgres') return
    clusterUsers++
    cluster ??= await startPostgres()
  })
  afterAll(async () => {
    if (kind !== 'postgres') return
    if (--clusterUsers === 0) {
      await cluster?.stop()
      cluster = null
    }
  })
  beforeEach(async () => {
    if (kind === 'postgres') url = await cluster!.createDatabase()
    else dir = mkdtempSync(join(tmpdir(), 'rampdesk-hubstore-'))
  })
  afterEach(async () => {
    for (const s of opened.splice(0).reverse()) await s.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = ''
    opened = []
  })
  return {
    async open(o = {}) {
      const store =
        kind === 'postgres'
          ? await openPgHubStore({ target: { url }, now: o.now, onError: o.onError, secondFactorKey: pgKey })
          : openSqliteHubStore(dir, { now: o.now })
      opened.push(store)
      return store
    },
    url: () => url,
    dir: () => dir
  }
}

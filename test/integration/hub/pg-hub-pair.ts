// Two hubs in this process on one throwaway PostgreSQL database, in front of one sandbox,
// each behind a proxy of its own that records what the service answered it: the hooks of a
// suite about several hubs (call inside its describe; the fields are set in beforeAll).
import { afterAll, beforeAll } from 'vitest'
import { startSandbox, type Sandbox, type StartSandboxOptions } from '../../../src/sandbox'
import { startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { startHubFixture, type HubFixture } from './support'

export interface PgHubPair {
  cluster: PgCluster
  url: string
  sandbox: Sandbox
  a: HubFixture
  b: HubFixture
}

export function pgHubPair(sandbox: StartSandboxOptions): PgHubPair {
  const pair = {} as PgHubPair
  beforeAll(async () => {
    pair.cluster = await startPostgres()
    pair.url = await pair.cluster.createDatabase()
    pair.sandbox = await startSandbox({ autoGenerate: false, ...sandbox })
    const hub = { sharedSandbox: pair.sandbox, recordService: true, hub: { database: { url: pair.url } } }
    pair.a = await startHubFixture(hub)
    pair.b = await startHubFixture(hub)
  })
  afterAll(async () => {
    await pair.a?.close()
    await pair.b?.close()
    await pair.sandbox?.close()
    await pair.cluster?.stop()
  })
  return pair
}

// A team hub for the browser specs: a sandbox playing the service, a hub on a data directory
// of its own in front of it, and the hub's HTTP server on a free port. close() stops them in
// the order they depend on each other and removes the data directory.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSandbox, type Sandbox } from '../../src/sandbox'
import { createHub, type Hub, type HubOptions } from '../../src/hub/hub'
import { startHubServer, type HubServer, type HubServerOptions } from '../../src/hub/hub-server'

export interface E2eTeamHub {
  sandbox: Sandbox
  hub: Hub
  /** Its data directory. */
  dataDir: string
  /** The hub's server; a spec that stops it and starts another puts the new one here, for close(). */
  server: HubServer
  close(): Promise<void>
}

/** A hub of the sandbox's merchant on a data directory (another hub of the same team: a data directory restored from a backup). */
export function hubOfSandbox(sandbox: Sandbox, dataDir: string, o: Partial<HubOptions> = {}): Promise<Hub> {
  return createHub({
    dataDir,
    version: '0.0.0-e2e',
    merchant: {
      kind: 'live',
      baseUrl: sandbox.url,
      serviceName: sandbox.serviceName,
      apiKey: sandbox.apiKey,
      apiSecret: sandbox.apiSecret
    },
    logWrite: () => undefined,
    ...o
  })
}

/** `hub`: options of the hub beyond these (a relay to a receiver, a compressed grace period); `server`: of its server (a second factor required, sign-in through an identity provider). */
export async function startTeamHub(o: {
  orders: number
  seed: number
  hub?: Partial<HubOptions>
  server?: Partial<HubServerOptions>
}): Promise<E2eTeamHub> {
  const sandbox = await startSandbox({ orders: o.orders, seed: o.seed, autoGenerate: false })
  const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-e2e-hub-'))
  const hub = await hubOfSandbox(sandbox, dataDir, o.hub)
  const team: E2eTeamHub = {
    sandbox,
    hub,
    dataDir,
    server: await startHubServer({ ...o.server, hub, port: 0 }),
    async close() {
      await team.server.close()
      await hub.close()
      await sandbox.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  return team
}

// A team hub for integration tests: a sandbox of its own (so the hub can be stopped and
// started again while the service goes on), the hub on it as a live merchant with the
// sandbox's secret, its HTTP server on a free port, every log line kept, and helpers to
// add operators, call /rpc raw and read an operator's event stream.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer as createHttpServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { startSandbox, type Sandbox, type StartSandboxOptions } from '../../../src/sandbox'
import { createHub, type Hub, type HubOptions } from '../../../src/hub/hub'
import { startHubServer, type HubServer, type HubServerOptions } from '../../../src/hub/hub-server'
import { HubConnection } from '../../../src/main/team/hub-connection'
import { createServices, type Services } from '../../../src/main/services'
import { invokeChannel } from '../../../src/main/handlers/invoke'
import type { OrderNotification } from '../../../src/main/notification-policy'
import type { ShellPort } from '../../../src/main/handlers/context'
import { memorySafeStorage } from '../../support/memory-safe-storage'
import { startPostgres, type PgCluster } from '../../support/postgres-cluster'
import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  Envelope,
  EventName,
  EventPayload,
  TeamRole
} from '../../../src/shared/ipc/contract'

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: { ok: boolean; value?: unknown; error?: { kind: string; message: string } } | null
}

export interface StreamRecorder {
  connection: HubConnection
  events: Array<{ event: EventName; payload: unknown }>
  states: Array<{ connected: boolean; error: string | null }>
  /** Resolves with the first event (already recorded or to come) that matches. */
  waitFor(event: EventName, match?: (p: never) => boolean, timeoutMs?: number): Promise<unknown>
  close(): Promise<void>
}

export interface HubFixture {
  sandbox: Sandbox
  /** Every answer the service gave the hub (with recordService). */
  serviceAnswers: ServiceAnswer[]
  hub: Hub
  server: HubServer
  url: string
  dataDir: string
  logs: string[]
  addOperator(name: string, role: TeamRole): Promise<string>
  rpc(token: string | null, channel: string, input?: unknown, headers?: Record<string, string>): Promise<RawAnswer>
  /** The value of a call that must succeed. */
  call<T = unknown>(token: string, channel: string, input?: unknown): Promise<T>
  stream(token: string): StreamRecorder
  /** Stops the hub (its server too), keeping the sandbox and the data directory. */
  stopHub(): Promise<void>
  /** Starts the hub again on the same port and data directory; `beforeListen` runs before any desktop can connect. */
  startHub(opts?: { beforeListen?: (hub: Hub) => Promise<void> }): Promise<void>
  close(): Promise<void>
}

export interface HubFixtureOptions {
  sandbox?: StartSandboxOptions
  hub?: Partial<HubOptions>
  server?: Partial<HubServerOptions>
  /** Put a proxy between the hub and the sandbox that records every answer's status. */
  recordService?: boolean
  /** A sandbox several hubs share (the caller closes it), instead of one of the hub's own. */
  sharedSandbox?: Sandbox
}

/** What the service answered the hub, as a proxy in between saw it. */
export interface ServiceAnswer {
  path: string
  status: number
  /** When the request reached the proxy (epoch ms). */
  at: number
  /** The request's body (with keepBodies). */
  body?: string
}

/** A loopback proxy that forwards everything to `target` and records each answer's status. */
export async function startStatusProxy(
  target: string,
  o: { keepBodies?: boolean } = {}
): Promise<{ url: string; answers: ServiceAnswer[]; close(): Promise<void> }> {
  const t = new URL(target)
  const answers: ServiceAnswer[] = []
  const server = createHttpServer((req, res) => {
    const at = Date.now()
    const chunks: Buffer[] = []
    if (o.keepBodies) req.on('data', (c: Buffer) => chunks.push(c))
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
      (ur) => {
        answers.push({
          path: new URL(req.url ?? '/', 'http://x').pathname,
          status: ur.statusCode ?? 0,
          at,
          ...(o.keepBodies ? { body: Buffer.concat(chunks).toString('utf8') } : {})
        })
        res.writeHead(ur.statusCode ?? 502, ur.headers)
        ur.pipe(res)
      }
    )
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  }
}

export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

export async function startHubFixture(o: HubFixtureOptions = {}): Promise<HubFixture> {
  const sandbox = o.sharedSandbox ?? (await startSandbox({ orders: 120, seed: 5, autoGenerate: false, ...o.sandbox }))
  const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-hub-'))
  const proxy = o.recordService ? await startStatusProxy(sandbox.url) : null
  const logs: string[] = []
  const recorders = new Set<StreamRecorder>()
  let hub!: Hub
  let server!: HubServer
  let port = o.server?.port ?? 0
  let running = false

  async function startHub(opts: { beforeListen?: (hub: Hub) => Promise<void> } = {}): Promise<void> {
    hub = await createHub({
      dataDir,
      version: '0.0.0-test',
      merchant: {
        kind: 'live',
        baseUrl: proxy?.url ?? sandbox.url,
        serviceName: sandbox.serviceName,
        apiKey: sandbox.apiKey,
        apiSecret: sandbox.apiSecret
      },
      logWrite: (l) => void logs.push(l),
      ...o.hub
    })
    await opts.beforeListen?.(hub)
    server = await startHubServer({ hub, port, ...o.server })
    port = server.port
    running = true
  }
  await startHub()
  const f: HubFixture = {
    sandbox,
    serviceAnswers: proxy?.answers ?? [],
    get hub() {
      return hub
    },
    get server() {
      return server
    },
    get url() {
      return server.url
    },
    dataDir,
    logs,
    addOperator: async (name, role) => (await hub.operators.add(name, role)).token,
    async rpc(token, channel, input = {}, headers = {}) {
      const r = await request(`${server.url}/rpc/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body: typeof input === 'string' ? input : JSON.stringify(input)
      })
      const text = await r.body.text()
      let json: RawAnswer['json'] = null
      try {
        json = JSON.parse(text) as RawAnswer['json']
      } catch {
        json = null
      }
      return { status: r.statusCode, headers: r.headers, text, json }
    },
    async call<T>(token: string, channel: string, input: unknown = {}) {
      const a = await f.rpc(token, channel, input)
      if (a.status !== 200 || !a.json?.ok) throw new Error(`${channel}: HTTP ${a.status} ${a.text.slice(0, 300)}`)
      return a.json.value as T
    },
    stream(token) {
      const events: StreamRecorder['events'] = []
      const states: StreamRecorder['states'] = []
      const waiters = new Set<{ event: EventName; match: (p: never) => boolean; resolve: (p: unknown) => void }>()
      const connection = new HubConnection({
        hubUrl: server.url,
        token: async () => token,
        minRetryMs: 100,
        maxRetryMs: 500,
        onEvent: (event, payload) => {
          events.push({ event, payload })
          for (const w of [...waiters])
            if (w.event === event && w.match(payload as never)) {
              waiters.delete(w)
              w.resolve(payload)
            }
        },
        onState: (connected, error) => void states.push({ connected, error })
      })
      connection.start()
      const rec: StreamRecorder = {
        connection,
        events,
        states,
        waitFor(event, match = () => true, timeoutMs = 10_000) {
          const hit = events.find((e) => e.event === event && match(e.payload as never))
          if (hit) return Promise.resolve(hit.payload)
          return new Promise((resolve, reject) => {
            const w = { event, match, resolve }
            waiters.add(w)
            setTimeout(() => {
              if (waiters.delete(w)) reject(new Error(`no ${event} event within ${timeoutMs} ms`))
            }, timeoutMs).unref()
          })
        },
        async close() {
          recorders.delete(rec)
          await connection.close()
        }
      }
      recorders.add(rec)
      return rec
    },
    async stopHub() {
      running = false
      await server.close()
      await hub.close()
    },
    startHub,
    async close() {
      for (const r of [...recorders]) await r.close()
      if (running) await f.stopHub()
      await proxy?.close()
      if (!o.sharedSandbox) await sandbox.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  return f
}

// ---------------------------------------------------------------- two hubs on PostgreSQL

/** Two hubs in this process on one throwaway PostgreSQL database, in front of one sandbox. */
export interface TwoHubs {
  cluster: PgCluster
  /** The database's URL. */
  url: string
  sandbox: Sandbox
  a: HubFixture
  b: HubFixture
  /** The hubs leading now (one, but for a moment during an election). */
  leaders(): HubFixture[]
  /** The hub leading now, or the hub following now. */
  leader(): HubFixture
  follower(): HubFixture
  /** Stops both hubs, the sandbox and the cluster. */
  close(): Promise<void>
}

export interface TwoHubsOptions {
  sandbox: StartSandboxOptions
  /** Put a proxy in front of each hub's service that records what it was answered. */
  recordService?: boolean
}

/** Starts a cluster, a database, a sandbox (no generator) and hubs a then b on them; stops what started if one fails. */
export async function startTwoHubs(o: TwoHubsOptions): Promise<TwoHubs> {
  const t = {} as TwoHubs
  t.close = async () => {
    await t.a?.close()
    await t.b?.close()
    await t.sandbox?.close()
    await t.cluster?.stop()
  }
  try {
    t.cluster = await startPostgres()
    t.url = await t.cluster.createDatabase()
    t.sandbox = await startSandbox({ autoGenerate: false, ...o.sandbox })
    const each: HubFixtureOptions = { sharedSandbox: t.sandbox, recordService: o.recordService, hub: { database: { url: t.url } } }
    t.a = await startHubFixture(each)
    t.b = await startHubFixture(each)
  } catch (e) {
    await t.close()
    throw e
  }
  const role = (f: HubFixture) => f.hub.role.current().role
  t.leaders = () => [t.a, t.b].filter((f) => role(f) === 'leader')
  t.leader = () => t.leaders()[0] ?? raise('no hub leads')
  t.follower = () => [t.a, t.b].find((f) => role(f) === 'follower') ?? raise('no hub follows')
  return t
}

function raise(message: string): never {
  throw new Error(message)
}

// ---------------------------------------------------------------- simulated desktops

export interface TeamDesktop {
  services: Services
  dataDir: string
  events: Array<{ event: EventName; payload: unknown }>
  notifications: OrderNotification[]
  /** Every envelope the desktop answered, as JSON text (leak checks). */
  answers: string[]
  /** Calls a channel the way a window does (envelope, input parsed). */
  envelope<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<Envelope<ChannelOutput<C>>>
  call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>>
  waitFor<E extends EventName>(event: E, match?: (p: EventPayload<E>) => boolean, timeoutMs?: number): Promise<EventPayload<E>>
  close(): Promise<void>
}

/** A desktop's real services (createServices) with a Team profile on the hub, switched to. */
export async function startTeamDesktop(
  hubUrl: string,
  token: string,
  name = 'Team',
  shell: Partial<ShellPort> = {},
  /** The profile's other hubs (several hubs of one team). */
  fallbackUrls?: string[]
): Promise<TeamDesktop> {
  const dataDir = await mkdtemp(join(tmpdir(), 'rampdesk-team-desktop-'))
  const notifications: OrderNotification[] = []
  const services = await createServices({
    dataDir,
    exportDir: join(dataDir, 'exports'),
    version: '0.0.0-test',
    shellKind: 'web',
    safeStorage: memorySafeStorage(),
    sandbox: { orders: 5, autoGenerate: false },
    shell: { notify: (n) => void notifications.push(n), ...shell },
    team: { minRetryMs: 100, maxRetryMs: 400 }
  })
  const events: TeamDesktop['events'] = []
  const answers: string[] = []
  const waiters = new Set<{ event: EventName; match: (p: never) => boolean; resolve: (p: unknown) => void }>()
  services.subscribe((event, payload) => {
    events.push({ event, payload })
    for (const w of [...waiters])
      if (w.event === event && w.match(payload as never)) {
        waiters.delete(w)
        w.resolve(payload)
      }
  })
  await services.start()
  const envelope = async <C extends ChannelName>(channel: C, input: ChannelInput<C>) => {
    const env = (await invokeChannel(services.handlers, channel, input)) as Envelope<ChannelOutput<C>>
    answers.push(JSON.stringify(env))
    return env
  }
  const d: TeamDesktop = {
    services,
    dataDir,
    events,
    notifications,
    answers,
    envelope,
    async call(channel, input) {
      const env = await envelope(channel, input)
      if (!env.ok) throw new Error(`${channel}: ${env.error.kind}: ${env.error.message}`)
      return env.value
    },
    waitFor(event, match = () => true, timeoutMs = 15_000) {
      const hit = events.find((e) => e.event === event && match(e.payload as never))
      if (hit) return Promise.resolve(hit.payload as never)
      return new Promise((resolve, reject) => {
        const w = { event, match: match as (p: never) => boolean, resolve: resolve as (p: unknown) => void }
        waiters.add(w)
        setTimeout(() => {
          if (waiters.delete(w)) reject(new Error(`no ${event} event within ${timeoutMs} ms`))
        }, timeoutMs).unref()
      })
    },
    async close() {
      await services.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  const profile = await d.call('profiles:create', { name, baseUrl: hubUrl, kind: 'team', ...(fallbackUrls ? { fallbackUrls } : {}) })
  await d.call('secrets:set', { profileId: profile.id, secret: token })
  await d.call('profiles:switch', { id: profile.id })
  return d
}

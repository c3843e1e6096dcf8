// Test harness for the services layer: createServices() on a temp data dir with the
// embedded sandbox over loopback, called the way both shells call it (input parsed by
// the contract, output checked against the contract), every event recorded and checked
// against its schema. Also a counting HTTP proxy that can hold requests, to see what
// reaches a sandbox and whether the client gave up on it.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServices, type Services, type ServicesOptions } from '../../../src/main/services'
import { memorySafeStorage } from '../../support/memory-safe-storage'
import {
  channels,
  events as eventSchemas,
  parseInput,
  toEnvelopeError,
  type ChannelInput,
  type ChannelName,
  type ChannelOutput,
  type Envelope,
  type ErrorInfo,
  type EventName,
  type EventPayload
} from '../../../src/shared/ipc/contract'

export interface RecordedEvent {
  seq: number
  event: EventName
  payload: unknown
}

export interface ServicesHarness {
  services: Services
  dataDir: string
  exportDir: string
  events: RecordedEvent[]
  /** Every handler output, as JSON text (for leak checks). */
  outputs: string[]
  /** Event payloads or handler outputs that did not match the contract. */
  contractViolations: string[]
  /** Parses the input like the IPC layer, runs the handler, checks the output; throws the handler's error. */
  call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>>
  /** The same, answering the envelope the shells send across (errors as data). */
  envelope<C extends ChannelName>(channel: C, input: unknown): Promise<Envelope<ChannelOutput<C>>>
  /** Resolves with the first event (recorded from now on, or already recorded after `afterSeq`) that matches. */
  waitFor<E extends EventName>(event: E, match?: (p: EventPayload<E>) => boolean, afterSeq?: number): Promise<EventPayload<E>>
  lastSeq(): number
  close(): Promise<void>
}

export async function startServicesHarness(
  o: Partial<ServicesOptions> & { dataDir?: string; keepDataDir?: boolean } = {}
): Promise<ServicesHarness> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'rampdesk-services-')))
  const exportDir = join(dataDir, 'exports')
  const services = await createServices({
    dataDir,
    exportDir,
    version: '0.0.0-test',
    shellKind: 'web',
    safeStorage: memorySafeStorage(),
    sandbox: { orders: 200, autoGenerate: false, seed: 11 },
    ...o
  })
  const events: RecordedEvent[] = []
  const outputs: string[] = []
  const contractViolations: string[] = []
  const waiters = new Set<{ event: EventName; match: (p: never) => boolean; resolve: (p: unknown) => void }>()
  let seq = 0
  services.subscribe((event, payload) => {
    const schema = eventSchemas[event] as { safeParse(v: unknown): { success: boolean; error?: { message: string } } }
    const r = schema.safeParse(payload)
    if (!r.success) contractViolations.push(`event ${event}: ${r.error?.message ?? ''}`)
    events.push({ seq: ++seq, event, payload })
    for (const w of [...waiters]) {
      if (w.event === event && w.match(payload as never)) {
        waiters.delete(w)
        w.resolve(payload)
      }
    }
  })
  await services.start()

  async function call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
    const parsed = parseInput(channel, input)
    const handler = services.handlers[channel] as (i: unknown) => Promise<unknown>
    const value = await handler(parsed)
    const r = (channels[channel].output as { safeParse(v: unknown): { success: boolean; error?: { message: string } } }).safeParse(value)
    if (!r.success) contractViolations.push(`output of ${channel}: ${r.error?.message ?? ''}`)
    outputs.push(JSON.stringify(value) ?? '')
    return value as ChannelOutput<C>
  }

  return {
    services,
    dataDir,
    exportDir,
    events,
    outputs,
    contractViolations,
    call,
    async envelope<C extends ChannelName>(channel: C, input: unknown): Promise<Envelope<ChannelOutput<C>>> {
      try {
        return { ok: true, value: await call(channel, input as ChannelInput<C>) }
      } catch (e) {
        const error: ErrorInfo = toEnvelopeError(e)
        outputs.push(JSON.stringify(error))
        return { ok: false, error }
      }
    },
    waitFor<E extends EventName>(
      event: E,
      match: (p: EventPayload<E>) => boolean = () => true,
      afterSeq?: number
    ): Promise<EventPayload<E>> {
      if (afterSeq !== undefined) {
        const hit = events.find((e) => e.seq > afterSeq && e.event === event && match(e.payload as EventPayload<E>))
        if (hit) return Promise.resolve(hit.payload as EventPayload<E>)
      }
      return new Promise((resolve) =>
        waiters.add({ event, match: match as (p: never) => boolean, resolve: resolve as (p: unknown) => void })
      )
    },
    lastSeq: () => seq,
    async close() {
      await services.close()
      if (!o.keepDataDir) await rm(dataDir, { recursive: true, force: true })
    }
  }
}

/** Every file under a directory (recursively), for leak checks. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...(await filesUnder(p)))
    else if (e.isFile()) out.push(p)
  }
  return out
}

/** Files under dir whose bytes contain the needle (as UTF-8, or as its UTF-16LE form). */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const a = Buffer.from(needle, 'utf8')
  const b = Buffer.from(needle, 'utf16le')
  const hits: string[] = []
  for (const f of await filesUnder(dir)) {
    const buf = await readFile(f).catch(() => null)
    if (buf && (buf.includes(a) || buf.includes(b))) hits.push(f)
  }
  return hits
}

// ---------------------------------------------------------------- counting proxy

export interface ProxiedRequest {
  path: string
  /** The request's body as text ('' until it has been read). */
  body: string
  /** The client closed the connection before the answer was complete. */
  abortedByClient: boolean
  answered: boolean
  held: boolean
}

export interface CountingProxy {
  url: string
  requests: ProxiedRequest[]
  /** Requests whose path ends with one of these are held (not forwarded) until release(). */
  holdPaths: Set<string>
  /** Resolves when at least n requests are being held. */
  whenHolding(n: number): Promise<void>
  /** Resolves once every held request was closed by the client or released. */
  whenHeldSettled(): Promise<void>
  release(): void
  close(): Promise<void>
}

/** A loopback HTTP proxy in front of a sandbox that counts what reaches it. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const t = new URL(target)
  const requests: ProxiedRequest[] = []
  const holdPaths = new Set<string>()
  let held: Array<{ rec: ProxiedRequest; go: () => void }> = []
  const watchers = new Set<() => void>()
  const notify = (): void => {
    for (const w of [...watchers]) w()
  }

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, rec: ProxiedRequest): void => {
    if (rec.abortedByClient) return
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers)
        ur.pipe(res)
        ur.on('end', () => {
          rec.answered = true
        })
      }
    )
    up.on('error', () => res.destroy())
    up.end(body)
  }

  const server = createServer((req, res) => {
    const rec: ProxiedRequest = {
      path: new URL(req.url ?? '/', 'http://x').pathname,
      body: '',
      abortedByClient: false,
      answered: false,
      held: false
    }
    requests.push(rec)
    res.on('close', () => {
      if (!res.writableFinished) {
        rec.abortedByClient = true
        notify()
      }
    })
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      rec.body = body.toString('utf8')
      if ([...holdPaths].some((p) => rec.path.endsWith(p))) {
        rec.held = true
        held.push({ rec, go: () => forward(req, res, body, rec) })
        notify()
        return
      }
      forward(req, res, body, rec)
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as AddressInfo).port

  const waitUntil = (cond: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      if (cond()) return resolve()
      const w = (): void => {
        if (cond()) {
          watchers.delete(w)
          resolve()
        }
      }
      watchers.add(w)
    })

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    holdPaths,
    whenHolding: (n) => waitUntil(() => held.filter((h) => !h.rec.abortedByClient).length >= n),
    whenHeldSettled: () => waitUntil(() => held.every((h) => h.rec.abortedByClient)),
    release() {
      holdPaths.clear()
      const list = held
      held = []
      for (const h of list) h.go()
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  }
}

// The team hub attacked from outside: a sandbox in this process plays the
// merchant's service (so the test knows its secret and its ground truth), and the hub runs
// as its own process exactly as a team lead starts it (`src/hub/cli.ts serve` on a live
// merchant, the secret from a file, operators added with `operator add`). Attacks go over
// real sockets, from loopback addresses other than 127.0.0.1 where a stranger's source
// matters (Linux routes all of 127/8 to this machine). Each attack's figures are appended
// to test-results/hub-attack-summary.jsonl, which scripts/test.mjs prints.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { startSandbox, type Sandbox, type StartSandboxOptions } from '../../../src/sandbox'
import { hubCliArgs } from '../../support/hub-cli'

export const REPO_ROOT = resolve(__dirname, '../../..')
export const ATTACK_SUMMARY = join(REPO_ROOT, 'test-results', 'hub-attack-summary.jsonl')

/** One attack's outcome for the run's summary: what was tried, the figures, and the bound each is held to. */
export function recordAttack(attack: string, figures: Record<string, number | string>, bounds: Record<string, string>): void {
  mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true })
  appendFileSync(ATTACK_SUMMARY, JSON.stringify({ attack, figures, bounds }) + '\n')
}

export interface HubProcess {
  sandbox: Sandbox
  url: string
  /** The node process that runs the hub. */
  pid: number
  /** The process this test started (npm when viaNpm, else the hub itself). */
  rootPid: number
  dataDir: string
  /** Everything the hub printed on stdout and stderr so far. */
  output(): string
  /** Bytes the hub has written to its log (stdout and stderr) so far. */
  logBytes(): number
  /** Adds an operator with the hub's own command line; answers the token. */
  addOperator(name: string, role: 'viewer' | 'operator' | 'admin'): string
  /** POST /rpc/<channel> as an operator; the envelope. */
  call<T = unknown>(token: string, channel: string, input?: unknown): Promise<{ ok: boolean; value?: T; error?: { message: string } }>
  /** The hub process's resident memory now, in bytes. */
  rss(): number
  stop(): Promise<number | null>
}

export interface HubProcessOptions {
  sandbox?: StartSandboxOptions
  /** A running sandbox to stand for the merchant (several hubs of one merchant); it is left running at stop. */
  service?: Sandbox
  /** Extra `serve` flags. */
  args?: string[]
  env?: Record<string, string>
  /** How the hub gets the API secret (default: --api-secret-file). */
  secretVia?: 'file' | 'stdin' | 'env'
  /** Start it as a team lead does, through `npm run hub --` (a tree of processes), not node directly. */
  viaNpm?: boolean
  /** The hub's data directory (kept when it stops); default a new one, removed when it stops. */
  dataDir?: string
  /** The service URL the hub is given (default the sandbox's own; a recording proxy in front of it). */
  baseUrl?: string
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, hubCliArgs(args), {
    cwd: REPO_ROOT,
    env: { ...process.env, RAMPDESK_API_SECRET: '', ...env },
    stdio: 'pipe'
  }).toString('utf8')

/** Starts the sandbox and the hub process on it; resolves once the hub prints its listening line. */
export async function startHubProcess(o: HubProcessOptions = {}): Promise<HubProcess> {
  const sandbox = o.service ?? (await startSandbox({ orders: 50, autoGenerate: false, ...o.sandbox }))
  const dataDir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-attack-'))
  const secretFile = join(dataDir, 'api-secret')
  writeFileSync(secretFile, `${sandbox.apiSecret}\n`, { mode: 0o600 })
  const store = o.dataDir ?? join(dataDir, 'hub')
  const via = o.secretVia ?? 'file'
  const serveArgs = [
    'serve',
    '--base-url',
    o.baseUrl ?? sandbox.url,
    '--service-name',
    sandbox.serviceName,
    '--api-key',
    sandbox.apiKey,
    ...(via === 'file' ? ['--api-secret-file', secretFile] : via === 'stdin' ? ['--api-secret-fd', '0'] : []),
    '--data-dir',
    store,
    '--port',
    '0',
    ...(o.args ?? [])
  ]
  const [command, argv] = o.viaNpm ? ['npm', ['run', '--silent', 'hub', '--', ...serveArgs]] : [process.execPath, hubCliArgs(serveArgs)]
  const child: ChildProcessWithoutNullStreams = spawn(command, argv, {
    cwd: REPO_ROOT,
    env: { ...process.env, RAMPDESK_API_SECRET: via === 'env' ? sandbox.apiSecret : '', ...o.env },
    stdio: 'pipe'
  })
  if (via === 'stdin') child.stdin.end(`${sandbox.apiSecret}\n`)
  let all = ''
  let bytes = 0
  child.stderr.on('data', (c: Buffer) => {
    bytes += c.length
    all += c.toString('utf8')
  })
  child.stdout.on('data', (c: Buffer) => void (bytes += c.length))
  const rl = createInterface({ input: child.stdout })
  const first = await new Promise<string>((ok, fail) => {
    let got = false
    rl.on('line', (l) => {
      all += l + '\n'
      if (!got) {
        got = true
        ok(l)
      }
    })
    child.once('exit', (code) => fail(new Error(`hub exited with ${code}: ${all}`)))
  })
  const m = /^hub listening on (https?:\/\/\S+)$/.exec(first)
  if (!m) throw new Error(`unexpected first line: ${first}`)
  const url = m[1]!
  const pid = o.viaNpm ? hubPid(child.pid!) : child.pid!
  return {
    sandbox,
    url,
    pid,
    rootPid: child.pid!,
    dataDir: store,
    output: () => all,
    logBytes: () => bytes,
    addOperator(name, role) {
      return cli(['operator', 'add', name, '--role', role, '--data-dir', store]).trim().split('\n').at(-1)!
    },
    async call(token, channel, input = {}) {
      const r = await request(`${url}/rpc/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input)
      })
      return (await r.body.json()) as never
    },
    rss() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
    },
    async stop() {
      const tree = processTree(child.pid!)
      const exited = new Promise<number | null>((ok) =>
        child.exitCode !== null || child.signalCode !== null ? ok(child.exitCode) : child.once('exit', (c) => ok(c))
      )
      child.kill('SIGTERM')
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const code = await exited
      clearTimeout(t)
      for (const p of tree) {
        try {
          process.kill(p, 'SIGKILL')
        } catch {
          // already gone
        }
      }
      if (!o.service) await sandbox.close()
      rmSync(dataDir, { recursive: true, force: true })
      return code
    }
  }
}

/** A raw TCP connection to the hub from a chosen loopback source address. */
export function rawSocket(url: string, localAddress = '127.0.0.1'): Promise<Socket> {
  const u = new URL(url)
  return new Promise((ok, fail) => {
    const s = connect({ host: u.hostname, port: Number(u.port), localAddress }, () => ok(s))
    s.once('error', fail)
  })
}

/**
 * Sends raw bytes and reads the answer: until its Content-Length is in, the hub closes the
 * connection, or `ms` pass.
 */
export async function rawExchange(url: string, bytes: string | Buffer, o: { from?: string; ms?: number } = {}): Promise<string> {
  const s = await rawSocket(url, o.from)
  return new Promise((ok) => {
    let text = ''
    const done = () => {
      clearTimeout(t)
      s.destroy()
      ok(text)
    }
    const t = setTimeout(done, o.ms ?? 5_000)
    s.on('data', (c: Buffer) => {
      text += c.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1]
      if (end >= 0 && length !== undefined && text.length - end - 4 >= Number(length)) done()
    })
    s.on('close', done)
    s.on('error', done)
    s.write(bytes, () => undefined)
  })
}

/** The p-th percentile of some numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** The process and every process it started, still running (from /proc). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(Number(entry), ppid)
    } catch {
      // gone meanwhile
    }
  }
  const out = [root]
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid)
  return out
}

/**
 * The node process that runs the hub under npm, sh and tsx: the deepest one whose command
 * line names the hub's entry point. Not simply the deepest process: the hub's own children
 * (esbuild's service, which tsx starts when its cache misses) are deeper, and a SIGKILL
 * meant for the hub would kill one of those instead.
 */
function hubPid(root: number): number {
  const tree = processTree(root)
  const cmdline = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      return []
    }
  }
  const hubs = tree.filter((pid) => cmdline(pid).some((a) => a.endsWith('src/hub/cli.ts')))
  return hubs[hubs.length - 1] ?? tree[tree.length - 1]!
}

/** A process's starting environment as the kernel keeps it (/proc/<pid>/environ). */
export function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1')
  } catch {
    return ''
  }
}

// A throwaway PostgreSQL cluster for the tests of the hub's PostgreSQL store: initdb into a
// temporary directory, pg_ctl start on a free loopback port (trust authentication, loopback
// only), one database per test through createDatabase(), and stop() removes it all. The
// binaries are Debian's (/usr/lib/postgresql/<version>/bin; `apt-get install postgresql`);
// PostgreSQL refuses to run as root, so under root the cluster runs as the postgres user.
// Where no binaries are found, postgresUnavailable says why and the suites skip, saying so.
import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)

/** The newest installed PostgreSQL's bin directory, or null. */
function findBinDir(): string | null {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return null
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length ? join(base, versions[0]!, 'bin') : null
}

const BIN = findBinDir()
const AS_ROOT = process.getuid?.() === 0

function postgresUid(): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
    return { uid: id('-u'), gid: id('-g') }
  } catch {
    return null
  }
}

/** Why the PostgreSQL suites cannot run here, or null when they can. */
export const postgresUnavailable: string | null = !BIN
  ? 'no PostgreSQL binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)'
  : AS_ROOT && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')
    ? 'running as root without runuser to start PostgreSQL as the postgres user'
    : AS_ROOT && !postgresUid()
      ? 'running as root and there is no postgres user to start PostgreSQL as'
      : null

if (postgresUnavailable) console.warn(`PostgreSQL suites skipped: ${postgresUnavailable}`)

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Runs a PostgreSQL binary, as the postgres user when we are root. */
async function pgBin(name: string, args: string[]): Promise<string> {
  const bin = join(BIN!, name)
  const [cmd, argv] = AS_ROOT ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  const { stdout } = await run(cmd, argv, { timeout: 60_000 })
  return stdout
}

export interface PgCluster {
  port: number
  /** postgres://postgres@127.0.0.1:PORT/db */
  url(db?: string): string
  /** A new empty database; answers its URL. */
  createDatabase(name?: string): Promise<string>
  /** Stops the server as an outage would (fast shutdown: connections cut), keeping its data. */
  halt(): Promise<void>
  /** Starts a halted server again on the same port. */
  restart(): Promise<void>
  /** The server's processes (the postmaster and its children), for SIGSTOP and SIGCONT. */
  pids(): number[]
  stop(): Promise<void>
}

let dbCount = 0

export async function startPostgres(): Promise<PgCluster> {
  if (postgresUnavailable) throw new Error(postgresUnavailable)
  const dir = mkdtempSync(join(tmpdir(), 'rampdesk-pg-'))
  if (AS_ROOT) {
    const pgUser = postgresUid()!
    chownSync(dir, pgUser.uid, pgUser.gid)
  }
  const data = join(dir, 'data')
  await pgBin('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync'])
  const port = await freePort()
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`
  await pgBin('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start'])
  const url = (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`
  return {
    port,
    url,
    async createDatabase(name) {
      const db = name ?? `t${process.pid}_${++dbCount}`
      const c = new pg.Client({ connectionString: url() })
      await c.connect()
      try {
        await c.query(`CREATE DATABASE ${db}`)
      } finally {
        await c.end()
      }
      return url(db)
    },
    async halt() {
      await pgBin('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
    },
    async restart() {
      await pgBin('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start'])
    },
    pids() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
      const out = [postmaster]
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
          if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) out.push(Number(entry))
        } catch {
          // gone meanwhile
        }
      }
      return out
    },
    async stop() {
      try {
        await pgBin('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}

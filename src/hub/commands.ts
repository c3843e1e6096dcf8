// The team hub's command line (npm run hub; see HELP below and docs/hub.md): runs the hub for one merchant profile, and manages its
// operators in the hub's data directory (also while the hub runs: it reads each token
// afresh). The merchant's API secret comes from RAMPDESK_API_SECRET or a file, never
// from a flag (flags show in `ps` and in shell history), and is never printed.
import { readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { isHttpUrl } from '../shared/http-url'
import { createHub, type MerchantTarget } from './hub'
import { openHubDatabase } from './hub-db'
import { CLI_ACTOR, HubAudit } from './hub-audit'
import { startHubServer } from './hub-server'
import { OperatorError, OperatorStore } from './operators'
import pkg from '../../package.json' with { type: 'json' }

export const HELP = `Usage:
  npm run hub -- serve [--host 127.0.0.1] [--port 8790] [--data-dir DIR]
                       (--sandbox | --base-url URL --service-name NAME --api-key KEY)
                       [--api-secret-file F | --api-secret-fd N] [--tls-cert F --tls-key F]
                       [--public-url URL] [--forward-to URL] [--rate-limit N]
  npm run hub -- operator add NAME --role viewer|operator|admin [--data-dir DIR]
  npm run hub -- operator list [--data-dir DIR]
  npm run hub -- operator revoke NAME [--data-dir DIR]

The API secret of a live merchant is the first line of --api-secret-file F, of what
--api-secret-fd N reads (0: stdin), or of the file RAMPDESK_API_SECRET_FILE names; or,
less safe, the environment variable RAMPDESK_API_SECRET. Never a flag.
  --data-dir DIR     hub.db, settings and the order database (default ~/.rampdesk-hub)
  --sandbox          run against an embedded sandbox (no secret needed; --orders N, --seed N)
  --public-url URL   the address operators and the service reach the hub at (behind a proxy)
  --forward-to URL   relay every verified webhook delivery, unchanged, to this receiver
  --rate-limit N     requests per minute per operator (default 600)
  --port 0           picks a free port`

export class UsageError extends Error {}

const common = { 'data-dir': { type: 'string' }, help: { type: 'boolean' } } as const

function dataDirOf(v: string | undefined): string {
  return resolve(v ?? process.env.RAMPDESK_HUB_DATA ?? join(homedir(), '.rampdesk-hub'))
}

/** Where the API secret came from: a file and a file descriptor leave no trace in any process's environment. */
export type SecretSource = 'file' | 'fd' | 'env'

/** The first line of a secret's text, or a usage error naming where it came from. */
function firstLine(text: string, from: string): string {
  const secret = text.split(/\r?\n/)[0]!.trim()
  if (!secret) throw new UsageError(`${from} is empty: its first line must be the API secret`)
  return secret
}

/**
 * The merchant's API secret, from (first found): --api-secret-fd N, --api-secret-file F,
 * RAMPDESK_API_SECRET_FILE, or RAMPDESK_API_SECRET. The variable is the less safe way: it
 * is deleted from this process's environment once read (nothing the hub starts inherits it),
 * but the environment a process was started with stays readable in /proc/<pid>/environ, in
 * this process and in every process that started it (npm, the shell), for as long as they
 * run. A file or a file descriptor (stdin: --api-secret-fd 0) leaves it in none of them.
 */
export function readSecret(
  o: { file?: string; fd?: string },
  warn: (m: string) => void,
  env: NodeJS.ProcessEnv = process.env
): { secret: string; source: SecretSource } {
  const viaEnv = env.RAMPDESK_API_SECRET
  // Not inherited by anything this process starts, whichever way the secret comes.
  delete env.RAMPDESK_API_SECRET
  if (o.fd !== undefined) {
    const fd = Number(o.fd)
    if (!Number.isInteger(fd) || fd < 0 || fd > 1023) throw new UsageError(`--api-secret-fd must be a file descriptor number, not ${o.fd}`)
    let text: string
    try {
      text = readFileSync(fd, 'utf8')
    } catch (e) {
      throw new UsageError(`could not read the API secret from file descriptor ${fd}: ${(e as Error).message}`)
    }
    return { secret: firstLine(text, `file descriptor ${fd}`), source: 'fd' }
  }
  const file = o.file ?? env.RAMPDESK_API_SECRET_FILE
  if (file) {
    const st = statSync(file)
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
      warn(`${file} can be read by other users (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`)
    return { secret: firstLine(readFileSync(file, 'utf8'), file), source: 'file' }
  }
  if (!viaEnv)
    throw new UsageError(
      'no API secret: pass --api-secret-file F or --api-secret-fd 0 (the secret on stdin), set RAMPDESK_API_SECRET_FILE, or set RAMPDESK_API_SECRET (less safe), or use --sandbox'
    )
  warn(
    'the API secret came from RAMPDESK_API_SECRET: it stays readable in the starting environment of this process and of the processes that started it (npm, the shell); prefer --api-secret-file or --api-secret-fd'
  )
  return { secret: viaEnv, source: 'env' }
}

function intArg(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer ${min}-${max}, not ${v}`)
  return n
}

function urlArg(name: string, v: string | undefined): string | undefined {
  if (v !== undefined && !isHttpUrl(v)) throw new UsageError(`--${name} must be an http(s) URL, not ${v}`)
  return v
}

export interface CliIo {
  out(line: string): void
  err(line: string): void
}

/** Runs `serve` until SIGINT or SIGTERM; returns the exit code. */
async function serve(args: string[], io: CliIo): Promise<number> {
  if (args.some((a) => a === '--api-secret' || a.startsWith('--api-secret=')))
    throw new UsageError(
      'the API secret is never a flag (flags show in ps and in shell history): use RAMPDESK_API_SECRET or --api-secret-file'
    )
  const { values } = parseArgs({
    args,
    options: {
      ...common,
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8790' },
      sandbox: { type: 'boolean', default: false },
      'base-url': { type: 'string' },
      'service-name': { type: 'string' },
      'api-key': { type: 'string' },
      'api-secret-file': { type: 'string' },
      'api-secret-fd': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'public-url': { type: 'string' },
      'forward-to': { type: 'string' },
      'rate-limit': { type: 'string' },
      orders: { type: 'string' },
      seed: { type: 'string' }
    }
  })
  const port = intArg('port', values.port, 0, 65535)!
  const rateLimitPerMinute = intArg('rate-limit', values['rate-limit'], 1, 1_000_000)
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) throw new UsageError('--tls-cert and --tls-key go together')
  const tls = values['tls-cert'] ? { cert: readFileSync(values['tls-cert']), key: readFileSync(values['tls-key']!) } : undefined
  let merchant: MerchantTarget
  if (values.sandbox) {
    if (values['base-url'] || values['api-key']) throw new UsageError('--sandbox takes no --base-url or --api-key')
    merchant = {
      kind: 'sandbox',
      sandbox: { orders: intArg('orders', values.orders, 0, 10_000_000), seed: intArg('seed', values.seed, 0, 2 ** 31) }
    }
  } else {
    const baseUrl = urlArg('base-url', values['base-url'])
    const serviceName = values['service-name']
    const apiKey = values['api-key']
    if (!baseUrl || !serviceName || !apiKey) throw new UsageError('serve needs --sandbox, or --base-url, --service-name and --api-key')
    merchant = {
      kind: 'live',
      baseUrl,
      serviceName,
      apiKey,
      apiSecret: readSecret({ file: values['api-secret-file'], fd: values['api-secret-fd'] }, (m) => io.err(`warning: ${m}`)).secret
    }
  }
  const dataDir = dataDirOf(values['data-dir'])
  const hub = await createHub({
    dataDir,
    merchant,
    version: pkg.version,
    forwardTo: urlArg('forward-to', values['forward-to']),
    logWrite: io.out
  })
  let server
  try {
    server = await startHubServer({
      hub,
      host: values.host,
      port,
      tls,
      publicUrl: urlArg('public-url', values['public-url']),
      rateLimitPerMinute
    })
  } catch (e) {
    await hub.close()
    throw e
  }
  io.out(`hub listening on ${server.url}`)
  hub.log.info(`data in ${dataDir}; merchant ${hub.profile.baseUrl} (${hub.profile.kind}); webhook URL ${hub.webhookUrl()}`)
  if (hub.relay()) hub.log.info(`relaying verified webhooks to ${hub.relay()!.target}`)
  if (hub.operators.list().length === 0) hub.log.warn('no operators yet: add one with `npm run hub -- operator add NAME --role admin`')
  const running = server
  await new Promise<void>((done) => {
    let closing = false
    const stop = () => {
      if (closing) return
      closing = true
      hub.log.info('stopping')
      void running
        .close()
        .then(() => hub.close())
        .finally(done)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  return 0
}

function operator(args: string[], io: CliIo): number {
  const [sub, ...rest] = args
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...common, role: { type: 'string' } } })
  const sql = openHubDatabase(dataDirOf(values['data-dir']))
  try {
    const store = new OperatorStore(sql)
    const audit = new HubAudit(sql)
    switch (sub) {
      case 'add': {
        const [name] = positionals
        if (!name || positionals.length > 1) throw new UsageError('operator add NAME --role viewer|operator|admin')
        if (!values.role) throw new UsageError('operator add needs --role viewer|operator|admin')
        const { operator: op, token } = store.add(name, values.role)
        audit.append(CLI_ACTOR, 'team:addOperator', { name: op.name, role: op.role })
        io.out(`added operator ${op.name} (${op.role})`)
        io.out(`token (shown this once, stored only as a hash; give it to ${op.name} for their Team profile):`)
        io.out(token)
        return 0
      }
      case 'list': {
        const ops = store.list()
        if (ops.length === 0) io.out('no operators')
        for (const op of ops)
          io.out(
            `${op.name}\t${op.role}\tadded ${new Date(op.createdAt).toISOString()}\tlast seen ${op.lastSeenAt ? new Date(op.lastSeenAt).toISOString() : 'never'}`
          )
        return 0
      }
      case 'revoke': {
        const [name] = positionals
        if (!name || positionals.length > 1) throw new UsageError('operator revoke NAME')
        const op = store.revoke(name, { allowLastAdmin: true })
        audit.append(CLI_ACTOR, 'team:revokeOperator', { name: op.name })
        io.out(`revoked ${op.name}: a running hub refuses the token from now on and closes its event streams`)
        return 0
      }
      default:
        throw new UsageError(`unknown operator command ${sub ?? '(none)'}: add, list or revoke`)
    }
  } finally {
    sql.close()
  }
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv
  try {
    if (!command || command === '--help' || command === 'help' || args.includes('--help')) {
      io.out(HELP)
      return command ? 0 : 2
    }
    if (command === 'serve') return await serve(args, io)
    if (command === 'operator') return operator(args, io)
    throw new UsageError(`unknown command ${command}: serve or operator`)
  } catch (e) {
    if (e instanceof UsageError || e instanceof OperatorError || (e as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
      io.err(`error: ${(e as Error).message}`)
      if (e instanceof UsageError || !(e instanceof OperatorError)) io.err(HELP)
      return 2
    }
    io.err(`error: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
}

// `npm run hub -- serve`: runs the hub for one merchant until SIGINT or SIGTERM. Every
// option may come from its RAMPDESK_HUB_* variable (cli-options.ts); the API secret never
// from a flag (flags show in `ps` and in shell history), and never printed.
import { SECOND_FACTOR_POLICIES, type SecondFactorPolicy } from './second-factor-gate'
import { readFileSync } from 'node:fs'
import { isHttpUrl } from '../shared/http-url'
import { parseAuditLogTarget, type AuditCopyTarget } from './audit-sinks'
import { SERVE_OPTIONS, UsageError, resolveOptions, type ResolvedOptions, type ServeOptionName } from './cli-options'
import { createHub, type MerchantTarget } from './hub'
import { createHubLog, LOG_FORMATS, type LogFormat } from './hub-log'
import { startHubServer } from './hub-server'
import { dataDirOf, type CliIo } from './hub-paths'
import { databaseOf } from './database-option'
import { readFirstLine, readSecret } from './secret-input'
import { parseTrustedProxies, type TrustedProxies } from './trusted-proxies'
import { oidcConfigOf } from './oidc/oidc-options'
import pkg from '../../package.json' with { type: 'json' }

/** The shortest metrics token accepted: a guessable one would open the metrics to anyone. */
export const MIN_METRICS_TOKEN = 16

type Opts = ResolvedOptions<ServeOptionName>

function intArg(o: Opts, name: ServeOptionName, min: number, max: number): number | undefined {
  const v = o.string(name)
  if (v === undefined) return undefined
  const n = Number(v)
  if (v.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${o.from(name)} must be an integer ${min}-${max}, not ${v}`)
  return n
}

function urlArg(o: Opts, name: ServeOptionName): string | undefined {
  const v = o.string(name)
  // The value is not repeated: a --forward-to URL may carry a password.
  if (v !== undefined && !isHttpUrl(v)) throw new UsageError(`${o.from(name)} must be an http(s) URL`)
  return v
}

function trustedProxiesOf(o: Opts): TrustedProxies | undefined {
  const v = o.string('trusted-proxy')
  if (v === undefined) return undefined
  try {
    return parseTrustedProxies(v)
  } catch (e) {
    throw new UsageError(`${o.from('trusted-proxy')}: ${(e as Error).message}`)
  }
}

function auditLogOf(o: Opts): AuditCopyTarget | undefined {
  const v = o.string('audit-log')
  if (v === undefined) return undefined
  const t = parseAuditLogTarget(v)
  if (typeof t === 'string') throw new UsageError(`${o.from('audit-log')}: ${t}`)
  return t
}

function logFormatOf(o: Opts): LogFormat {
  const v = o.string('log-format') ?? 'text'
  if (!(LOG_FORMATS as readonly string[]).includes(v)) throw new UsageError(`${o.from('log-format')} must be text or json, not ${v}`)
  return v as LogFormat
}

function merchantOf(o: Opts, warn: (m: string) => void): MerchantTarget {
  if (o.flag('sandbox')) {
    if (o.string('base-url') || o.string('api-key')) throw new UsageError('--sandbox takes no --base-url or --api-key')
    return { kind: 'sandbox', sandbox: { orders: intArg(o, 'orders', 0, 10_000_000), seed: intArg(o, 'seed', 0, 2 ** 31) } }
  }
  const baseUrl = urlArg(o, 'base-url')
  const serviceName = o.string('service-name')
  const apiKey = o.string('api-key')
  if (!baseUrl || !serviceName || !apiKey) throw new UsageError('serve needs --sandbox, or --base-url, --service-name and --api-key')
  const secret = readSecret({ file: o.string('api-secret-file'), fd: o.string('api-secret-fd') }, warn).secret
  return { kind: 'live', baseUrl, serviceName, apiKey, apiSecret: secret }
}

/** Runs `serve` until SIGINT or SIGTERM; returns the exit code. */
export async function serve(args: string[], io: CliIo): Promise<number> {
  if (args.some((a) => a === '--api-secret' || a.startsWith('--api-secret=')))
    throw new UsageError(
      'the API secret is never a flag (flags show in ps and in shell history): use RAMPDESK_API_SECRET or --api-secret-file'
    )
  // Warnings about files are written once the format is known: collected until then.
  const early: string[] = []
  const o = resolveOptions(args, SERVE_OPTIONS, { warn: (m) => void early.push(m) })
  const format = logFormatOf(o)
  const startLog = createHubLog({ format, write: io.err })
  const listenLog = createHubLog({ format, write: io.out })
  const warn = (m: string) => (format === 'json' ? startLog.warn(m) : io.err(`warning: ${m}`))
  for (const m of early.splice(0)) warn(m)

  const port = intArg(o, 'port', 0, 65535) ?? 8790
  const rateLimitPerMinute = intArg(o, 'rate-limit', 1, 1_000_000)
  const tlsCert = o.string('tls-cert')
  const tlsKey = o.string('tls-key')
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new UsageError('--tls-cert and --tls-key go together')
  const tls = tlsCert && tlsKey ? { cert: readFileSync(tlsCert), key: readFileSync(tlsKey) } : undefined
  const tokenFile = o.string('metrics-token-file')
  const metricsToken = tokenFile ? readFirstLine(tokenFile, warn) : undefined
  if (metricsToken !== undefined && metricsToken.length < MIN_METRICS_TOKEN)
    throw new UsageError(
      `the metrics token in ${tokenFile} is too short: at least ${MIN_METRICS_TOKEN} characters (e.g. openssl rand -hex 32)`
    )
  const merchant = merchantOf(o, warn)
  const publicUrl = urlArg(o, 'public-url')
  const forwardTo = urlArg(o, 'forward-to')
  const trustedProxies = trustedProxiesOf(o)
  const dataDir = dataDirOf(o.string('data-dir'))
  const database = databaseOf(o, warn)
  const oidc = oidcConfigOf(o, warn) ?? undefined
  const auditLog = auditLogOf(o)
  const secondFactorPolicy = o.string('require-second-factor') ?? 'none'
  if (!(SECOND_FACTOR_POLICIES as readonly string[]).includes(secondFactorPolicy))
    throw new UsageError(`--require-second-factor takes ${SECOND_FACTOR_POLICIES.join(' or ')}, not ${JSON.stringify(secondFactorPolicy)}`)

  // The listening line comes first, which scripts wait for: what the hub logs while it
  // starts (budget carried over from a restart, say) is held until it is out.
  const held: string[] = []
  let holding = true
  const flush = () => {
    holding = false
    for (const l of held.splice(0)) io.out(l)
  }
  const logWrite = (line: string) => (holding ? held.push(line) : io.out(line))
  let hub
  let server
  try {
    hub = await createHub({
      dataDir,
      database,
      merchant,
      version: pkg.version,
      forwardTo,
      logWrite,
      logFormat: format,
      trustedProxies,
      auditLog
    })
    try {
      server = await startHubServer({
        hub,
        host: o.string('host') ?? '127.0.0.1',
        port,
        tls,
        publicUrl,
        rateLimitPerMinute,
        metricsToken,
        trustedProxies,
        oidc,
        requireSecondFactor: secondFactorPolicy as SecondFactorPolicy
      })
    } catch (e) {
      await hub.close()
      throw e
    }
  } catch (e) {
    flush()
    throw e
  }
  // Stopped gracefully by SIGINT or SIGTERM from the moment it listens: a supervisor (or a
  // script) that signals as soon as it reads the listening line must not kill it mid-start.
  const running = server
  const stopped = new Promise<void>((done) => {
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
  // logrotate renames the copy and signals: the next entry starts a new file. (Without a copy,
  // SIGHUP stops the hub as it always has.)
  if (auditLog) process.on('SIGHUP', () => void hub.reopenAuditLog())
  // Plain text, or in the json format a line whose msg it is.
  if (format === 'json') listenLog.info(`hub listening on ${server.url}`, { url: server.url })
  else io.out(`hub listening on ${server.url}`)
  flush()
  hub.log.info(`data in ${dataDir}; merchant ${hub.profile.baseUrl} (${hub.profile.kind}); webhook URL ${hub.webhookUrl()}`, {
    dataDir,
    merchant: hub.profile.baseUrl,
    kind: hub.profile.kind,
    webhookUrl: hub.webhookUrl(),
    role: hub.role.current().role
  })
  if (hub.store.notes.started !== null)
    hub.log.info(`hub store: ${hub.store.notes.started}; ${hub.role.current().role} (${hub.role.current().detail})`, {
      store: hub.store.kind,
      database: hub.store.where,
      role: hub.role.current().role
    })
  if (hub.relay()) hub.log.info(`relaying verified webhooks to ${hub.relay()!.target}`)
  if (trustedProxies) {
    const cidrs = trustedProxies.cidrs.map((c) => `${c.address}/${c.prefix}`)
    hub.log.info(
      `trusting X-Forwarded-For from the reverse proxies at ${cidrs.join(', ')}: their clients are counted each by its own address`,
      {
        trustedProxies: cidrs
      }
    )
  }
  if (oidc) {
    const callback = `${(publicUrl ?? server.url).replace(/\/+$/, '')}/auth/oidc/callback`
    hub.log.info(`sign-in through ${oidc.issuer} (${oidc.providerName}); the redirect URI to register there: ${callback}`, {
      issuer: oidc.issuer,
      redirectUri: callback
    })
  }
  hub.log.info(
    metricsToken
      ? 'metrics at /metrics for the metrics token'
      : 'metrics at /metrics for this machine only (no --metrics-token-file); behind a reverse proxy, deny /metrics there or set a token'
  )
  // (A stop signalled meanwhile may have closed the store: then there is nothing to say.)
  const operators = await Promise.resolve()
    .then(() => hub.operators.list())
    .catch(() => null)
  if (operators?.length === 0) hub.log.warn('no operators yet: add one with `npm run hub -- operator add NAME --role admin`')
  await stopped
  return 0
}

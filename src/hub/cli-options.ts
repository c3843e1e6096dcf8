// The hub command line's options, each also from a RAMPDESK_HUB_* environment variable (a
// container or a systemd unit configures the hub without a long command line). A flag on
// the command line wins over its variable; a variable whose option conflicts with a flag
// given (RAMPDESK_HUB_SANDBOX=1 with --base-url on the command line, say) is ignored, so the
// command line always says what happens. Options that may carry a credential (the API key,
// a --forward-to URL with a password) are also read from a file named by <VARIABLE>_FILE:
// its first line, like the API secret's file.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './cli-errors'
import { readFirstLine } from './secret-input'
import { OIDC_OPTIONS } from './oidc/oidc-options'

export { UsageError } from './cli-errors'

export interface OptionSpec {
  type: 'string' | 'boolean'
  /** The variable that gives it when the flag is not on the command line (none: the command line only). */
  env?: string
  /** Older names of the variable, still read after `env`. */
  legacyEnv?: readonly string[]
  /** Also from a file named by `${env}_FILE` (its first line): for options that may carry a credential. */
  fromFile?: boolean
  /** The variable is ignored when one of these flags is on the command line. */
  excludes?: readonly string[]
  /** What it means, for --help's table of variables. */
  help: string
}

export const DATA_DIR_OPTION: OptionSpec = {
  type: 'string',
  env: 'RAMPDESK_HUB_DATA_DIR',
  legacyEnv: ['RAMPDESK_HUB_DATA'],
  help: 'the data directory'
}

/** The PostgreSQL database the hub's own tables are in (pg/pg-connection.ts); hub.db in the data directory when absent. */
export const DATABASE_OPTIONS = {
  database: {
    type: 'string',
    env: 'RAMPDESK_HUB_DATABASE',
    fromFile: true,
    help: 'postgres://USER@HOST:PORT/DB: the hub store several hubs share'
  },
  'database-password-file': {
    type: 'string',
    env: 'RAMPDESK_HUB_DATABASE_PASSWORD_FILE',
    help: "the file holding the database user's password"
  }
} as const satisfies Record<string, OptionSpec>

const MERCHANT = ['base-url', 'service-name', 'api-key']
const SECRET = ['api-secret-file', 'api-secret-fd']

/** Every `serve` option. */
export const SERVE_OPTIONS = {
  'data-dir': DATA_DIR_OPTION,
  ...DATABASE_OPTIONS,
  host: { type: 'string', env: 'RAMPDESK_HUB_HOST', help: 'the address to bind' },
  port: { type: 'string', env: 'RAMPDESK_HUB_PORT', help: 'the port' },
  sandbox: { type: 'boolean', env: 'RAMPDESK_HUB_SANDBOX', excludes: MERCHANT, help: '1 or true: an embedded sandbox' },
  orders: { type: 'string', env: 'RAMPDESK_HUB_ORDERS', excludes: MERCHANT, help: "the sandbox's orders" },
  seed: { type: 'string', env: 'RAMPDESK_HUB_SEED', excludes: MERCHANT, help: "the sandbox's seed" },
  'base-url': { type: 'string', env: 'RAMPDESK_HUB_BASE_URL', excludes: ['sandbox'], help: "the merchant's service" },
  'service-name': { type: 'string', env: 'RAMPDESK_HUB_SERVICE_NAME', excludes: ['sandbox'], help: 'its service name' },
  'api-key': { type: 'string', env: 'RAMPDESK_HUB_API_KEY', fromFile: true, excludes: ['sandbox'], help: 'the API key' },
  'api-secret-file': {
    type: 'string',
    env: 'RAMPDESK_HUB_API_SECRET_FILE',
    legacyEnv: ['RAMPDESK_API_SECRET_FILE'],
    excludes: SECRET,
    help: 'the file holding the API secret'
  },
  'api-secret-fd': { type: 'string', env: 'RAMPDESK_HUB_API_SECRET_FD', excludes: SECRET, help: 'the API secret from a file descriptor' },
  'tls-cert': { type: 'string', env: 'RAMPDESK_HUB_TLS_CERT', help: 'the certificate file (PEM)' },
  'tls-key': { type: 'string', env: 'RAMPDESK_HUB_TLS_KEY', help: 'its key file (PEM)' },
  'public-url': { type: 'string', env: 'RAMPDESK_HUB_PUBLIC_URL', help: 'the address the hub is reached at' },
  'forward-to': { type: 'string', env: 'RAMPDESK_HUB_FORWARD_TO', fromFile: true, help: "the merchant's webhook receiver" },
  'rate-limit': { type: 'string', env: 'RAMPDESK_HUB_RATE_LIMIT', help: 'requests per minute per operator' },
  'log-format': { type: 'string', env: 'RAMPDESK_HUB_LOG_FORMAT', help: 'text or json' },
  'metrics-token-file': { type: 'string', env: 'RAMPDESK_HUB_METRICS_TOKEN_FILE', help: 'the file holding the /metrics token' },
  'trusted-proxy': {
    type: 'string',
    env: 'RAMPDESK_HUB_TRUSTED_PROXY',
    help: 'CIDR[,CIDR]: reverse proxies whose X-Forwarded-For names the client'
  },
  ...OIDC_OPTIONS,
  'audit-log': { type: 'string', env: 'RAMPDESK_HUB_AUDIT_LOG', help: 'PATH, syslog or syslog://HOST:PORT: a live copy of the audit log' },
  'require-second-factor': {
    type: 'string',
    env: 'RAMPDESK_HUB_REQUIRE_SECOND_FACTOR',
    help: 'admins: admins prove a TOTP code per session (none: only the enrolled, before redirecting actions)'
  }
} as const satisfies Record<string, OptionSpec>

export type ServeOptionName = keyof typeof SERVE_OPTIONS

/** Options resolved from the command line and the environment, and where each came from (for error messages). */
export interface ResolvedOptions<N extends string> {
  values: Partial<Record<N, string | boolean>>
  positionals: string[]
  /** `--name` when it came from the command line, else the variable's name. */
  from(name: N): string
  string(name: N): string | undefined
  flag(name: N): boolean
}

const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['', '0', 'false', 'no', 'off'])

/**
 * Parses `args` against `specs` (plus --help), then fills what the command line left out
 * from the environment. `warn` hears about files of credentials others can read.
 */
export function resolveOptions<N extends string>(
  args: string[],
  specs: Record<N, OptionSpec>,
  o: { env?: NodeJS.ProcessEnv; warn?: (m: string) => void; allowPositionals?: boolean } = {}
): ResolvedOptions<N> {
  const env = o.env ?? process.env
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean' } }
  for (const [k, spec] of Object.entries<OptionSpec>(specs)) options[k] = { type: spec.type }
  const parsed = parseArgs({ args, allowPositionals: o.allowPositionals ?? false, options })
  const given = new Set(Object.keys(parsed.values))
  const values: Partial<Record<N, string | boolean>> = {}
  const source = new Map<N, string>()
  for (const [name, spec] of Object.entries<OptionSpec>(specs) as Array<[N, OptionSpec]>) {
    const flagValue = (parsed.values as Record<string, string | boolean | undefined>)[name]
    if (flagValue !== undefined) {
      values[name] = flagValue
      source.set(name, `--${name}`)
      continue
    }
    if (spec.excludes?.some((f) => given.has(f))) continue
    const fromEnv = envValue(spec, env, o.warn ?? (() => undefined))
    if (!fromEnv) continue
    source.set(name, fromEnv.from)
    if (spec.type === 'boolean') {
      const v = fromEnv.value.trim().toLowerCase()
      if (!TRUE.has(v) && !FALSE.has(v))
        throw new UsageError(`${fromEnv.from} must be 1, true, 0 or false, not ${JSON.stringify(fromEnv.value)}`)
      values[name] = TRUE.has(v)
    } else values[name] = fromEnv.value
  }
  return {
    values,
    positionals: parsed.positionals,
    from: (name) => source.get(name) ?? `--${name}`,
    string: (name) => {
      const v = values[name]
      return typeof v === 'string' ? v : undefined
    },
    flag: (name) => values[name] === true
  }
}

function envValue(spec: OptionSpec, env: NodeJS.ProcessEnv, warn: (m: string) => void): { value: string; from: string } | null {
  if (!spec.env) return null
  const fileVar = `${spec.env}_FILE`
  const file = spec.fromFile ? env[fileVar] : undefined
  for (const name of [spec.env, ...(spec.legacyEnv ?? [])]) {
    const value = env[name]
    if (value === undefined || (value === '' && spec.type === 'string')) continue
    if (file) throw new UsageError(`set ${name} or ${fileVar}, not both`)
    return { value, from: name }
  }
  if (file) return { value: readFirstLine(file, warn), from: fileVar }
  return null
}

/** The table of variables for --help: one line each. */
export function envHelp(specs: Record<string, OptionSpec>): string {
  const rows = Object.entries(specs).flatMap(([flag, s]) => {
    if (!s.env) return []
    const names = [s.env, ...(s.fromFile ? [`${s.env}_FILE`] : []), ...(s.legacyEnv ?? [])].join(' | ')
    return `  ${names.padEnd(56)} --${flag}`
  })
  return rows.join('\n')
}

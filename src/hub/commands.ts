// The team hub's command line (npm run hub; see HELP below and docs/hub-reference.md): runs the hub for
// one merchant profile (serve-command.ts), manages its operators in the hub's data
// directory (also while the hub runs: it reads each token afresh), and backs the data
// directory up and restores it (backup-command.ts).
import { CLI_ACTOR } from './hub-audit'
import { auditCommand } from './audit-command'
import { backupCommand, restoreCommand } from './backup-command'
import { openStoreFor } from './command-store'
import { DATA_DIR_OPTION, DATABASE_OPTIONS, envHelp, resolveOptions, SERVE_OPTIONS, UsageError, type OptionSpec } from './cli-options'
import type { CliIo } from './hub-paths'
import { OperatorError } from './operators'
import { InputError } from './cli-errors'
import { alertsCommand, ALERTS_HELP } from './alerts-command'
import { endsText, parseExpiresIn, utcMoment } from './token-expiry'
import { totpCommand } from './totp-command'

export { UsageError } from './cli-options'
export type { CliIo } from './hub-paths'

export const HELP = `Usage:
  npm run hub -- serve [--host 127.0.0.1] [--port 8790] [--data-dir DIR]
                       [--database postgres://USER@HOST:PORT/DB [--database-password-file F]]
                       (--sandbox | --base-url URL --service-name NAME --api-key KEY)
                       [--api-secret-file F | --api-secret-fd N] [--tls-cert F --tls-key F]
                       [--public-url URL] [--forward-to URL] [--rate-limit N]
                       [--log-format text|json] [--metrics-token-file F]
                       [--trusted-proxy CIDR[,CIDR]] [--audit-log PATH|syslog]
                       [--require-second-factor admins]
                       [--oidc-issuer URL --oidc-client-id ID --oidc-client-secret-file F
                        --oidc-role-claim CLAIM --oidc-roles admin=V,operator=V,viewer=V
                        [--oidc-session-minutes 15] [--oidc-provider-name NAME]]
  npm run hub -- operator add NAME --role viewer|operator|admin [--expires-in 90d] [--service]
                                   [--data-dir DIR | --database URL]
  npm run hub -- operator rotate NAME [--expires-in 90d] [--data-dir DIR | --database URL]
  npm run hub -- operator totp enrol NAME [--data-dir DIR | --database URL]
  npm run hub -- operator list [--data-dir DIR | --database URL]
  npm run hub -- operator revoke NAME [--data-dir DIR | --database URL]
${ALERTS_HELP}
  npm run hub -- audit export [--since ISO] [--format jsonl] [--data-dir DIR | --database URL]
                                                  the audit log, one JSON line per entry, to stdout
  npm run hub -- audit verify [--file F | --data-dir DIR | --database URL]
                                                  checks the audit log's hash chain (exit 1: broken)
  npm run hub -- backup DIR [--data-dir DIR]      an online backup, while the hub runs
  npm run hub -- backup DIR --database URL        pg_dump of the hub's PostgreSQL tables (or its command)
  npm run hub -- restore DIR --data-dir NEW_DIR   into a data directory that holds no hub

The API secret of a live merchant is the first line of --api-secret-file F, of what
--api-secret-fd N reads (0: stdin), or of the file RAMPDESK_HUB_API_SECRET_FILE names; or,
less safe, the environment variable RAMPDESK_API_SECRET. Never a flag.
  --data-dir DIR          hub.db, settings and the order database (default ~/.rampdesk-hub)
  --database URL          keep operators, audit, pins, budget and relay ledger in PostgreSQL,
                          shared by every hub on it (password: --database-password-file F)
  --sandbox               run against an embedded sandbox (no secret needed; --orders N, --seed N)
  --public-url URL        the address operators and the service reach the hub at (behind a proxy)
  --forward-to URL        relay every verified webhook delivery, unchanged, to this receiver
  --rate-limit N          requests per minute per operator (default 600)
  --log-format json       one JSON object per line (time, level, msg, fields); default text
  --metrics-token-file F  GET /metrics asks for this token (first line of F); without it,
                          /metrics answers this machine only
  --trusted-proxy CIDR    reverse proxies (comma-separated addresses or CIDRs) whose
                          X-Forwarded-For names the client: caps and throttles count
                          each client behind them by its own address
  --oidc-issuer URL       people sign in with this OpenID provider (docs/hub.md); the role
                          from the values of --oidc-role-claim (e.g. groups) per --oidc-roles
  --audit-log PATH        a live copy of the audit log: each entry appended to PATH as a JSON
                          line (reopened on SIGHUP), or syslog (RFC 5424 over UDP to 127.0.0.1:514)
  --port 0                picks a free port
  --expires-in 90d        how long an operator's token lasts: days (30d) or weeks (12w),
                          at most 365d; 90d unless given; never is refused
  --service               a service account, for automation: no interactive sign-in
  --require-second-factor admins
                          admins prove a code from their authenticator app once per
                          session (12 h) and again before setting the webhook URL or
                          adding an admin (operator totp enrol NAME enrols one)

Every serve option also comes from the environment (a flag on the command line wins;
*_FILE: the first line of that file, for values that may hold a credential):
${envHelp(SERVE_OPTIONS)}`

/** The options of `operator add|rotate|list|revoke`. */
const OPERATOR_OPTIONS = {
  'data-dir': DATA_DIR_OPTION,
  ...DATABASE_OPTIONS,
  role: { type: 'string', help: "the new operator's role" },
  'expires-in': { type: 'string', help: 'how long the token lasts (90d)' },
  service: { type: 'boolean', help: 'a service account, for automation' }
} as const satisfies Record<string, OptionSpec>

async function operator(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args
  const o = resolveOptions(rest, OPERATOR_OPTIONS, { allowPositionals: true, warn: (m) => io.err(`warning: ${m}`) })
  const positionals = o.positionals
  if (sub !== 'add' && sub !== 'rotate' && sub !== 'list' && sub !== 'revoke' && sub !== 'totp')
    throw new UsageError(`unknown operator command ${sub ?? '(none)'}: add, rotate, list, revoke or totp`)
  const expiresIn = o.string('expires-in')
  const lifetimeMs = expiresIn === undefined ? undefined : parseExpiresIn(expiresIn)
  if (expiresIn !== undefined && sub !== 'add' && sub !== 'rotate') throw new UsageError('--expires-in goes with operator add or rotate')
  if (o.flag('service') && sub !== 'add') throw new UsageError('--service goes with operator add')
  const store = await openStoreFor(o, io)
  try {
    const { operators, audit } = store
    switch (sub) {
      case 'totp':
        return await totpCommand(store, positionals, io)
      case 'add': {
        const [name] = positionals
        const role = o.string('role')
        if (!name || positionals.length > 1) throw new UsageError('operator add NAME --role viewer|operator|admin')
        if (!role) throw new UsageError('operator add needs --role viewer|operator|admin')
        const service = o.flag('service')
        const { operator: op, token } = await operators.add(name, role, { lifetimeMs, account: service ? 'service' : 'person' })
        const expiresAt = op.expiresAt ?? 0
        audit.append(CLI_ACTOR, 'team:addOperator', {
          name: op.name,
          role: op.role,
          expiresAt,
          ...(service ? { account: 'service' } : {})
        })
        io.out(`added ${service ? 'service account' : 'operator'} ${op.name} (${op.role}), token expires ${utcMoment(expiresAt)}`)
        io.out(
          service
            ? `token (shown this once, stored only as a hash; put it where the automation reads its secrets):`
            : `token (shown this once, stored only as a hash; give it to ${op.name} for their Team profile):`
        )
        io.out(token)
        return 0
      }
      case 'rotate': {
        const [name] = positionals
        if (!name || positionals.length > 1) throw new UsageError('operator rotate NAME [--expires-in 90d]')
        const { operator: op, token } = await operators.rotate(name, { lifetimeMs })
        const expiresAt = op.expiresAt ?? 0
        audit.append(CLI_ACTOR, 'team:rotateOperator', { name: op.name, expiresAt })
        io.out(`rotated ${op.name}: the old token is refused from now on; the new one expires ${utcMoment(expiresAt)}`)
        io.out(`token (shown this once, stored only as a hash; give it to ${op.name} in place of the old one):`)
        io.out(token)
        return 0
      }
      case 'list': {
        const ops = await operators.list()
        const oidc = await store.oidc.oidcNames()
        if (ops.length === 0) io.out('no operators')
        const now = Date.now()
        for (const op of ops)
          io.out(
            [
              op.name,
              op.role,
              `added ${new Date(op.createdAt).toISOString()}`,
              `last seen ${op.lastSeenAt ? new Date(op.lastSeenAt).toISOString() : 'never'}`,
              // Added after the columns scripts already read, so they keep reading them.
              endsText(op.expiresAt ?? 0, now),
              // People who sign in through the team's identity provider hold no token of their own.
              oidc.has(op.name) ? 'oidc' : op.account === 'service' ? 'service account' : 'person'
            ].join('\t')
          )
        return 0
      }
      case 'revoke': {
        const [name] = positionals
        if (!name || positionals.length > 1) throw new UsageError('operator revoke NAME')
        const op = await operators.revoke(name, { allowLastAdmin: true })
        audit.append(CLI_ACTOR, 'team:revokeOperator', { name: op.name })
        io.out(`revoked ${op.name}: ${store.notes.revocation} and closes its event streams`)
        return 0
      }
    }
  } finally {
    await store.close()
  }
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv
  try {
    if (!command || command === '--help' || command === 'help' || args.includes('--help')) {
      io.out(HELP)
      return command ? 0 : 2
    }
    switch (command) {
      case 'serve':
        // Loaded only to serve: the other commands start without the hub's services.
        return await (await import('./serve-command')).serve(args, io)
      case 'operator':
        return await operator(args, io)
      case 'alerts':
        return await alertsCommand(args, io, openStoreFor)
      case 'audit':
        return await auditCommand(args, io)
      case 'backup':
        return await backupCommand(args, io)
      case 'restore':
        return restoreCommand(args, io)
      default:
        throw new UsageError(`unknown command ${command}: serve, operator, alerts, audit, backup or restore`)
    }
  } catch (e) {
    const usage = e instanceof UsageError || (e as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')
    if (usage || e instanceof OperatorError || e instanceof InputError) {
      io.err(`error: ${(e as Error).message}`)
      if (usage) io.err(HELP)
      return 2
    }
    io.err(`error: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
}

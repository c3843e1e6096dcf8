// `serve`'s options for sign-in through the team's identity provider, each also from its
// RAMPDESK_HUB_OIDC_* variable (cli-options.ts); the client secret from a file only (a flag
// shows in ps), or from RAMPDESK_HUB_OIDC_CLIENT_SECRET_FILE.
import { UsageError } from '../cli-errors'
import type { OptionSpec, ResolvedOptions } from '../cli-options'
import { readFirstLine } from '../secret-input'
import { DEFAULT_SESSION_MINUTES, parseRoleMap, type OidcConfig } from './oidc-config'

export const OIDC_OPTIONS = {
  'oidc-issuer': { type: 'string', env: 'RAMPDESK_HUB_OIDC_ISSUER', help: "the identity provider's issuer URL (sign-in with it)" },
  'oidc-client-id': { type: 'string', env: 'RAMPDESK_HUB_OIDC_CLIENT_ID', help: "the hub's client id at the provider" },
  'oidc-client-secret-file': {
    type: 'string',
    env: 'RAMPDESK_HUB_OIDC_CLIENT_SECRET_FILE',
    help: 'the file holding its client secret'
  },
  'oidc-role-claim': { type: 'string', env: 'RAMPDESK_HUB_OIDC_ROLE_CLAIM', help: 'the claim whose values give roles (e.g. groups)' },
  'oidc-roles': { type: 'string', env: 'RAMPDESK_HUB_OIDC_ROLES', help: 'admin=VALUE,operator=VALUE,viewer=VALUE' },
  'oidc-session-minutes': { type: 'string', env: 'RAMPDESK_HUB_OIDC_SESSION_MINUTES', help: 'minutes between renewals (default 15)' },
  'oidc-provider-name': { type: 'string', env: 'RAMPDESK_HUB_OIDC_PROVIDER_NAME', help: 'what desktops call it ("Sign in with …")' }
} as const satisfies Record<string, OptionSpec>

type OidcOptionName = keyof typeof OIDC_OPTIONS

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

/** The sign-in configuration the options give, or null when there is no --oidc-issuer. */
export function oidcConfigOf(o: ResolvedOptions<OidcOptionName>, warn: (m: string) => void): OidcConfig | null {
  const issuer = o.string('oidc-issuer')
  const others = (Object.keys(OIDC_OPTIONS) as OidcOptionName[]).filter((k) => k !== 'oidc-issuer' && o.values[k] !== undefined)
  if (!issuer) {
    if (others.length) throw new UsageError(`${o.from(others[0]!)} needs --oidc-issuer`)
    return null
  }
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    throw new UsageError(`${o.from('oidc-issuer')} must be a URL, not ${JSON.stringify(issuer)}`)
  }
  const allowHttp = url.protocol === 'http:' && LOOPBACK.has(url.hostname)
  if (url.protocol !== 'https:' && !allowHttp)
    throw new UsageError(`${o.from('oidc-issuer')} must be an https URL (plain http only for a provider on this machine)`)
  const need = (name: OidcOptionName): string => {
    const v = o.string(name)
    if (!v) throw new UsageError(`--oidc-issuer needs --${name}`)
    return v
  }
  const clientId = need('oidc-client-id')
  const secretFile = need('oidc-client-secret-file')
  const clientSecret = readFirstLine(secretFile, warn)
  if (!clientSecret) throw new UsageError(`${o.from('oidc-client-secret-file')}: ${secretFile} is empty`)
  const roleClaim = need('oidc-role-claim')
  let roles
  try {
    roles = parseRoleMap(need('oidc-roles'))
  } catch (e) {
    throw new UsageError(`${o.from('oidc-roles')}: ${(e as Error).message}`)
  }
  const minutesText = o.string('oidc-session-minutes')
  const minutes = minutesText === undefined ? DEFAULT_SESSION_MINUTES : Number(minutesText)
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60)
    throw new UsageError(`${o.from('oidc-session-minutes')} must be an integer 1-1440, not ${minutesText}`)
  return {
    // The issuer exactly as the provider names itself (a trailing slash matters to the ID token check).
    issuer,
    clientId,
    clientSecret,
    roleClaim,
    roles,
    sessionMs: minutes * 60_000,
    providerName: o.string('oidc-provider-name') ?? url.host,
    allowHttp
  }
}

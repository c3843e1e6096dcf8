// How the hub signs people in through the team's identity provider: the provider (its issuer
// URL, discovered), the hub's client there, the claim that carries each person's groups or
// roles, and which of its values gives which Rampdesk role.
import { TeamRole } from '../../shared/ipc/contract'

export interface OidcConfig {
  issuer: string
  clientId: string
  clientSecret: string
  /** The ID token claim (or userinfo member) whose values give the role: a string or an array of strings ("groups"). */
  roleClaim: string
  /** The claim values that give each role; several roles' values: the highest role. */
  roles: Record<TeamRole, readonly string[]>
  /** How long an access session lasts before the desktop renews it (the provider is asked again). */
  sessionMs: number
  /** What desktops call the provider ("Sign in with …"). */
  providerName: string
  /** Plain http to the provider: for a provider on this machine only (tests, a trial). */
  allowHttp: boolean
}

export const DEFAULT_SESSION_MINUTES = 15

/** Highest first: a person in the admins' and the viewers' groups is an admin. */
const RANK: readonly TeamRole[] = ['admin', 'operator', 'viewer']

/** `admin=VALUE,operator=VALUE,viewer=VALUE` (a role may be given several times); throws with what is wrong. */
export function parseRoleMap(text: string): Record<TeamRole, string[]> {
  const roles: Record<TeamRole, string[]> = { admin: [], operator: [], viewer: [] }
  for (const part of text.split(',')) {
    if (part.trim() === '') continue
    const eq = part.indexOf('=')
    const role = TeamRole.safeParse(part.slice(0, eq < 0 ? undefined : eq).trim())
    const value = eq < 0 ? '' : part.slice(eq + 1).trim()
    if (!role.success || value === '')
      throw new Error(`each entry is ROLE=VALUE with ROLE one of admin, operator, viewer: ${JSON.stringify(part.trim())} is not`)
    roles[role.data].push(value)
  }
  if (RANK.every((r) => roles[r].length === 0)) throw new Error('give at least one ROLE=VALUE')
  return roles
}

/** The values of the claim as given: a string, an array of strings, or (Keycloak's realm_access.roles) a dotted path. */
export function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  let v: unknown = claim in claims ? claims[claim] : undefined
  if (v === undefined && claim.includes('.'))
    v = claim.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), claims)
  if (typeof v === 'string') return [v]
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string')
  return []
}

/** The role these claims give, or null when none of the claim's values is one of the roles'. */
export function roleOf(config: Pick<OidcConfig, 'roleClaim' | 'roles'>, claims: Record<string, unknown>): TeamRole | null {
  const values = new Set(claimValues(claims, config.roleClaim))
  return RANK.find((r) => config.roles[r].some((v) => values.has(v))) ?? null
}

/** The values a person needs, for the message that refuses one who has none. */
export function roleValues(config: Pick<OidcConfig, 'roles'>): string[] {
  return [...new Set(RANK.flatMap((r) => config.roles[r]))]
}

export function noRoleMessage(config: Pick<OidcConfig, 'roles' | 'providerName'>): string {
  return `Your ${config.providerName} account has no Rampdesk role: ask your team lead to add you to one of: ${roleValues(config).join(', ')}`
}

// What an answer or an event may carry to an operator of each role, beyond what the role
// table (team-access.ts) decides channel by channel (docs/hub-reference.md, "Operators and roles"):
//   - admins get everything as the hub has it;
//   - operators get every URL without its user information (`https://[redacted]@host/`): a
//     webhook receiver's or a database's password, a token passed as a user name;
//   - viewers get that, and the service's base URL and host replaced by `[the service]`, so an
//     error that quotes the address the hub could not reach (a sync state, the tray's line)
//     does not give it away.
// It works on every string of an answer or event, whatever the channel, so a URL added to an
// answer later is covered without anyone remembering to; an answer with nothing to change is
// handed back as it was (no copy), which keeps a page of orders cheap.
import { isIP } from 'node:net'
import { redactUrlCredentials } from '../main/logging/redact'
import type { TeamRole } from '../shared/ipc/contract'

/** What a viewer is shown where the service's address was. */
export const SERVICE_PLACEHOLDER = '[the service]'

export type AnswerFilter = <T>(value: T) => T

const asIs: AnswerFilter = (v) => v

/** The strings that name the service: its base URL (no trailing slash), its host, its host name when it is a name. */
function serviceNames(baseUrl: string): string[] {
  const names = [baseUrl.replace(/\/+$/, '')]
  try {
    const u = new URL(baseUrl)
    names.push(u.host)
    // A bare name is quoted by DNS errors ("getaddrinfo ENOTFOUND api.example.com"); a bare
    // address or localhost would also match the hub's own URL on the same machine.
    if (u.hostname !== u.host && !isIP(u.hostname.replace(/^\[|\]$/g, '')) && u.hostname !== 'localhost') names.push(u.hostname)
  } catch {
    // not a URL: the string itself is all there is
  }
  return [...new Set(names.filter((n) => n.length >= 4))]
}

/** The filter for answers and events to an operator of `role` on a hub whose service is at `baseUrl`. */
export function answerFilter(role: TeamRole, baseUrl: string): AnswerFilter {
  if (role === 'admin') return asIs
  const names = role === 'viewer' ? serviceNames(baseUrl) : []
  const text = (s: string): string => {
    let out = s.includes('@') ? redactUrlCredentials(s) : s
    for (const n of names) if (out.includes(n)) out = out.split(n).join(SERVICE_PLACEHOLDER)
    return out
  }
  return (<T>(value: T): T => walk(value, text, 0) as T) as AnswerFilter
}

function walk(value: unknown, text: (s: string) => string, depth: number): unknown {
  if (typeof value === 'string') return text(value)
  if (value === null || typeof value !== 'object' || depth > 32) return value
  if (Array.isArray(value)) {
    let out: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const v = walk(value[i], text, depth + 1)
      if (v !== value[i]) (out ??= value.slice())[i] = v
    }
    return out ?? value
  }
  let out: Record<string, unknown> | null = null
  for (const [k, v] of Object.entries(value)) {
    const w = walk(v, text, depth + 1)
    if (w !== v) (out ??= { ...value })[k] = w
  }
  return out ?? value
}

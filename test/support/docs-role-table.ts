// The role table of docs/hub-reference.md ("Operators and roles") as a reader sees it, so tests can hold
// the code's table (src/shared/ipc/team-access.ts) and a hub's answers to it.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { channelNames, type ChannelName } from '../../src/shared/ipc/contract'
import { TEAM_ROLES, type ChannelAccess } from '../../src/shared/ipc/team-access'

/**
 * The role table of docs/hub-reference.md ("Operators and roles"), read as written: per row, the
 * channels named in backticks (`ns:*` is every channel of the namespace), each under the
 * role that row adds (never: the desktop's own).
 */
export function docsRoleTable(
  markdown = readFileSync(resolve(__dirname, '../../docs/hub-reference.md'), 'utf8')
): Map<ChannelName, ChannelAccess> {
  const lines = markdown.split('\n')
  const start = lines.findIndex((l) => /^\|\s*role\s*\|\s*channels\s*\|/.test(l))
  if (start < 0) throw new Error('docs/hub-reference.md has no role table (a row "| role | channels |")')
  const table = new Map<ChannelName, ChannelAccess>()
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    const [, who = '', what = ''] = line.split('|').map((c) => c.trim())
    const role: ChannelAccess | undefined = /never/.test(who)
      ? 'desktop'
      : (TEAM_ROLES.find((r) => new RegExp(`\\b${r}\\b`).test(who)) as ChannelAccess | undefined)
    if (!role) throw new Error(`docs/hub-reference.md's role table has a row for no role: ${who}`)
    for (const [, name] of what.matchAll(/`([^`]+)`/g)) {
      const named = name!.endsWith(':*') ? channelNames.filter((c) => c.startsWith(name!.slice(0, -1))) : [name as ChannelName]
      if (!named.length || !named.every((c) => (channelNames as readonly string[]).includes(c)))
        throw new Error(`docs/hub-reference.md's role table names ${name}, which is no channel of the contract`)
      for (const c of named) {
        if (table.has(c)) throw new Error(`docs/hub-reference.md's role table names ${c} twice`)
        table.set(c, role)
      }
    }
  }
  return table
}

/** The channels docs/hub-reference.md says a role may call on a hub: its own row and the rows before it. */
export function docsChannelsOf(role: (typeof TEAM_ROLES)[number], table = docsRoleTable()): ChannelName[] {
  const upTo = TEAM_ROLES.slice(0, TEAM_ROLES.indexOf(role) + 1) as readonly ChannelAccess[]
  return [...table].filter(([, need]) => upTo.includes(need)).map(([c]) => c)
}

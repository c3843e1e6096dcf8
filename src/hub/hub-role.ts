// The hub's role among the hubs on one store. A hub on its own SQLite data directory is the
// only hub there is, so it always leads: it runs the history sync, the ticker and
// configuration polls and the completeness work. Several hubs on one PostgreSQL database
// elect one leader through the database; the election is a HubRoleSource too, and
// /readyz, /metrics and the log read the role only through it.
export type HubRole = 'leader' | 'follower'

export interface RoleState {
  role: HubRole
  /** When the hub took this role (epoch ms). */
  since: number
  /** How the role was decided, in a few words (for /readyz). */
  detail: string
}

export interface HubRoleSource {
  current(): RoleState
  /** Called on every change of role; returns the unsubscribe function. */
  onChange(listener: (s: RoleState) => void): () => void
  close(): Promise<void>
}

/** The role of the only hub on its store: leader from the start, for good. */
export function soleHubRole(now: () => number = Date.now): HubRoleSource {
  const state: RoleState = { role: 'leader', since: now(), detail: 'the only hub on its data directory' }
  return {
    current: () => state,
    onChange: () => () => undefined,
    close: async () => undefined
  }
}

/** Whether the hub whose role this is leads now. */
export function leads(role: Pick<HubRoleSource, 'current'>): boolean {
  return role.current().role === 'leader'
}

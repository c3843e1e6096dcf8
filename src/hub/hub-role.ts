// The hub's role among the hubs on one store. A hub on its own SQLite data directory is the
// only hub there is, so it always leads: it runs the history sync, the ticker and
// configuration polls and the completeness work. Several hubs on one PostgreSQL database
// elect one leader through a lease in the database (pg/pg-election.ts); the election is a
// HubRoleSource too, and /readyz, /metrics, the log and every leader-only write read the
// role only through it.
export type HubRole = 'leader' | 'follower'

/** The lease a leader on PostgreSQL holds: its epoch fences every leader-only write and spend (pg/pg-lease.ts). */
export interface LeaseTerm {
  /** Raised by every takeover: a write or a budget claim under an older epoch is refused by the database. */
  epoch: number
  /** Who holds it: host, pid and a random tag of the hub process. */
  holder: string
}

export type RoleState =
  | {
      role: 'leader'
      /** When the hub took this role (epoch ms). */
      since: number
      /** How the role was decided, in a few words (for /readyz). */
      detail: string
      /** The lease this hub leads under; null for the only hub on its store (nothing to fence). */
      lease: LeaseTerm | null
    }
  | { role: 'follower'; since: number; detail: string }

export interface HubRoleSource {
  /**
   * The role now. A leader whose lease ran out by its own clock (it could not renew in time,
   * or the process was paused) is a follower from this call on, whether or not a timer has
   * had the chance to say so.
   */
  current(): RoleState
  /** Called on every change of role; returns the unsubscribe function. */
  onChange(listener: (s: RoleState) => void): () => void
  close(): Promise<void>
}

/** The role of the only hub on its store: leader from the start, for good. */
export function soleHubRole(now: () => number = Date.now): HubRoleSource {
  const state: RoleState = { role: 'leader', since: now(), detail: 'the only hub on its data directory', lease: null }
  return {
    current: () => state,
    onChange: () => () => undefined,
    close: async () => undefined
  }
}

/** A role decided without a lease (the only hub on its store, or a role given by hand): nothing it writes is fenced. */
export function unleasedRole(role: HubRole, since: number, detail: string): RoleState {
  return role === 'leader' ? { role, since, detail, lease: null } : { role, since, detail }
}

/** Whether the hub whose role this is leads now. */
export function leads(role: Pick<HubRoleSource, 'current'>): boolean {
  return role.current().role === 'leader'
}

// The hub's monitor follows its role. Only the leader syncs the history, polls pins and
// checks completeness; a follower stops its monitor, and starts it again when it is
// promoted, from the cursors in its order database. Changes of role are taken one at a time,
// in the order they come.
import type { ProfileSession } from '../main/profile-session'
import type { HubOrderFeed } from './hub-backend'
import type { HubLog } from './hub-log'
import { leads, type HubRoleSource, type RoleState } from './hub-role'
import type { PinStore } from './hub-store'

export interface HubFollowingOptions {
  role: HubRoleSource
  log: HubLog
  session: ProfileSession
  feed: Pick<HubOrderFeed, 'takeOver'>
  watches: Pick<PinStore, 'reconcile'>
  /** This hub leads from now on (before it takes over). */
  onLeading(): void
}

export interface HubFollowing {
  /** Resolves once the hub has settled into the role it was last given. */
  settled(): Promise<void>
  /** Stops following the role, once the change under way is done. */
  stop(): Promise<void>
}

/** Follows the role from now on; resolves once the hub has taken the role it has now. */
export async function followRole(o: HubFollowingOptions): Promise<HubFollowing> {
  const { role, session } = o
  let settling: Promise<void> = Promise.resolve()
  const follow = async (s: RoleState) => {
    if (s.role === 'leader') {
      o.onLeading()
      // Every event and row the old leader published is applied first (new ids go on after
      // its), and its sync position taken: the first sync reads on from its cursors.
      await o.feed.takeOver()
      await o.watches.reconcile(session.store.watches.list(), session.monitor)
      session.monitor.start()
    } else await session.monitor.stop()
  }
  const unfollow = role.onChange((s) => {
    settling = settling
      .then(() => follow(s))
      .catch((e: unknown) => o.log.error(`taking the role ${s.role} failed: ${(e as Error).message}`))
  })
  if (leads(role)) await follow(role.current())
  return {
    settled: () => settling,
    async stop() {
      unfollow()
      await settling
    }
  }
}

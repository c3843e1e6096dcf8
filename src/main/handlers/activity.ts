// activity:since — what changed while the operator was away (activity/activity-summary.ts),
// from the active profile's store and alerts; activity:lastLooked and activity:seen — when
// they last looked, kept by this desktop per profile (activity/last-looked.ts). The team hub
// answers activity:since from its own store with the operator's name (hub-handlers.ts).
import { ContractError, type ActivitySummary } from '../../shared/ipc/contract'
import { summarizeActivity } from '../activity/activity-summary'
import { localOperator } from '../local-operator'
import type { ProfileSession } from '../profile-session'
import { failedBetween, handlingBetween } from '../store/activity-reads'
import type { HandlerContext, HandlerSlice } from './context'

/** The summary of one store between `since` and `now`, for the operator named `me`. */
export function activitySince(session: Pick<ProfileSession, 'store' | 'alerts'>, me: string, since: number, now: number): ActivitySummary {
  if (since > now) throw new ContractError('invalid_input', 'That moment has not come yet: the summary counts from a moment before now')
  const sql = session.store.database.sql
  return summarizeActivity({
    since,
    at: now,
    me,
    failed: failedBetween(sql, since, now),
    handling: handlingBetween(sql, since, now, me),
    alerts: session.alerts.list().alerts
  })
}

export function activityHandlers(c: Pick<HandlerContext, 'ready' | 'now' | 'activeProfile' | 'lastLooked'>): HandlerSlice<'activity'> {
  return {
    'activity:since': async ({ since }) => activitySince(await c.ready(), localOperator(), since, c.now()),
    'activity:lastLooked': async () => ({ at: c.lastLooked.get(c.activeProfile().id) }),
    'activity:seen': async ({ at }) => ({ at: c.lastLooked.seen(c.activeProfile().id, Math.min(at ?? c.now(), c.now())) })
  }
}

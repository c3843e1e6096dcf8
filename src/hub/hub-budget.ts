// The hub's request budget beyond the client's own window: what the previous run spent,
// carried over in the hub's store (it still counts at the service), and, with several hubs
// on one store, the budget they share, in which every send is claimed.
import type { ApiClient } from '../main/api/client'
import type { HubBackend } from './hub-backend'
import type { HubLog } from './hub-log'
import type { HubRoleSource } from './hub-role'

/** Carries the budget over and shares it; resolves with what stops tracking it. */
export async function carryBudget(o: {
  backend: Pick<HubBackend, 'store' | 'fenceBy'>
  role: Pick<HubRoleSource, 'current'>
  client: ApiClient
  log: HubLog
  now: () => number
}): Promise<() => void> {
  const { store } = o.backend
  const { budget } = o.client
  // Before anything is sent: what the previous run spent still counts at the service.
  const carried = await store.budgetCarry.restore(budget)
  if (carried) o.log.info(`carried ${carried} request slot${carried === 1 ? '' : 's'} of the last minute over from the previous run`)
  const untrack = store.budgetCarry.track(budget)
  o.backend.fenceBy(o.role)
  if (store.sharedBudget) {
    let loggedAt = -Infinity
    budget.share(store.sharedBudget, (e) => {
      if (o.now() - loggedAt < 60_000) return
      loggedAt = o.now()
      o.log.error(`the request budget shared with the other hubs does not answer: ${(e as Error).message}; requests wait for it`)
    })
  }
  return untrack
}

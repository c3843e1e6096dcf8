// A request budget shared by several processes spending one API key (team hubs on one
// PostgreSQL database: src/hub/pg/pg-shared-budget.ts). The RateBudget consults it, when it
// is given one, after its own limit allows a request and before the request is sent: the
// service counts every process's requests in one window, so each must be claimed there.
// A claim may also be refused outright: a hub that no longer leads may not send what only
// the leader sends, however much budget is left.
import type { EndpointName } from '../../shared/api/endpoints'

export type SharedClaim =
  | { ok: true }
  | { ok: false; /** When a send may fit again, from now. */ waitMs: number }
  | { ok: false; /** Why this process may not send it at all (nothing is sent, nothing retried). */ refused: string }

export interface SharedBudget {
  /** Takes one of `limit` sends of `endpoint` in the sliding window of `windowMs`, across every process sharing it. */
  claim(endpoint: EndpointName, limit: number, windowMs: number): Promise<SharedClaim>
}

// A request budget shared by several processes spending one API key (team hubs on one
// PostgreSQL database: src/hub/pg/pg-shared-budget.ts). The RateBudget consults it, when it
// is given one, after its own limit allows a request and before the request is sent: the
// service counts every process's requests in one window, so each must be claimed there.
import type { EndpointName } from '../../shared/api/endpoints'

export type SharedClaim = { ok: true } | { ok: false; /** When a send may fit again, from now. */ waitMs: number }

export interface SharedBudget {
  /** Takes one of `limit` sends of `endpoint` in the sliding window of `windowMs`, across every process sharing it. */
  claim(endpoint: EndpointName, limit: number, windowMs: number): Promise<SharedClaim>
}

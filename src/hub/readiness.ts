// GET /readyz: whether this hub should be sent desktops. Three checks, each in the answer:
//   - store: the hub's store answers a query and its schema is the one this hub migrates to;
//   - upstream: the merchant's service answered the hub's latest request (upstream-health.ts);
//   - role: leader or follower (hub-role.ts), with the lease's epoch when it leads on
//     PostgreSQL. Either serves desktops: a follower is ready;
//   - secondFactorKey: the hub's second-factor.key opens the second factors in its store
//     (second-factor-health.ts): a hub that cannot check codes is not sent desktops.
// The answer is worked out at most once a second however often it is asked, so a stranger
// hammering /readyz costs a cached object, not queries.
import type { HubRole, HubRoleSource } from './hub-role'

export interface ReadinessCheck {
  ok: boolean
  detail: string
  [fact: string]: unknown
}

export interface Readiness {
  ok: boolean
  role: HubRole
  checks: { store: ReadinessCheck; upstream: ReadinessCheck; role: ReadinessCheck; secondFactorKey?: ReadinessCheck }
}

export interface ReadinessSources {
  store(): ReadinessCheck
  upstream(): ReadinessCheck
  role: Pick<HubRoleSource, 'current'>
  secondFactorKey?: () => ReadinessCheck
  now?: () => number
  /** How long an answer is reused. Default 1 s. */
  cacheMs?: number
}

/** A check that threw: not ready, and why. */
function guarded(check: () => ReadinessCheck): ReadinessCheck {
  try {
    return check()
  } catch (e) {
    return { ok: false, detail: e instanceof Error ? e.message : String(e) }
  }
}

export function readinessProbe(s: ReadinessSources): () => Readiness {
  const now = s.now ?? Date.now
  const cacheMs = s.cacheMs ?? 1_000
  let cached: { at: number; value: Readiness } | null = null
  return () => {
    const at = now()
    if (cached && at - cached.at < cacheMs) return cached.value
    const role = s.role.current()
    const checks = {
      store: guarded(s.store),
      upstream: guarded(s.upstream),
      role: {
        ok: true,
        detail: role.detail,
        role: role.role,
        since: role.since,
        // The lease this hub leads under (hubs on PostgreSQL): a takeover raises it.
        ...(role.role === 'leader' && role.lease ? { epoch: role.lease.epoch } : {})
      },
      ...(s.secondFactorKey ? { secondFactorKey: guarded(s.secondFactorKey) } : {})
    }
    const value: Readiness = {
      ok: checks.store.ok && checks.upstream.ok && checks.role.ok && (checks.secondFactorKey?.ok ?? true),
      role: role.role,
      checks
    }
    cached = { at, value }
    return value
  }
}

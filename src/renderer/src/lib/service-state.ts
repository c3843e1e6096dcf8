// What stands between the operator and the service, in one word and the one action that
// helps: a team token revoked, the team's hub out of reach, no secret stored yet, the
// service down, the service slow to answer, or nothing synced yet. Worked out from what
// the window already knows (the sync states, the team line, how long the configuration
// has been awaited), most pressing first. Pure, so each state is unit-tested; the views
// show it (ServiceNotice in the header, the orders table, the quote form).
import { counted } from '../../../shared/domain/plural'
import { refusalSentence, refusalWords } from '../../../shared/access-end'
import type { BudgetEntry, Coverage, ErrorInfo, SyncState, TeamAccess } from '../../../shared/ipc/contract'

export type ServiceProblem =
  | { kind: 'revoked'; error: ErrorInfo | null }
  | { kind: 'hub-down'; error: ErrorInfo | null }
  | { kind: 'no-secret'; error: ErrorInfo }
  | { kind: 'service-down'; error: ErrorInfo }
  | { kind: 'service-slow'; waitingMs: number }
  /** No scope has finished its first sync: `orders` are already here (the first sync writes as it reads). */
  | { kind: 'never-synced'; running: boolean; orders: number }

export interface ServiceInputs {
  sync: readonly SyncState[]
  /** The scopes' coverage: a probe's error stands for the sync's before any scope is found. */
  coverage?: Pick<Coverage, 'probeError' | 'scopes'> | null
  access: TeamAccess | null
  /** Since when the configuration has been awaited without an answer (null: it answered). */
  configWaitingSince: number | null
  now: number
}

/** No answer to the configuration for this long is slow: it usually takes well under a second. */
export const SLOW_AFTER_MS = 5000

/** Errors that say the service cannot be reached or is down, rather than refusing one request. */
function serviceDown(e: ErrorInfo): boolean {
  if (e.kind === 'network' || e.kind === 'timeout') return true
  const status = e.code ?? e.httpStatus
  return (e.kind === 'http' || e.kind === 'api') && status !== undefined && (status >= 500 || status === 503)
}

/**
 * Nothing synced yet: every scope's sync still to complete its first run, or no scope found
 * yet while some may hold orders (not probed, probing, or failing). A merchant whose every
 * scope was probed empty has synced all there is: nothing.
 */
export function nothingSynced(sync: readonly SyncState[], coverage: Pick<Coverage, 'scopes'> | null | undefined): boolean {
  if (sync.length > 0) return sync.every((s) => s.lastSuccessAt === null)
  const scopes = coverage?.scopes ?? []
  return scopes.length === 0 || scopes.some((s) => s.probe === 'unprobed' || s.probe === 'probing' || s.probe === 'failed')
}

export function serviceProblem(i: ServiceInputs): ServiceProblem | null {
  const errors = i.sync.flatMap((s) => (s.lastError ? [s.lastError] : []))
  if (i.coverage?.probeError) errors.push(i.coverage.probeError)
  const line = i.access?.team?.line
  const revoked = errors.find((e) => e.kind === 'access_revoked')
  if (line === 'revoked' || revoked) return { kind: 'revoked', error: revoked ?? null }
  const hub = errors.find((e) => e.kind === 'hub_unreachable')
  if (line === 'unreachable' || hub) return { kind: 'hub-down', error: hub ?? null }
  const secret = errors.find((e) => e.kind === 'missing_secret')
  if (secret) return { kind: 'no-secret', error: secret }
  const down = errors.find(serviceDown)
  if (down) return { kind: 'service-down', error: down }
  if (i.configWaitingSince !== null && i.now - i.configWaitingSince >= SLOW_AFTER_MS)
    return { kind: 'service-slow', waitingMs: i.now - i.configWaitingSince }
  if (nothingSynced(i.sync, i.coverage)) return neverSynced(i.sync, i.coverage)
  return null
}

/**
 * The first sync as it stands: whether it runs, and the orders it already brought (of one
 * type, where one type's orders are shown, so the count agrees with the table's).
 */
export function neverSynced(
  sync: readonly SyncState[],
  coverage: Pick<Coverage, 'scopes'> | null | undefined,
  type: 1 | 2 | null = null
): Extract<ServiceProblem, { kind: 'never-synced' }> {
  return {
    kind: 'never-synced',
    running: sync.some((s) => s.running),
    orders: (coverage?.scopes ?? []).filter((s) => type === null || s.type === type).reduce((n, s) => n + s.orders, 0)
  }
}

/** The header's marks beside the sync time: a wait for the request budget, and scopes failing. */
export interface SyncMarks {
  /** Requests wait for their budget: for how long at most, and on which endpoints (null: none wait). */
  budget: { waitMs: number | null; endpoints: string[] } | null
  /** Scopes whose last sync failed, with their errors (null: none, or the notice under the header says why). */
  failing: { errors: ErrorInfo[] } | null
  /** A sync runs (false while the notice says the sync cannot reach the service: its retries are not news). */
  syncing: boolean
}

/** Waiting for our own request budget is normal operation, not a failure. */
export const waitsForBudget = (e: ErrorInfo | null): boolean => e?.kind === 'rate_limited' && e.origin === 'budget'

/**
 * What the header marks, said once: while a problem stops the sync (the service or the hub
 * out of reach, access revoked, no secret), the notice under the header names it, and
 * neither a budget wait (requests held back while the service does not answer are not
 * waiting for the budget) nor a count of failing scopes is shown beside it.
 */
export function syncMarks(i: {
  sync: readonly SyncState[]
  budget: readonly BudgetEntry[]
  problem: ServiceProblem | null
  now: number
}): SyncMarks {
  const blocking = i.problem !== null && i.problem.kind !== 'service-slow' && i.problem.kind !== 'never-synced'
  if (blocking) return { budget: null, failing: null, syncing: false }
  const endpoints = i.budget.filter((b) => b.queued > 0 || (b.blockedUntil !== null && b.blockedUntil > i.now)).map((b) => b.endpoint)
  const waiting = i.sync.some((s) => waitsForBudget(s.lastError)) || endpoints.length > 0
  const until = i.budget.map((b) => b.blockedUntil ?? b.nextSlotAt ?? 0).filter((t) => t > i.now)
  const errors = i.sync.flatMap((s) =>
    s.lastError !== null && !waitsForBudget(s.lastError) && s.lastError.kind !== 'aborted' ? [s.lastError] : []
  )
  return {
    budget: waiting ? { waitMs: until.length ? Math.max(...until) - i.now : null, endpoints } : null,
    failing: errors.length ? { errors } : null,
    syncing: i.sync.some((s) => s.running)
  }
}

/** What the one helpful action does: go to a view, sync now, or ask main to try the line again. */
export type ProblemAction = { kind: 'go'; href: string; label: string } | { kind: 'sync'; label: string } | { kind: 'retry'; label: string }

export interface ProblemNotice {
  title: string
  text: string
  action: ProblemAction | null
  /** An error (red) or a state to know (amber). */
  tone: 'failure' | 'attention'
}

/** The problem in the operator's words, with the one action that helps (none where only waiting helps). `count` writes a number in the operator's locale. */
export function problemNotice(p: ServiceProblem, count: (n: number) => string = (n) => n.toLocaleString('en-US')): ProblemNotice {
  switch (p.kind) {
    case 'revoked': {
      const ended = p.error ? refusalSentence(p.error) : null
      if (ended)
        return {
          title: refusalWords(p.error?.reason)!.title,
          text: ended,
          action: { kind: 'go', href: '#/settings', label: 'Open Settings' },
          tone: 'failure'
        }
      return {
        title: 'Your access was revoked',
        text: "The team hub no longer accepts this desktop's operator token. Ask your team's admin for a new one and store it in Settings → Credentials.",
        action: { kind: 'go', href: '#/settings', label: 'Open Settings' },
        tone: 'failure'
      }
    }
    case 'hub-down':
      return {
        title: "Your team's hub cannot be reached",
        text: "What you see was last synced through the hub, and whether every order is here cannot be known until it answers; Rampdesk reconnects by itself. If it stays away, ask your team's admin whether the hub is running.",
        action: { kind: 'retry', label: 'Reconnect now' },
        tone: 'failure'
      }
    case 'no-secret':
      return {
        title: 'No API secret stored yet',
        text: 'Nothing is sent to the service until the secret of this profile is stored. Your provider gives it with the API key.',
        action: { kind: 'go', href: '#/settings', label: 'Add the secret' },
        tone: 'attention'
      }
    case 'service-down':
      return {
        title: downTitle(p.error),
        text: "Orders, prices and quotes shown are from its last answer; Rampdesk tries again by itself. If it lasts, check this computer's internet connection; Diagnostics has the details for support.",
        action: { kind: 'sync', label: 'Try again now' },
        tone: 'failure'
      }
    case 'service-slow':
      return {
        title: 'The service is slow to answer',
        text: `No answer to the configuration for ${Math.round(p.waitingMs / 1000)} s: prices, quotes and address rules wait for it. Rampdesk keeps waiting; Diagnostics shows each endpoint's latency.`,
        action: { kind: 'go', href: '#/diagnostics', label: 'Open Diagnostics' },
        tone: 'attention'
      }
    case 'never-synced': {
      const so = counted(p.orders, 'order', count)
      if (p.running)
        return {
          title: p.orders > 0 ? `Syncing: ${so} so far` : 'No orders synced yet',
          text: `The first sync of the order history is running; ${p.orders > 0 ? 'the rest show' : 'orders show'} as its pages arrive.`,
          action: null,
          tone: 'attention'
        }
      return {
        title: p.orders > 0 ? `${so} so far: the first sync has not finished` : 'No orders synced yet',
        text: p.orders > 0 ? 'The rest are read at the next sync.' : 'The order history has not been read from the service yet.',
        action: { kind: 'sync', label: 'Sync now' },
        tone: 'attention'
      }
    }
  }
}

/** What the service being down is called, from how it failed: maintenance, trouble on its side, or out of reach. */
function downTitle(e: ErrorInfo): string {
  const status = e.code ?? e.httpStatus
  if (status === 503) return 'The service is down for maintenance'
  if (e.kind === 'api' || e.kind === 'http') return 'The service is having trouble'
  return e.kind === 'timeout' ? 'The service does not answer' : 'The service cannot be reached'
}

// Whether every order is here, said quietly until it matters: one line where orders are
// shown ("All orders here · checked 05:28"), none in the tray when all is well, and when
// something may be missing, one line naming what and what Rampdesk is doing about it,
// with its progress and an estimate ("INR orders may be missing: reading them again, 3 of
// 12 pages, about 2 min"). Worked out from the coverage (scopes, their audits, the known
// gaps) and the sync states, most pressing first; the per-fiat detail and the technical
// gap texts stay on demand and in Diagnostics. Pure: the orders view, the tray popover
// and the tray's tooltip (main) word it the same way.
import { auditOverdue } from './coverage-text'
import { counted, nounFor, type Noun } from './plural'
import type { Coverage, ScopeCoverage, SyncState } from '../ipc/contract'

/** A (type, fiat) scope; fiatType 0 is every fiat of the type. */
export interface ScopeKey {
  type: 1 | 2
  fiatType: number
}

/** How the line writes times, counts and fiats, in the operator's locale. */
export interface ProofWords {
  /** A time of day ("05:28"). */
  time: (ms: number) => string
  /** A whole count ("49,291"). */
  count: (n: number) => string
  /** A fiat's code ("INR"). */
  fiat: (id: number) => string
}

/** What is known of the orders being all here, one state at a time, most pressing first. */
export type Proof =
  /** No coverage known yet (a hub of an older version has none). */
  | { kind: 'unknown' }
  /** Every scope holding orders is audited complete, and nothing else is known missing. */
  | { kind: 'complete'; checkedAt: number | null }
  /** The service holds no orders of this kind (every scope probed empty). */
  | { kind: 'none-held' }
  /** A Team profile's hub is out of reach: nothing can be known until it answers (the notice above says so). */
  | { kind: 'hub' }
  /** Scopes still in their first sync, with the orders here so far. */
  | { kind: 'syncing'; scopes: ScopeKey[]; orders: number; all: boolean }
  /** A scope read again end to end because orders were found missing. */
  | { kind: 'repairing'; scope: ScopeKey; page: number; pages: number; etaMs: number | null }
  /** A scope whose count differs from the service's, not being read again now. */
  | { kind: 'missing'; scope: ScopeKey; missing: number; unlisted: number; nextAt: number | null }
  /** Scopes the service was not asked about yet, could not be asked about, or refuses though an order was seen there. */
  | { kind: 'probe'; scopes: ScopeKey[]; state: 'asking' | 'failed' | 'refused'; nextAt: number | null }
  /** Scopes whose last check could not finish. */
  | { kind: 'check-failed'; scopes: ScopeKey[]; nextAt: number | null }
  /** Scopes whose check runs past AUDIT_OVERDUE_MS. */
  | { kind: 'overdue'; scopes: ScopeKey[]; givenUpAt: number | null }
  /** Open orders whose status the service did not confirm in time, or cannot. */
  | { kind: 'freshness'; stale: number; unconfirmable: number; boundMinutes: number }
  /** Checks running now, of how many. */
  | { kind: 'checking'; scopes: ScopeKey[]; done: number; total: number }
  /** Scopes synced but not yet compared with the service, with when the first check runs. */
  | { kind: 'unchecked'; scopes: ScopeKey[]; firstAt: number | null; all: boolean }
  /** How the service lists its history is still being checked. */
  | { kind: 'reading' }

export interface ProofInputs {
  coverage: Pick<Coverage, 'scopes' | 'gaps' | 'freshness'> | null
  sync: readonly Pick<SyncState, 'type' | 'fiatType' | 'lastSuccessAt' | 'running' | 'lastError'>[]
  /** One type's orders (the orders view), or both (null: the tray). */
  type: 1 | 2 | null
  now: number
}

/** Listed where orders are shown: every scope but those known to hold none. */
const shown = (s: Pick<ScopeCoverage, 'probe' | 'revealed'>): boolean => s.probe !== 'empty' && (s.probe !== 'refused' || !!s.revealed)
const keyOf = (s: ScopeKey): ScopeKey => ({ type: s.type, fiatType: s.fiatType })

/**
 * Everything known of the orders being here, most pressing first: the first is the line
 * shown, the rest are counted beside it and listed on demand. `complete`, `none-held` and
 * `unknown` come alone.
 */
export function proofStates(i: ProofInputs): Proof[] {
  const c = i.coverage
  if (!c) return [{ kind: 'unknown' }]
  const mine = <T extends { type: number | null }>(x: T) => i.type === null || x.type === null || x.type === i.type
  const scopes = c.scopes.filter((s) => mine(s) && shown(s))
  const gaps = c.gaps.filter(mine)
  const out: Proof[] = []
  if (gaps.some((g) => g.kind === 'hub')) out.push({ kind: 'hub' })

  const firstSync = i.sync.filter((s) => mine(s) && s.lastSuccessAt === null && (s.running || s.lastError === null))
  if (firstSync.length)
    out.push({
      kind: 'syncing',
      scopes: firstSync.map(keyOf),
      orders: scopes.reduce((n, s) => n + s.orders, 0),
      all: firstSync.length >= i.sync.filter(mine).length
    })
  const synced = (s: ScopeCoverage) => !firstSync.some((f) => f.type === s.type && f.fiatType === s.fiatType)

  for (const s of scopes.filter((s) => s.probe === 'active' && s.audit.state === 'repairing')) {
    const r = s.audit.repair ?? { page: 0, pages: 0 }
    const started = s.audit.startedAt ?? null
    const etaMs = r.page > 0 && started !== null && r.pages > r.page ? ((i.now - started) / r.page) * (r.pages - r.page) : null
    out.push({ kind: 'repairing', scope: keyOf(s), page: r.page, pages: r.pages, etaMs })
  }
  for (const s of scopes.filter((s) => s.probe === 'active' && s.audit.state === 'incomplete')) {
    const held = s.orders
    const service = s.audit.serviceOrders ?? held
    out.push({
      kind: 'missing',
      scope: keyOf(s),
      missing: Math.max(0, service - held),
      unlisted: Math.max(0, held - service),
      nextAt: s.audit.nextAt
    })
  }
  const probing = (state: 'asking' | 'failed' | 'refused', test: (s: ScopeCoverage) => boolean) => {
    const hit = scopes.filter(test)
    if (!hit.length) return
    const next = hit.map((s) => s.nextProbeAt).filter((t): t is number => t !== null)
    out.push({ kind: 'probe', scopes: hit.map(keyOf), state, nextAt: next.length ? Math.min(...next) : null })
  }
  probing('refused', (s) => s.probe === 'refused')
  probing('failed', (s) => s.probe === 'failed')
  probing('asking', (s) => s.probe === 'unprobed' || s.probe === 'probing')

  const active = scopes.filter((s) => s.probe === 'active' && synced(s))
  const overdue = active.filter((s) => auditOverdue(s.audit, i.now))
  if (overdue.length) {
    const started = overdue.map((s) => s.audit.startedAt).filter((t): t is number => t != null)
    out.push({ kind: 'overdue', scopes: overdue.map(keyOf), givenUpAt: started.length ? Math.min(...started) + OVERDUE_GIVE_UP_MS : null })
  }
  const failed = active.filter(
    (s) => s.audit.error !== null && s.audit.startedAt == null && (s.audit.state === 'complete' || s.audit.state === 'unchecked')
  )
  if (failed.length) out.push({ kind: 'check-failed', scopes: failed.map(keyOf), nextAt: earliest(failed.map((s) => s.audit.nextAt)) })

  const f = c.freshness
  if (f.stale > 0 || (f.unconfirmable ?? 0) > 0)
    out.push({ kind: 'freshness', stale: f.stale, unconfirmable: f.unconfirmable ?? 0, boundMinutes: f.boundMinutes })

  const checking = active.filter((s) => s.audit.state === 'checking' && !auditOverdue(s.audit, i.now))
  if (checking.length)
    out.push({
      kind: 'checking',
      scopes: checking.map(keyOf),
      done: active.filter((s) => s.audit.state === 'complete').length,
      total: active.length
    })
  const unchecked = active.filter((s) => s.audit.state === 'unchecked' && s.audit.error === null)
  if (unchecked.length)
    out.push({
      kind: 'unchecked',
      scopes: unchecked.map(keyOf),
      firstAt: earliest(unchecked.map((s) => s.audit.nextAt)),
      all: unchecked.length === scopes.length
    })
  if (gaps.some((g) => g.kind === 'reading')) out.push({ kind: 'reading' })

  if (out.length) return out
  if (!scopes.length) return [{ kind: 'none-held' }]
  return [{ kind: 'complete', checkedAt: earliest(scopes.map((s) => s.audit.checkedAt)) }]
}

/** The check given up this long after it began (AUDIT_TIMEOUT_MS). */
const OVERDUE_GIVE_UP_MS = 15 * 60_000

const earliest = (ts: readonly (number | null | undefined)[]): number | null => {
  const t = ts.filter((x): x is number => typeof x === 'number')
  return t.length ? Math.min(...t) : null
}

/** "under a minute", "about 2 min", "about 3 h". */
export function aboutText(ms: number): string {
  if (ms < 60_000) return 'under a minute'
  const min = Math.round(ms / 60_000)
  if (min < 90) return `about ${min} min`
  return `about ${Math.round(min / 60)} h`
}

export interface ProofLine {
  text: string
  /** success: all here; progress: being done, nothing known missing; attention: orders may be missing. */
  tone: 'success' | 'progress' | 'attention'
}

/**
 * One state in a line. `both` names each scope with its type ("onramp INR"), for where
 * both types are read together (the tray); otherwise the fiat alone.
 */
export function proofText(p: Proof, w: ProofWords, o: { both: boolean; now: number }): ProofLine {
  const name = (s: ScopeKey) => {
    const fiat = s.fiatType === 0 ? 'every fiat' : w.fiat(s.fiatType)
    return o.both ? `${s.type === 1 ? 'onramp' : 'offramp'} ${fiat}` : fiat
  }
  const more = o.both ? undefined : 'fiat'
  const names = (ss: readonly ScopeKey[]) => listText(ss.map(name), more)
  /** "INR orders", "orders in INR, TRY and 6 more fiats"; "orders" when they are every scope shown. */
  const ordersOf = (ss: readonly ScopeKey[], all = false) =>
    all ? 'orders' : ss.length === 1 ? `${name(ss[0]!)} orders` : `orders in ${names(ss)}`
  /** "at 07:42 (in about 4 min)", or "shortly" for a time already reached. */
  const at = (t: number | null) => (t === null || t <= o.now ? 'shortly' : `at ${w.time(t)} (in ${aboutText(t - o.now)})`)
  const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1)
  switch (p.kind) {
    case 'unknown':
      return { text: 'Whether every order is here is not known yet', tone: 'progress' }
    case 'complete':
      return { text: `All orders here${p.checkedAt !== null ? ` · checked ${w.time(p.checkedAt)}` : ''}`, tone: 'success' }
    case 'none-held':
      return { text: 'The service holds no orders here', tone: 'success' }
    case 'hub':
      return { text: "Whether every order is here cannot be known until your team's hub answers", tone: 'attention' }
    case 'syncing':
      return { text: `Syncing ${ordersOf(p.scopes, p.all)}: ${counted(p.orders, 'order', w.count)} here so far`, tone: 'progress' }
    case 'repairing': {
      const progress = p.pages > 0 ? `, ${p.page} of ${counted(p.pages, 'page', w.count)}` : ''
      const eta = p.etaMs !== null ? `, ${aboutText(p.etaMs)}` : p.page === 0 ? ', starting' : ''
      return { text: `${cap(ordersOf([p.scope]))} may be missing: reading them again from the service${progress}${eta}`, tone: 'attention' }
    }
    case 'missing': {
      const what =
        p.missing > 0
          ? `${counted(p.missing, 'order', w.count)} may be missing from ${name(p.scope)}: the service counts more than are here`
          : `${cap(ordersOf([p.scope]))} may be missing: ${w.count(p.unlisted)} here ${p.unlisted === 1 ? 'is' : 'are'} no longer listed by the service`
      return { text: `${what}${p.nextAt !== null ? `; checked again ${at(p.nextAt)}` : ''}`, tone: 'attention' }
    }
    case 'probe': {
      const why =
        p.state === 'asking'
          ? 'asking the service whether it holds any'
          : p.state === 'failed'
            ? `the service could not be asked; asked again ${at(p.nextAt)}`
            : 'one was seen there, but the service refuses to list them'
      return { text: `${cap(ordersOf(p.scopes))} may be missing: ${why}`, tone: p.state === 'asking' ? 'progress' : 'attention' }
    }
    case 'check-failed':
      return {
        text: `The last check of ${ordersOf(p.scopes)} against the service could not finish; tried again ${at(p.nextAt)}`,
        tone: 'attention'
      }
    case 'overdue':
      return {
        text: `Checking ${ordersOf(p.scopes)} is slow: the service is slow to answer${p.givenUpAt !== null ? `; given up at ${w.time(p.givenUpAt)} and tried again later` : ''}`,
        tone: 'attention'
      }
    case 'freshness': {
      const parts = [
        p.stale > 0
          ? `${counted(p.stale, 'open order', w.count)} not confirmed by the service in the last ${p.boundMinutes} min: asking again`
          : null,
        p.unconfirmable > 0 ? `${counted(p.unconfirmable, 'open order', w.count)} the service cannot confirm: asked again in turn` : null
      ].filter((x): x is string => x !== null)
      return { text: parts.join('; '), tone: 'attention' }
    }
    case 'checking':
      return {
        text: `Checking that every order is here: ${p.done} of ${o.both ? p.total : counted(p.total, 'fiat', w.count)} done`,
        tone: 'progress'
      }
    case 'unchecked':
      return {
        text: `${cap(ordersOf(p.scopes, p.all))} not yet checked against the service: first check ${at(p.firstAt)}`,
        tone: 'progress'
      }
    case 'reading':
      return { text: 'Checking how the service lists orders, so that none is skipped', tone: 'progress' }
  }
}

/** "INR", "INR and TRY", "INR, TRY, AED and MXN", "INR, TRY and 6 more fiats". */
export function listText(items: readonly string[], more?: Noun): string {
  if (items.length <= 1) return items[0] ?? ''
  if (items.length === 2) return `${items[0]} and ${items[1]}`
  if (items.length <= 4) return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
  const n = items.length - 2
  return `${items[0]}, ${items[1]} and ${n} more${more !== undefined ? ` ${nounFor(n, more)}` : ''}`
}

/**
 * One scope on demand (the orders view's "Per fiat" list): its orders here and how its
 * check stands, in the operator's words ("52,380 orders · complete, checked 07:42"). The
 * technical sentence (auditText, with any error) is in Diagnostics.
 */
export function scopeDetail(
  s: Pick<ScopeCoverage, 'audit' | 'orders' | 'probe' | 'revealed' | 'nextProbeAt'>,
  w: ProofWords,
  now: number
): string {
  const n = counted(s.orders, 'order', w.count)
  const a = s.audit
  switch (s.probe) {
    case 'unprobed':
    case 'probing':
      return 'asking the service whether it holds any'
    case 'empty':
      return 'none at the service'
    case 'failed':
      return 'the service could not be asked whether it holds any'
    case 'refused':
      return s.revealed ? 'one was seen, but the service refuses to list them' : 'not offered by the service'
    case 'active':
      break
  }
  switch (a.state) {
    case 'complete':
      return a.error !== null
        ? `${n} · the last check could not finish`
        : `${n} · complete${a.checkedAt !== null ? `, checked ${w.time(a.checkedAt)}` : ''}`
    case 'repairing':
      return `${n} · reading again${a.repair && a.repair.pages > 0 ? `, ${a.repair.page} of ${counted(a.repair.pages, 'page', w.count)}` : ''}`
    case 'incomplete': {
      const service = a.serviceOrders ?? s.orders
      return service > s.orders
        ? `${n} · ${w.count(service - s.orders)} may be missing`
        : `${n} · ${w.count(s.orders - service)} no longer listed by the service`
    }
    case 'checking':
      return auditOverdue(a, now) ? `${n} · checking, the service is slow to answer` : `${n} · checking now`
    case 'unchecked':
      return a.error !== null
        ? `${n} · the first check could not finish`
        : `${n} · not checked yet${a.nextAt !== null && a.nextAt > now ? `, first check at ${w.time(a.nextAt)}` : ''}`
  }
}

/** Whether a scope's detail is one to look at (something may be missing there). */
export const scopeNeedsLook = (s: Pick<ScopeCoverage, 'audit' | 'probe' | 'revealed'>, now: number): boolean =>
  s.probe === 'failed' ||
  (s.probe === 'refused' && !!s.revealed) ||
  (s.probe === 'active' &&
    (s.audit.state === 'incomplete' ||
      s.audit.state === 'repairing' ||
      auditOverdue(s.audit, now) ||
      (s.audit.error !== null && s.audit.startedAt == null)))

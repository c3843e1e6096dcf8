// Whether this hub's second-factor.key opens the second factors in its store: checked at start,
// again every RECHECK_MS, and whenever a stored one does not open when it is needed (another
// hub, with another key, enrolled it since). A hub given the wrong key file (a data directory
// restored without it, hubs on one database with different files) would otherwise refuse
// every code; instead it says so where the team lead looks, one line per key that does not
// match, naming the key file and what to do:
//
//   second-factor.key does not open the second factors of ada, bo: /var/lib/rampdesk-hub/second-factor.key
//   (key id 1a2b…) is not the key that sealed them (key id 3c4d…); copy second-factor.key from the hub
//   that enrolled them into this hub's data directory and restart it. Until then this hub
//   refuses their second-factor codes as unavailable.
//
// and counts them (rampdesk_hub_second_factor_unopenable). /readyz reports the hub not ready
// (check secondFactorKey) only when its key opens none of the stored second factors, the wrong
// key file for the whole team, so that a load balancer sends desktops to a hub that can check
// codes; one stale secret (an operator enrolled under a key since replaced) must not take every
// hub on the database out of service. /readyz answers anyone, so its detail names no operator
// and no path: those are in the log line. Enrolments under way that expired are dropped at each
// check (nobody can finish them), so one sealed with a replaced key is not counted either.
// The hub still starts: operators who need no second factor keep working through it, and a
// desktop is told that codes cannot be checked now (second_factor_unavailable), never that its
// operator is not enrolled.
import type { HubLog } from './hub-log'
import type { ReadinessCheck } from './readiness'
import type { SecondFactorStore } from './second-factor'
import type { SecondFactorKeyCheck, SecondFactorKeyMismatch } from './second-factor-key'

export const RECHECK_MS = 60_000

export interface SecondFactorKeyHealth {
  /** For /readyz. */
  check(): ReadinessCheck
  /** The operators whose stored second factor this hub's key does not open (for /metrics). */
  unopenable(): number
  /** Checks the stored second factors again now (at start, and on the timer). */
  recheck(): Promise<void>
  close(): void
}

/** What /readyz says when the key opens none of the stored second factors: no names, no paths. */
export const KEY_NOT_READY = "second-factor.key does not open the stored second factors; see the hub's log"

/** The log line for the second factors one key id sealed (null: the key matched, the secret was altered). */
export function keyMismatchLine(found: readonly SecondFactorKeyMismatch[]): string {
  const first = found[0]!
  const names = [...new Set(found.map((f) => f.operator))].join(', ')
  const cause =
    first.sealedWith === null
      ? `they do not open with ${first.file}: they were altered, or sealed with an earlier key that file once held`
      : `${first.file} is not the key that sealed them (key id ${first.sealedWith})`
  return (
    `second-factor.key does not open the second factors of ${names}: ${cause}; copy second-factor.key from the hub ` +
    `that enrolled them into this hub's data directory and restart it (or enrol them again). Until then this hub ` +
    `refuses their second-factor codes as unavailable.`
  )
}

export async function watchSecondFactorKey(o: {
  store: SecondFactorStore
  log: Pick<HubLog, 'error' | 'info'>
  recheckMs?: number
  now?: () => number
}): Promise<SecondFactorKeyHealth> {
  const now = o.now ?? Date.now
  /** What does not open, by the key id that sealed it ('' for altered secrets). */
  let problems = new Map<string, SecondFactorKeyMismatch[]>()
  /** The operators (lower case) whose second factor opened at the last check and has not failed since. */
  let opened = new Set<string>()
  const logged = new Set<string>()
  const report = () => {
    for (const [id, found] of problems) {
      if (logged.has(id)) continue
      logged.add(id)
      o.log.error(keyMismatchLine(found), { keyFile: found[0]!.file, sealedWith: found[0]!.sealedWith })
    }
  }
  const unopenableNames = () => new Set([...problems.values()].flat().map((f) => f.operator.toLowerCase()))
  /** Why the stored second factors could not be checked at all (the key file unreadable, say), or null. */
  let failure: string | null = null
  const recheck = async () => {
    let found: SecondFactorKeyCheck
    try {
      found = await o.store.keyCheck(now())
    } catch (e) {
      const why = `could not check the stored second factors against second-factor.key: ${(e as Error).message}`
      if (why !== failure) o.log.error(why)
      failure = why
      return
    }
    failure = null
    const before = problems.size
    problems = new Map()
    opened = new Set(found.opened.map((n) => n.toLowerCase()))
    for (const f of found.unopenable) problems.set(f.sealedWith ?? '', [...(problems.get(f.sealedWith ?? '') ?? []), f])
    for (const id of logged) if (!problems.has(id)) logged.delete(id)
    if (before > 0 && problems.size === 0) o.log.info('second-factor.key opens every stored second factor again')
    report()
  }
  o.store.onKeyMismatch((e) => {
    const id = e.sealedWith ?? ''
    const known = problems.get(id) ?? []
    if (!known.some((k) => k.operator.toLowerCase() === e.operator.toLowerCase())) problems.set(id, [...known, e])
    opened.delete(e.operator.toLowerCase())
    report()
  })
  await recheck()
  const timer = setInterval(() => void recheck(), o.recheckMs ?? RECHECK_MS)
  timer.unref()
  return {
    check() {
      // The error itself (the key file unreadable, say) names the file: /readyz gets the generic words.
      if (failure !== null) return { ok: false, detail: "could not check the stored second factors; see the hub's log" }
      const bad = unopenableNames().size
      if (bad === 0) return { ok: true, detail: 'second-factor.key opens every stored second factor' }
      if (opened.size === 0) return { ok: false, detail: KEY_NOT_READY }
      return { ok: true, detail: "second-factor.key does not open some stored second factors; see the hub's log" }
    },
    unopenable: () => unopenableNames().size,
    recheck,
    close: () => clearInterval(timer)
  }
}

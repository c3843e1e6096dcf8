// Whether this hub's second-factor.key opens the second factors in its store: checked at start,
// again every RECHECK_MS, and whenever a stored one does not open when it is needed (another
// hub, with another key, enrolled it since). A hub given the wrong key file (a data directory
// restored without it, hubs on one database with different files) would otherwise refuse
// every code; instead it says so where the team lead looks, one line per key that does not
// match, naming the key file and what to do:
//
//   second-factor.key does not open the second factors of ada, bo: /var/lib/rampdesk-hub/second-factor.key
//   (key id 1a2b…) is not the key that sealed them (key id 3c4d…); copy second-factor.key from the
//   hub that enrolled them into this hub's data directory and restart it. Until then this hub
//   refuses second-factor codes as unavailable and /readyz reports it not ready.
//
// and /readyz reports the hub not ready (check secondFactorKey), so that a load balancer sends
// desktops to a hub that can check codes. The hub still starts: operators who need no second
// factor keep working through it, and a desktop is told that codes cannot be checked now
// (second_factor_unavailable), never that its operator is not enrolled.
import type { HubLog } from './hub-log'
import type { ReadinessCheck } from './readiness'
import type { SecondFactorStore } from './second-factor'
import type { SecondFactorKeyMismatch } from './second-factor-key'

export const RECHECK_MS = 60_000

export interface SecondFactorKeyHealth {
  /** For /readyz. */
  check(): ReadinessCheck
  /** Checks the stored second factors again now (at start, and on the timer). */
  recheck(): Promise<void>
  close(): void
}

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
    `refuses second-factor codes as unavailable and /readyz reports it not ready.`
  )
}

export async function watchSecondFactorKey(o: {
  store: SecondFactorStore
  log: Pick<HubLog, 'error' | 'info'>
  recheckMs?: number
}): Promise<SecondFactorKeyHealth> {
  /** What does not open, by the key id that sealed it ('' for altered secrets). */
  let problems = new Map<string, SecondFactorKeyMismatch[]>()
  const logged = new Set<string>()
  const report = () => {
    for (const [id, found] of problems) {
      if (logged.has(id)) continue
      logged.add(id)
      o.log.error(keyMismatchLine(found), { keyFile: found[0]!.file, sealedWith: found[0]!.sealedWith })
    }
  }
  /** Why the stored second factors could not be checked at all (the key file unreadable, say), or null. */
  let failure: string | null = null
  const recheck = async () => {
    let found: SecondFactorKeyMismatch[]
    try {
      found = await o.store.unopenable()
    } catch (e) {
      const why = `could not check the stored second factors against second-factor.key: ${(e as Error).message}`
      if (why !== failure) o.log.error(why)
      failure = why
      return
    }
    failure = null
    const before = problems.size
    problems = new Map()
    for (const f of found) problems.set(f.sealedWith ?? '', [...(problems.get(f.sealedWith ?? '') ?? []), f])
    for (const id of logged) if (!problems.has(id)) logged.delete(id)
    if (before > 0 && problems.size === 0) o.log.info('second-factor.key opens every stored second factor again')
    report()
  }
  o.store.onKeyMismatch((e) => {
    const id = e.sealedWith ?? ''
    const known = problems.get(id) ?? []
    if (!known.some((k) => k.operator.toLowerCase() === e.operator.toLowerCase())) problems.set(id, [...known, e])
    report()
  })
  await recheck()
  const timer = setInterval(() => void recheck(), o.recheckMs ?? RECHECK_MS)
  timer.unref()
  return {
    check() {
      if (failure !== null) return { ok: false, detail: failure }
      if (problems.size === 0) return { ok: true, detail: 'second-factor.key opens every stored second factor' }
      const found = [...problems.values()].flat()
      return {
        ok: false,
        detail: `second-factor.key (${found[0]!.file}) does not open the second factors of ${[...new Set(found.map((f) => f.operator))].join(', ')}: copy the key file from the hub that enrolled them and restart`,
        keyFile: found[0]!.file
      }
    },
    recheck,
    close: () => clearInterval(timer)
  }
}

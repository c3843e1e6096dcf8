// What a follower hub shows of whether every order is here (hubs on one PostgreSQL
// database): the coverage the leader last wrote (pg/pg-leader-coverage.ts), never the
// follower's own idle monitor's (no scope and no gap: a false "all here"). When the leader
// has written none, or its report is older than a few of its heartbeats by the database's
// clock (a leader that hangs keeps its lock for as long as TCP lets it, so nobody else
// leads), a gap of kind 'hub' comes first saying that whether every order is here is not
// known; the leader's last report stays on show after it. Pure, so unit-tested.
import type { Coverage, CoverageGap } from '../shared/ipc/contract'
import { utcMinute } from '../main/team/offline-coverage'

/** What a follower last read of the leader's coverage. */
export interface LeaderReport {
  /** The leader's coverage; null when no hub has written one. */
  coverage: Coverage | null
  /** When the leader last wrote or vouched for it, by the database's clock (epoch ms); null: a hub that does not say. */
  writtenAt: number | null
  /** How old that was when it was read, by the database's clock (ms); null with writtenAt. */
  ageMs: number | null
  /** When this hub read it, by its own clock (epoch ms): the age goes on growing from there. */
  readAt: number
}

export interface FollowedCoverageOptions {
  /** This hub's clock now (epoch ms). */
  now: number
  /** A report older than this is the leader's silence. */
  staleAfterMs: number
  /** The team's freshness bound (minutes), for a coverage with nothing else in it. */
  freshnessMinutes: number
}

const NOT_KNOWN = 'whether every order is here is not known'

function hubGap(text: string): CoverageGap {
  return { kind: 'hub', text, type: null, fiatType: null }
}

/** The leader's report with the gap first. */
function withGap(c: Coverage, text: string): Coverage {
  return { ...c, gaps: [hubGap(text), ...c.gaps] }
}

/** No report at all: the gap and nothing claimed (no scope, no reading, no open order counted). */
function unknownCoverage(text: string, freshnessMinutes: number): Coverage {
  return {
    scopes: [],
    readings: [],
    freshness: {
      boundMinutes: freshnessMinutes,
      open: 0,
      stale: 0,
      oldestConfirmedAt: null,
      lastSweepAt: null,
      error: 'not known: the leading hub has not reported'
    },
    gaps: [hubGap(text)],
    spentLastHour: { probe: 0, audit: 0, reading: 0, freshness: 0 }
  }
}

/** What sync:coverage answers, and coverage:changed carries, on a hub that follows. */
export function followedCoverage(r: LeaderReport | null, o: FollowedCoverageOptions): Coverage {
  if (!r?.coverage)
    return unknownCoverage(`The leading hub has not reported its coverage to this hub yet; ${NOT_KNOWN}`, o.freshnessMinutes)
  if (r.writtenAt === null || r.ageMs === null)
    return withGap(r.coverage, `The leading hub does not say when it last reported (it runs an older Rampdesk hub); ${NOT_KNOWN}`)
  const age = r.ageMs + Math.max(0, o.now - r.readAt)
  if (age <= o.staleAfterMs) return r.coverage
  return withGap(r.coverage, `The leading hub has not reported since ${utcMinute(r.writtenAt)}; ${NOT_KNOWN}`)
}

// The hub's sweep, asked every second: a store that fails it (hub.db locked by the command
// line, PostgreSQL away) is said once per cause in the log, and its return once.
import { describe, expect, it } from 'vitest'
import { hubSweep, SWEEP_RETRY_MS, type HubSweepParts } from '../../../src/hub/hub-sweep'

function sweepWith(orphans: () => Promise<string[]>, clock: { at: number } = { at: 0 }) {
  const lines: string[] = []
  const log = {
    info: (m: string) => lines.push(`INFO ${m}`),
    warn: (m: string) => lines.push(`WARN ${m}`),
    error: (m: string) => lines.push(`ERROR ${m}`)
  }
  const parts = {
    backend: { leaderSweep: async () => undefined },
    store: {
      audit: { prune: async () => 0 },
      watches: { orphans, dropOperator: async () => undefined },
      oidc: { forgetPrevious: async () => 0 }
    },
    role: { current: () => ({ role: 'follower' }) },
    session: {},
    settings: { get: () => ({ inbox: {} }) },
    tickers: { forget: () => undefined },
    webhooks: { sweep: () => undefined, applyPending: async () => undefined },
    deliveryLog: { prune: async () => 0 },
    log,
    now: () => clock.at
  } as unknown as HubSweepParts
  return { sweep: hubSweep(parts), lines }
}

async function sweepOnce(s: ReturnType<typeof hubSweep>): Promise<void> {
  s.sweep()
  await s.idle()
}

describe("the hub's sweep", () => {
  it('logs a failure once per cause, a new cause again, and its recovery once; a failing store is asked every 5 s, not every second', async () => {
    const clock = { at: 0 }
    let asked = 0
    let answer: () => Promise<string[]> = () => Promise.reject(new Error('database is locked'))
    const { sweep, lines } = sweepWith(() => (asked++, answer()), clock)
    const second = async () => {
      clock.at += 1_000
      await sweepOnce(sweep)
    }
    await sweepOnce(sweep)
    for (let i = 0; i < 9; i++) await second()
    // Ten sweeps over ten seconds: the store asked at 0, 5 s (and not between).
    expect(asked).toBe(2)
    const every = `it is tried again every ${SWEEP_RETRY_MS / 1000} s`
    expect(lines).toEqual([`ERROR the hub's sweep failed: database is locked; ${every}`])
    answer = () => Promise.reject(new Error('disk I/O error'))
    for (let i = 0; i < 5; i++) await second()
    answer = async () => []
    for (let i = 0; i < 5; i++) await second()
    expect(lines).toEqual([
      `ERROR the hub's sweep failed: database is locked; ${every}`,
      `ERROR the hub's sweep failed: disk I/O error; ${every}`,
      "INFO the hub's sweep works again"
    ])
    // Working again: asked every second.
    const before = asked
    for (let i = 0; i < 3; i++) await second()
    expect(asked).toBe(before + 3)
  })

  it('says nothing while it works', async () => {
    const { sweep, lines } = sweepWith(async () => [])
    for (let i = 0; i < 3; i++) await sweepOnce(sweep)
    expect(lines).toEqual([])
  })
})

// The hub's sweep, asked every second: a store that fails it (hub.db locked by the command
// line, PostgreSQL away) is said once per cause in the log, and its return once.
import { describe, expect, it } from 'vitest'
import { hubSweep, type HubSweepParts } from '../../../src/hub/hub-sweep'

function sweepWith(orphans: () => Promise<string[]>) {
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
    now: () => 0
  } as unknown as HubSweepParts
  return { sweep: hubSweep(parts), lines }
}

async function sweepOnce(s: ReturnType<typeof hubSweep>): Promise<void> {
  s.sweep()
  await s.idle()
}

describe("the hub's sweep", () => {
  it('logs a failure once per cause, a new cause again, and its recovery once', async () => {
    let answer: () => Promise<string[]> = () => Promise.reject(new Error('database is locked'))
    const { sweep, lines } = sweepWith(() => answer())
    for (let i = 0; i < 5; i++) await sweepOnce(sweep)
    expect(lines).toEqual(["ERROR the hub's sweep failed: database is locked; it is tried again every second"])
    answer = () => Promise.reject(new Error('disk I/O error'))
    await sweepOnce(sweep)
    await sweepOnce(sweep)
    answer = async () => []
    await sweepOnce(sweep)
    await sweepOnce(sweep)
    expect(lines).toEqual([
      "ERROR the hub's sweep failed: database is locked; it is tried again every second",
      "ERROR the hub's sweep failed: disk I/O error; it is tried again every second",
      "INFO the hub's sweep works again"
    ])
  })

  it('says nothing while it works', async () => {
    const { sweep, lines } = sweepWith(async () => [])
    for (let i = 0; i < 3; i++) await sweepOnce(sweep)
    expect(lines).toEqual([])
  })
})

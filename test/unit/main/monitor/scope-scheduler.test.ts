// The scheduler alone, over a history whose runs the test holds on the wire and lets go:
// what each caller asked for while a run went is done after it, by the run that carries it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ScopeScheduler } from '../../../../src/main/monitor/scope-scheduler'
import type { SyncMode, SyncRunResult } from '../../../../src/main/monitor/history-sync'
import { settle, type FakeClock } from './fake-history'
import { MonitorWorld } from './monitor-world'

const POLL = 30_000

/** A history whose every run waits until the test releases it, and which records each run's mode. */
class HeldHistory {
  readonly modes: SyncMode[] = []
  private gates: Array<() => void> = []

  run = async (type: 1 | 2, fiatType: number, opts: { mode?: SyncMode; signal?: AbortSignal } = {}): Promise<SyncRunResult> => {
    const mode = opts.mode ?? 'poll'
    this.modes.push(mode)
    await new Promise<void>((resolve, reject) => {
      this.gates.push(resolve)
      opts.signal?.addEventListener('abort', () => reject(opts.signal?.reason as Error))
    })
    return { type, fiatType, mode, startedFrom: null } as unknown as SyncRunResult
  }

  /** Lets every run on the wire end, and what follows them start. */
  async release(): Promise<void> {
    const g = this.gates
    this.gates = []
    for (const f of g) f()
    await settle()
  }

  get onTheWire(): number {
    return this.gates.length
  }
}

let world: MonitorWorld
let clock: FakeClock
let history: HeldHistory
let started: boolean
let controller: AbortController
let scheduler: ScopeScheduler

beforeEach(() => {
  world = new MonitorWorld('scheduler')
  clock = world.clock
  history = new HeldHistory()
  started = true
  controller = new AbortController()
  scheduler = new ScopeScheduler({
    store: world.store,
    history,
    historyPollMs: POLL,
    startId: 'test',
    now: clock.now,
    timers: clock.timers,
    running: () => ({ started, signal: controller.signal }),
    fiatIgnored: () => false,
    track: () => undefined,
    untrack: () => undefined,
    reveal: () => undefined,
    created: () => undefined,
    statusChanged: () => undefined,
    syncState: () => undefined,
    coverageChanged: () => undefined,
    firstAuditDelay: () => 60_000
  })
  scheduler.addScope(1, 1)
})

afterEach(async () => {
  started = false
  controller.abort()
  await Promise.allSettled(scheduler.runs())
  world.close()
})

const scope = () => scheduler.scopes.get('1:1')!

describe('ScopeScheduler', () => {
  it("an audit's run asked for while another caller also waits is carried out, not folded into that caller's run", async () => {
    await clock.advance(0)
    expect(history.onTheWire).toBe(1)
    // "Try again now" joins the run first; the audit asks for a full read after it.
    const afresh = scheduler.runAfresh(scope())
    let read: boolean | null = null
    void scheduler.forcedRun(1, 1, 'full').then((r) => (read = r))
    await history.release()
    // The run "Try again now" follows with is on the wire; the audit's comes after it.
    expect(history.modes).toEqual(['poll', 'poll'])
    await history.release()
    await afresh
    expect(history.modes).toEqual(['poll', 'poll', 'full'])
    await history.release()
    expect(read).toBe(true)
  })

  it('resyncAll() resolves after the full pass, even when another caller started the run that took it', async () => {
    await clock.advance(0)
    const afresh = scheduler.runAfresh(scope())
    let done = false
    void scheduler.resyncAll().then(() => (done = true))
    await history.release()
    // "Try again now" started the next run, and it is the full pass the operator asked for.
    expect(history.modes).toEqual(['poll', 'full'])
    expect(done).toBe(false)
    await history.release()
    await afresh
    await settle()
    expect(done).toBe(true)
    expect(history.modes).toEqual(['poll', 'full'])
  })

  it("an audit's run asked for before another caller waits on the same run is carried out, and serves both", async () => {
    await clock.advance(0)
    let read: boolean | null = null
    void scheduler.forcedRun(1, 1, 'full').then((r) => (read = r))
    const afresh = scheduler.runAfresh(scope())
    await history.release()
    // The audit's full read starts as the run ends; "Try again now" takes it as its fresh
    // run (it started after the call, and reads everything).
    expect(history.modes).toEqual(['poll', 'full'])
    await history.release()
    expect(read).toBe(true)
    await afresh
    expect(history.modes).toEqual(['poll', 'full'])
  })

  it('resyncAll() asked before another caller waits on the same run: its full pass runs and serves both', async () => {
    await clock.advance(0)
    let done = false
    void scheduler.resyncAll().then(() => (done = true))
    const afresh = scheduler.runAfresh(scope())
    await history.release()
    expect(history.modes).toEqual(['poll', 'full'])
    expect(done).toBe(false)
    await history.release()
    expect(done).toBe(true)
    await afresh
    expect(history.modes).toEqual(['poll', 'full'])
  })

  it("the operator's full pass cancelled by a stop is run at the next start", async () => {
    await clock.advance(0)
    await history.release()
    void scheduler.resyncAll()
    await settle()
    expect(history.modes).toEqual(['poll', 'full'])
    started = false
    controller.abort()
    await Promise.allSettled(scheduler.runs())
    started = true
    controller = new AbortController()
    scheduler.armAll()
    await clock.advance(0)
    expect(history.modes).toEqual(['poll', 'full', 'full'])
  })

  it('a sync asked for while a run waits for its turn is not repeated after it; one asked for while it reads is', async () => {
    scheduler.addScope(1, 2)
    await clock.advance(0)
    // One scope at a time: 1:1 reads, 1:2 waits for the slot.
    expect(history.onTheWire).toBe(1)
    scheduler.syncSoon(1)
    await history.release()
    // 1:2 reads now; 1:1 runs again at once, since it was asked while reading.
    expect(history.onTheWire).toBe(1)
    await history.release()
    await clock.advance(0)
    expect(history.modes).toHaveLength(3)
    await history.release()
    // Nothing more until the interval: 1:2 was asked while it waited and read after that.
    await clock.advance(POLL - 1)
    expect(history.onTheWire).toBe(0)
    expect(history.modes).toHaveLength(3)
  })
})

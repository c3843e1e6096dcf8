// Statements a hub sends PostgreSQL one after another for a task that retries by itself (on
// a timer, on a notification): the leader's coverage, the shared reads. Each failure is
// said once, naming what it was for, and once that the database answers again, so a
// database away for an hour writes two lines, not one per retry; none of them rejects.
import { pgErrorText } from './pg-connection'
import { refusedAsLeader } from './pg-lease'

export class SerialQueries {
  private busy: Promise<void> | null = null
  /** What is failing now, by what it was for. */
  private readonly failing = new Set<string>()
  /** Reads queued and not started yet, by what they are for. */
  private readonly waiting = new Map<string, Promise<void>>()

  constructor(private readonly onError: (message: string) => void) {}

  /**
   * A read: like run, but one of the same kind queued and not started yet stands for it (it
   * reads what there is when it starts), so a timer that fires while the database is slow
   * does not pile reads up.
   */
  read(fn: () => Promise<unknown>, what: string): Promise<void> {
    const queued = this.waiting.get(what)
    if (queued) return queued
    const run = this.run(() => {
      this.waiting.delete(what)
      return fn()
    }, what)
    this.waiting.set(what, run)
    return run
  }

  /** Runs fn once the ones queued before it ended; resolves when it did (a failure is reported, not thrown). */
  run(fn: () => Promise<unknown>, what: string): Promise<void> {
    const run = (this.busy ?? Promise.resolve())
      .then(fn)
      .then(() => {
        if (this.failing.delete(what)) this.onError(`${what}: the database answers again`)
      })
      .catch((e: unknown) => {
        // A leader's write refused because it no longer leads: the election says so once.
        if (refusedAsLeader(e)) return
        if (!this.failing.has(what)) this.onError(`${what}: ${pgErrorText(e)}; retrying`)
        this.failing.add(what)
      })
    const done: Promise<void> = run.finally(() => {
      if (this.busy === done) this.busy = null
    })
    this.busy = done
    return run
  }

  /** Resolves once every statement queued so far ended. */
  async idle(): Promise<void> {
    await this.busy
  }
}

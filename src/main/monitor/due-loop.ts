// Items that each fall due at a time of their own (scopes to probe, scopes to audit), run
// one at a time, the earliest first, on the monitor's injectable timers: one timer armed
// for the next due item, a loop that runs every item due and re-arms when it ends, and a
// run now that joins the loop in progress. An item that takes longer than `timeoutMs` has
// its signal aborted and the loop moves on (it is not run again until it has ended), so
// one stuck request never holds up the others. While the caller says the loop must hold
// (`ready` false), nothing starts and no timer is armed: the caller calls schedule() when
// that ends. What an item is and what running it does are the caller's.
import type { Timers } from '../api/rate-budget'
import { realTimers } from './watches'

export interface DueItem {
  /** When it is due (epoch ms); null: not scheduled. */
  nextAt: number | null
}

export class DueLoop<T extends DueItem> {
  private timer: unknown = undefined
  private signal: AbortSignal | null = null
  private loop: Promise<void> | null = null
  private readonly timers: Timers
  /** Items whose time ran out but whose run has not ended yet: skipped until it has. */
  private readonly overrun = new Set<T>()

  constructor(
    private readonly o: {
      /** The items that may be due now (the caller's filter). */
      items: () => Iterable<T>
      /** Runs one item; `signal` aborts when the loop stops or the item's time is up. */
      run: (item: T, signal: AbortSignal) => Promise<void>
      now: () => number
      timers?: Timers
      /** The longest an item may run before its signal is aborted and the loop moves on. Default: no limit. */
      timeoutMs?: number
      /** Whether items may start now (default always); runNow() does not wait for it. */
      ready?: () => boolean
    }
  ) {
    this.timers = o.timers ?? realTimers
  }

  get signalOrNull(): AbortSignal | null {
    return this.signal
  }

  start(signal: AbortSignal): void {
    this.signal = signal
    this.schedule()
  }

  async stop(): Promise<void> {
    this.signal = null
    this.disarm()
    await this.loop
  }

  /** Arms the timer for the next item due (after the loop in progress, if any). */
  schedule(): void {
    if (!this.signal || this.signal.aborted || this.loop) return
    this.disarm()
    if (!this.ready()) return
    let next = Infinity
    for (const it of this.o.items()) if (it.nextAt !== null) next = Math.min(next, it.nextAt)
    if (next === Infinity) return
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined
        this.runLoop()
      },
      Math.max(0, next - this.o.now())
    )
  }

  /** Runs every item due now, after the loop in progress; resolves when they ran. */
  /** Resolves once no pass is going (a pass started meanwhile is waited for too). */
  async idle(): Promise<void> {
    while (this.loop) await this.loop
  }

  async runNow(): Promise<void> {
    await this.idle()
    if (!this.signal || this.signal.aborted) return
    this.disarm()
    await this.runLoop(true)
  }

  private ready(): boolean {
    return this.o.ready?.() ?? true
  }

  private runLoop(asked = false): Promise<void> {
    this.loop = this.runDue(asked).finally(() => {
      this.loop = null
      this.schedule()
    })
    return this.loop
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Every item due, earliest first; `asked` (runNow) runs them though the loop should hold. */
  private async runDue(asked: boolean): Promise<void> {
    for (;;) {
      if (!this.signal || this.signal.aborted) return
      if (!asked && !this.ready()) return
      const now = this.o.now()
      let due: T | null = null
      for (const it of this.o.items())
        if (it.nextAt !== null && it.nextAt <= now && !this.overrun.has(it) && (due === null || it.nextAt < (due.nextAt ?? 0))) due = it
      if (!due) return
      await this.runOne(due, this.signal)
    }
  }

  /** Runs one item until it ends or its time is up (then aborted, left to end on its own). */
  private async runOne(item: T, loopSignal: AbortSignal): Promise<void> {
    const c = new AbortController()
    const abort = () => c.abort(loopSignal.reason)
    loopSignal.addEventListener('abort', abort, { once: true })
    const run = this.o.run(item, c.signal).finally(() => loopSignal.removeEventListener('abort', abort))
    if (this.o.timeoutMs === undefined) return run
    let timer: unknown
    const timedOut = await Promise.race([
      run.then(() => false),
      new Promise<boolean>((resolve) => (timer = this.timers.setTimeout(() => resolve(true), this.o.timeoutMs!)))
    ])
    this.timers.clearTimeout(timer)
    if (!timedOut) return
    c.abort(new Error('timed out'))
    this.overrun.add(item)
    void run
      .catch(() => undefined)
      .finally(() => {
        this.overrun.delete(item)
        this.schedule()
      })
  }
}

// Adds the orders a profile held before its gram index existed (migration 15) to it, in
// steps while the app runs: all at once would hold the profile's opening (and the main
// process with it) for about a minute at a million orders. A step indexes a few hundred
// orders in one transaction (tens of milliseconds), then the filler pauses, so IPC answers,
// webhooks and the sync's writes go between steps. Until the last step, searches find long
// texts through the trigram index (OrderReads), so nothing is missing meanwhile.
import { setTimeout as sleep } from 'node:timers/promises'
import { fillGramsStep } from './order-grams'
import type { Sql } from './sql'

export const GRAM_FILL_RETRY_MS = 30_000

export interface GramFillerOptions {
  sql: Sql
  /** Orders per step. Default 500 (about 40 ms here). */
  batch?: number
  /** Pause between steps, ms. Default 25. */
  pauseMs?: number
  /** After a step fails (the database busy or read-only), ms until the next try. Default GRAM_FILL_RETRY_MS. */
  retryMs?: number
  /** Once, when the index holds every order (after at least one step). */
  onFilled?: (r: { orders: number; ms: number }) => void
  /** When a step fails; the filler tries again after retryMs. */
  onError?: (error: unknown) => void
}

/** What the filler is doing. */
export type GramFillState = { kind: 'idle' } | { kind: 'filling'; since: number } | { kind: 'filled' } | { kind: 'stopped' }

export class GramFiller {
  private state: GramFillState = { kind: 'idle' }
  private run: Promise<void> | null = null
  private readonly abort = new AbortController()

  constructor(private readonly o: GramFillerOptions) {}

  get current(): GramFillState {
    return this.state
  }

  /** Starts filling in the background, unless the index is filled already (one step finds out). */
  start(): void {
    if (this.state.kind !== 'idle') return
    this.state = { kind: 'filling', since: performance.now() }
    this.run = this.fill().catch(() => undefined)
  }

  /** Resolves when the filler is filled or stopped. */
  settled(): Promise<void> {
    return this.run ?? Promise.resolve()
  }

  /**
   * Stops after the step under way (a step is one transaction: nothing is left half done).
   * A stopped filler does not start again: the next session's filler takes up the rest.
   */
  async stop(): Promise<void> {
    if (this.state.kind !== 'filled') this.state = { kind: 'stopped' }
    this.abort.abort()
    await this.run
  }

  private async fill(): Promise<void> {
    const { signal } = this.abort
    let orders = 0
    let steps = 0
    while (!signal.aborted) {
      let done: boolean
      try {
        const r = fillGramsStep(this.o.sql, this.o.batch ?? 500)
        orders += r.looked
        done = r.done
      } catch (e) {
        this.o.onError?.(e)
        await sleep(this.o.retryMs ?? GRAM_FILL_RETRY_MS, undefined, { signal }).catch(() => undefined)
        continue
      }
      if (done) {
        const since = this.state.kind === 'filling' ? this.state.since : performance.now()
        this.state = { kind: 'filled' }
        if (steps > 0) this.o.onFilled?.({ orders, ms: Math.round(performance.now() - since) })
        return
      }
      steps++
      await sleep(this.o.pauseMs ?? 25, undefined, { signal }).catch(() => undefined)
    }
  }
}

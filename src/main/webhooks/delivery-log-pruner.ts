// Keeps the webhook delivery log within the operator's retention (Settings: inbox.keepDays
// and inbox.keepDeliveries): on a schedule, deletes deliveries older than the age limit,
// then the oldest beyond the count limit. It deletes in small batches and yields to the
// event loop between them, so a log grown large under a flood is trimmed without holding
// the main process (and with it every IPC answer and webhook) for long.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import type { WebhookDeliveriesRepo } from '../store/webhook-deliveries-repo'

export interface Retention {
  keepDays: number
  keepDeliveries: number
}

export interface DeliveryLogPrunerOptions {
  repo: Pick<WebhookDeliveriesRepo, 'pruneOlderThan' | 'pruneBeyond'>
  /** Read at every run, so a settings change applies at the next one. */
  retention: () => Retention
  /** Wall clock, ms since the epoch. */
  now: () => number
  /** Default every 10 minutes. */
  everyMs?: number
  /** Rows deleted per batch. Default 500. */
  batch?: number
  onError?: (error: unknown) => void
}

export interface PruneResult {
  byAge: number
  byCount: number
}

const DAY_MS = 86_400_000

export class DeliveryLogPruner {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<PruneResult> | null = null
  private stopped = false
  private readonly batch: number

  constructor(private readonly o: DeliveryLogPrunerOptions) {
    this.batch = o.batch ?? 500
  }

  /** Runs once now, then on the schedule. */
  start(): void {
    this.stopped = false
    void this.runNow().catch((e: unknown) => this.o.onError?.(e))
    this.timer = setInterval(() => void this.runNow().catch((e: unknown) => this.o.onError?.(e)), this.o.everyMs ?? 10 * 60_000)
    this.timer.unref()
  }

  /** Prunes now; a call while a run is under way waits for that run. */
  runNow(): Promise<PruneResult> {
    this.running ??= this.run().finally(() => (this.running = null))
    return this.running
  }

  /** Stops the schedule and waits for a run under way (it ends after its current batch). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    this.timer = undefined
    await this.running?.catch(() => undefined)
  }

  private async run(): Promise<PruneResult> {
    const { keepDays, keepDeliveries } = this.o.retention()
    const olderThan = new Date(this.o.now() - keepDays * DAY_MS).toISOString()
    const byAge = await this.inBatches(() => this.o.repo.pruneOlderThan(olderThan, this.batch))
    const byCount = await this.inBatches(() => this.o.repo.pruneBeyond(keepDeliveries, this.batch))
    return { byAge, byCount }
  }

  private async inBatches(step: () => number): Promise<number> {
    let total = 0
    while (!this.stopped) {
      const n = step()
      total += n
      if (n < this.batch) break
      await yieldToEventLoop()
    }
    return total
  }
}

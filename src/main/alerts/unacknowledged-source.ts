// Where the alert tracker gets the completions the merchant's system has not confirmed: the
// completed orders and what became of their notices, read now and then (`refresh`, which may
// ask a database) and judged at each look (`current`, which counts the grace period on the
// clock it is given, so an order is raised at its minute without another read).
import type { UnacknowledgedAlert } from '../../shared/ipc/contract'
import {
  UNACKNOWLEDGED_GRACE_MS,
  UNACKNOWLEDGED_LOOKBACK_MS,
  unacknowledgedAlerts,
  type CompletedOrder,
  type OrderNotice
} from '../../shared/domain/unacknowledged'
import { completedOrders, firstInboxDelivery, inboxNotices } from '../store/completions'
import type { Sql } from '../store/sql'

export interface UnacknowledgedSource {
  /** The unconfirmed completions at `now`, from what the last refresh read. */
  current(now: number): UnacknowledgedAlert[]
  /** Reads the completed orders and their notices again. */
  refresh(): Promise<void>
}

/** What one read found: the completions compared, what became of their notices, and from when they are compared. */
export interface CompletionsRead {
  completed: CompletedOrder[]
  notices: ReadonlyMap<string, OrderNotice>
  from: number
}

export interface CompletionsWatchOptions {
  /** null: nothing receives the notices here (no relay, the inbox off): no alert. */
  read(): Promise<CompletionsRead | null>
  where: 'hub' | 'inbox'
  graceMs?: number
  onError?(message: string): void
}

export class CompletionsWatch implements UnacknowledgedSource {
  private last: CompletionsRead | null = null
  private failing = false

  constructor(private readonly o: CompletionsWatchOptions) {}

  current(now: number): UnacknowledgedAlert[] {
    if (!this.last) return []
    return unacknowledgedAlerts({ ...this.last, now, graceMs: this.o.graceMs ?? UNACKNOWLEDGED_GRACE_MS, where: this.o.where })
  }

  async refresh(): Promise<void> {
    try {
      this.last = await this.o.read()
      this.failing = false
    } catch (e) {
      // The last read stands: an alert is not cleared because its evidence could not be read.
      if (!this.failing) this.o.onError?.(`could not read the completions the merchant's system has confirmed: ${(e as Error).message}`)
      this.failing = true
    }
  }
}

/** A completion's notice is looked for from an hour before the completions compared: a service clock behind ours. */
export const NOTICE_MARGIN_MS = 60 * 60_000

/**
 * A desktop whose inbox receives the service's notices: a completion is confirmed when the
 * inbox verified its notice (and so answered it 2xx). Compared from the inbox's first delivery
 * still logged, or from when it started listening in this run, whichever is earlier, and at
 * most a week back.
 */
export function inboxCompletions(o: {
  sql: () => Sql
  /** When the inbox started listening in this run, or null while it does not listen. */
  listeningSince: () => number | null
  now: () => number
  graceMs?: number
}): CompletionsWatch {
  return new CompletionsWatch({
    where: 'inbox',
    graceMs: o.graceMs,
    read: async () => {
      const since = o.listeningSince()
      if (since === null) return null
      const sql = o.sql()
      const first = firstInboxDelivery(sql)
      const from = Math.max(Math.min(since, first ?? since), o.now() - UNACKNOWLEDGED_LOOKBACK_MS)
      return { from, completed: completedOrders(sql, from), notices: inboxNotices(sql, from - NOTICE_MARGIN_MS) }
    }
  })
}

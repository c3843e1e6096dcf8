// Relays kept deliveries to the merchant's receiver (--forward-to), from the store: claims
// the relays that are due (oldest first, one per order at a time, so each order's deliveries
// reach the receiver in the order they came), sends each (webhook-relay.ts), records the
// attempt, and schedules the next one with back-off while the receiver is down or answers
// 5xx, up to RELAY_RETRY_WINDOW_MS; then the relay waits, failed, for an admin to send it
// again (webhooks:retryRelays). Every hub with --forward-to runs one on the store the hubs
// share; a claim runs out after RELAY_CLAIM_MS, so the relays of a hub killed mid-relay are
// taken up again, and a hub that starts again takes its own back at once.
import { performance } from 'node:perf_hooks'
import type { HubLog } from '../hub-log'
import type { RelayOutcomeKind } from '../hub-metrics'
import type { RelaySender } from '../webhook-relay'
import { answerText, nextAfter, RELAY_CLAIM_MS, type RelayAttempt, type RelayJob, type RelayNext } from './kept-delivery'
import type { KeptStore, RelayCounts } from './kept-store'

export interface RelayWorkerOptions {
  store: KeptStore
  sender: RelaySender
  /** This hub's id (the claims it holds are in its name). */
  hub: string
  log: HubLog
  now?: () => number
  /** Relays in flight at once (default 4). */
  concurrency?: number
  /** How often the store is asked for due relays when nothing woke the worker (default 500 ms). */
  pollMs?: number
  /** A clock that only moves forward, for the claims' age (default performance.now; tests step it). */
  monotonic?: () => number
  onOutcome?(outcome: RelayOutcomeKind): void
}

export interface RelayWorker {
  /** A delivery was just kept for relay: look now rather than at the next poll. */
  wake(): void
  /** The queue as last read (for /metrics). */
  counts(): RelayCounts | null
  /** Resolves when nothing is in flight and nothing is due (tests). */
  idle(): Promise<void>
  close(): Promise<void>
}

const label = (j: Pick<RelayJob, 'orderId' | 'status'>) =>
  j.orderId !== null ? `order ${j.orderId} status ${j.status ?? '?'}` : 'a delivery without an order'

/** A claim this close to running out is not sent on: another hub may take it over meanwhile. */
const CLAIM_MARGIN_MS = 5_000
/** How often the queue's figures are read again for /metrics when nothing is due. */
const COUNTS_EVERY_MS = 5_000

/** Attempts whose failure is logged: the first few, then at doubling counts (1, 2, 4, 8, ...). */
const worthALine = (attempt: number) => (attempt & (attempt - 1)) === 0

export async function startRelayWorker(o: RelayWorkerOptions): Promise<RelayWorker> {
  const now = o.now ?? Date.now
  const concurrency = o.concurrency ?? 4
  const pollMs = o.pollMs ?? 500
  const inflight = new Set<Promise<void>>()
  let closed = false
  let woken: (() => void) | null = null
  let wakeAgain = false
  let counts: RelayCounts | null = null
  let storeFailing: string | null = null
  let idleWaiters: Array<() => void> = []
  const monotonic = o.monotonic ?? (() => performance.now())
  let countedAt = -Infinity

  const released = await o.store.releaseClaims(o.hub).catch(() => 0)
  if (released) o.log.info(`${released} webhook relay${released === 1 ? '' : 's'} this hub had begun before it stopped will be sent again`)

  function sleep(ms: number): Promise<void> {
    if (wakeAgain) {
      wakeAgain = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const t = setTimeout(done, ms)
      t.unref()
      function done() {
        clearTimeout(t)
        woken = null
        resolve()
      }
      woken = done
    })
  }

  /** Attempts made whose record the store did not take yet (it did not answer): they go in before any new claim. */
  const unrecorded: Array<{ job: RelayJob; attempt: RelayAttempt; next: RelayNext }> = []

  async function record(u: { job: RelayJob; attempt: RelayAttempt; next: RelayNext }): Promise<void> {
    // false: the claim ran out and another hub took the relay over; nothing more to record.
    await o.store.settleRelay(u.job.id, o.hub, u.attempt, u.next)
  }

  /** Records what the store missed, oldest first; stops at the first it still does not take. */
  async function recordMissed(): Promise<void> {
    while (unrecorded.length) {
      await record(unrecorded[0]!)
      unrecorded.shift()
    }
  }

  async function run(job: RelayJob, claimedAt: { store: number; local: number }): Promise<void> {
    // A hub paused between its claim and the send (SIGSTOP, a stalled VM) may find the claim
    // gone: another hub may have taken the relay over and sent it. Not sending it is right
    // then; if nobody did, the claim runs out and it is sent by whoever claims it next.
    if (monotonic() - claimedAt.local > RELAY_CLAIM_MS - CLAIM_MARGIN_MS) {
      o.log.warn(`webhook relay of ${label(job)}: not sent, its claim ran out while this hub was held up; the next claim sends it`, {
        orderId: job.orderId,
        status: job.status
      })
      return
    }
    const started = monotonic()
    const answer = await o.sender.send(job)
    const ms = monotonic() - started
    const attempt: RelayAttempt = { at: now(), hub: o.hub, ...answer, ms }
    // Whole milliseconds: the stores keep times as integers (a bigint column on PostgreSQL).
    const storeNow = Math.round(claimedAt.store + (monotonic() - claimedAt.local))
    const next = nextAfter(job, attempt, storeNow)
    const n = job.attempts + 1
    const what = `webhook relay of ${label(job)} to ${o.sender.target}: ${answerText(attempt)}`
    const fields = { orderId: job.orderId, status: job.status, target: o.sender.target, httpStatus: attempt.httpStatus, attempts: n }
    if (next.kind === 'delivered') {
      o.log.info(`${what} after ${n} attempt${n > 1 ? 's' : ''}, ${Math.round(ms)} ms`, { ...fields, relay: 'relayed', ms })
      o.onOutcome?.('relayed')
    } else if (next.kind === 'failed') {
      o.log.error(
        `${what}: not relayed after ${n} attempt${n > 1 ? 's' : ''} (${next.why}); an admin can send it again from the Webhooks view`,
        {
          ...fields,
          relay: 'failed'
        }
      )
      o.onOutcome?.('failed')
    } else {
      if (worthALine(n))
        o.log.warn(`${what} (attempt ${n}); trying again in ${Math.round((next.nextAt - storeNow) / 1000)} s`, {
          ...fields,
          relay: 'retrying'
        })
      o.onOutcome?.('retrying')
    }
    // The attempt happened: its record must reach the store, or the relay would be sent again
    // when its claim runs out. While the store does not take it, it waits here, and this hub
    // claims nothing new until it has gone in (the store, back, takes these first).
    try {
      if (unrecorded.length) throw new Error('earlier attempts wait to be recorded')
      await record({ job, attempt, next })
    } catch (e) {
      if (!unrecorded.length)
        o.log.error(`could not record the relay of ${label(job)}: ${(e as Error).message}; recorded when the store answers`)
      unrecorded.push({ job, attempt, next })
    }
  }

  async function loop(): Promise<void> {
    while (!closed) {
      const free = concurrency - inflight.size
      if (free <= 0) {
        await Promise.race(inflight)
        continue
      }
      let jobs: RelayJob[] = []
      try {
        await recordMissed()
        const local = monotonic()
        const claimed = await o.store.claimRelays(o.hub, free, RELAY_CLAIM_MS)
        jobs = claimed.jobs
        if (storeFailing !== null) o.log.info('the webhook relay reaches the store again')
        storeFailing = null
        for (const job of jobs) {
          const p = run(job, { store: claimed.now, local }).catch((e: unknown) =>
            o.log.error(`webhook relay of ${label(job)} failed: ${(e as Error).message}`)
          )
          inflight.add(p)
          void p.finally(() => {
            inflight.delete(p)
            wake()
          })
        }
        if (!jobs.length && monotonic() - countedAt >= COUNTS_EVERY_MS) {
          counts = (await o.store.relays(0)).counts
          countedAt = monotonic()
        }
      } catch (e) {
        const why = (e as Error).message
        if (storeFailing === null) o.log.error(`the webhook relay cannot read the store: ${why}; relays wait until it answers`)
        storeFailing = why
        await sleep(2_000)
        continue
      }
      if (!jobs.length) {
        if (inflight.size === 0) for (const w of idleWaiters.splice(0)) w()
        await sleep(pollMs)
      }
    }
  }

  function wake(): void {
    if (woken) woken()
    else wakeAgain = true
  }

  const running = loop()
  return {
    wake,
    counts: () => counts,
    idle: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async close() {
      closed = true
      wake()
      await running
      o.sender.close()
      await Promise.allSettled([...inflight])
      idleWaiters = []
    }
  }
}

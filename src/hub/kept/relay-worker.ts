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

  async function settle(job: RelayJob, attempt: RelayAttempt, next: RelayNext, deadline: number): Promise<boolean> {
    // The attempt happened: its record must reach the store, or the claim runs out and the
    // relay is sent again. Keep trying while the claim lasts.
    for (let wait = 250; ; wait = Math.min(wait * 2, 4_000)) {
      try {
        return await o.store.settleRelay(job.id, o.hub, attempt, next)
      } catch (e) {
        if (performance.now() + wait > deadline || closed) {
          o.log.error(`could not record the relay of ${label(job)}: ${(e as Error).message}; another attempt may follow`)
          return false
        }
        await new Promise((r) => setTimeout(r, wait).unref())
      }
    }
  }

  async function run(job: RelayJob, claimedAt: { store: number; local: number }): Promise<void> {
    const started = performance.now()
    const answer = await o.sender.send(job)
    const ms = performance.now() - started
    const attempt: RelayAttempt = { at: now(), hub: o.hub, ...answer, ms }
    const storeNow = claimedAt.store + (performance.now() - claimedAt.local)
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
    await settle(job, attempt, next, claimedAt.local + RELAY_CLAIM_MS - 1_000)
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
        const local = performance.now()
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
        if (!jobs.length) counts = (await o.store.relays(0)).counts
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

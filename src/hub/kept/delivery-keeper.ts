// Keeps each verified delivery before the hub answers it 2xx: in the store, or, when the store
// does not take it in time, in the spool on the hub's own disk (delivery-spool.ts); when
// neither can, the keep fails and the hub answers 503, so the service sends it again later.
//
// While anything is in the spool, new deliveries go there too, behind it: the spool drains into
// the store in the order deliveries came, so one order's deliveries stay in order. After the
// store failed, it is not asked again for each delivery (each would wait out the timeout) until
// a drain gets through to it. Once the store answers again and little is left in the spool, a
// new delivery waits for the drain to finish and then goes to the store directly, so steady
// traffic does not keep the spool in use for ever.
import { withTimeout } from '../../main/abort'
import type { HubLog } from '../hub-log'
import type { DeliverySpool } from './delivery-spool'
import type { KeepOutcome, KeptDelivery } from './kept-delivery'
import type { KeptStore } from './kept-store'

/** How long the store may take to keep a delivery before it goes to the spool: the service waits 5 s for the whole answer. */
export const STORE_KEEP_TIMEOUT_MS = 1_500
/** How often the spool is drained while it holds anything. */
export const SPOOL_DRAIN_MS = 1_000
/** At most this many spooled entries left, with the store answering, a delivery waits for the drain rather than joining the spool. */
export const CATCH_UP_ENTRIES = 200

export type Kept = { where: 'store'; id: number; outcome: KeepOutcome } | { where: 'spool' }

export interface DeliveryKeeperOptions {
  store: KeptStore
  spool: DeliverySpool
  log: HubLog
  storeTimeoutMs?: number
  drainEveryMs?: number
  /** Each delivery kept (where), or not kept at all. */
  onKept?(where: 'store' | 'spool' | 'refused'): void
  /** Deliveries the spool handed to the store, with what that did to their relay. */
  onDrained?(kept: Array<{ id: number; outcome: KeepOutcome }>, deliveries: readonly KeptDelivery[]): void
}

/** The error of a delivery neither the store nor the spool could keep. */
export class NotKeptError extends Error {
  constructor(store: string, spool: string) {
    super(`could not keep the delivery: the store ${store}, and the spool ${spool}`)
    this.name = 'NotKeptError'
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

export class DeliveryKeeper {
  private storeFailing: string | null = null
  private timer: NodeJS.Timeout | null = null
  private draining: Promise<void> | null = null
  private closed = false
  private readonly timeoutMs: number

  constructor(private readonly o: DeliveryKeeperOptions) {
    this.timeoutMs = o.storeTimeoutMs ?? STORE_KEEP_TIMEOUT_MS
    this.timer = setInterval(() => void this.drain(), o.drainEveryMs ?? SPOOL_DRAIN_MS)
    this.timer.unref()
    if (!o.spool.isEmpty())
      o.log.warn(
        `${o.spool.entries} webhook deliver${o.spool.entries === 1 ? 'y' : 'ies'} kept in the spool by an earlier run (${o.spool.dir}) go to the store now`
      )
  }

  /** Keeps the delivery durably; throws NotKeptError when it could not (answer 503). */
  async keep(d: KeptDelivery): Promise<Kept> {
    const spool = this.o.spool
    // The store answers again and little waits in the spool: catch up, then keep directly.
    if (this.storeFailing === null && !spool.isEmpty() && spool.entries <= CATCH_UP_ENTRIES) await this.drain()
    let storeError: string
    if (this.storeFailing === null && spool.isEmpty()) {
      try {
        const [kept] = await withTimeout(this.o.store.keep([d]), this.timeoutMs, 'the store')
        this.o.onKept?.('store')
        return { where: 'store', ...kept! }
      } catch (e) {
        storeError = message(e)
        this.failing(storeError)
      }
    } else storeError = this.storeFailing ?? 'has deliveries queued before this one in the spool'
    try {
      await spool.append(d)
      this.o.onKept?.('spool')
      return { where: 'spool' }
    } catch (e) {
      this.o.onKept?.('refused')
      throw new NotKeptError(storeError, message(e))
    }
  }

  private failing(why: string): void {
    if (this.storeFailing === null)
      this.o.log.error(`webhook deliveries go to the spool on this hub's disk (${this.o.spool.dir}): the store ${why}`)
    this.storeFailing = why
  }

  /** Moves what the spool holds into the store; resolves when this pass is over. */
  drain(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.draining ??= this.drainOnce().finally(() => (this.draining = null))
    return this.draining
  }

  private async drainOnce(): Promise<void> {
    if (this.o.spool.isEmpty()) {
      if (this.storeFailing !== null) await this.probe()
      return
    }
    let moved = 0
    try {
      // Files appended to while one is drained are drained in the same pass.
      for (let n = -1; n !== 0 && !this.o.spool.isEmpty();) {
        n = await this.o.spool.drain(async (batch) => {
          const kept = await withTimeout(this.o.store.keep(batch), this.timeoutMs * 4, 'the store')
          this.recovered()
          this.o.onDrained?.(kept, batch)
        })
        moved += n
      }
    } catch (e) {
      this.failing(message(e))
      return
    }
    if (moved) this.o.log.info(`${moved} webhook deliver${moved === 1 ? 'y' : 'ies'} kept in the spool went to the store`)
  }

  /** The spool is empty but the store failed last: is it back? */
  private async probe(): Promise<void> {
    try {
      await withTimeout(this.o.store.ping(), this.timeoutMs, 'the store')
      this.recovered()
    } catch (e) {
      this.storeFailing = message(e)
    }
  }

  private recovered(): void {
    if (this.storeFailing === null) return
    this.storeFailing = null
    this.o.log.info('the store answers again: webhook deliveries are kept there again, after what waits in the spool')
  }

  /** Spooled and not yet in the store. */
  spooled(): { entries: number; bytes: number } {
    return { entries: this.o.spool.entries, bytes: this.o.spool.bytes }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.draining
    this.closed = true
    // One last pass: what the store can take now need not wait for the next start.
    if (!this.o.spool.isEmpty() && this.storeFailing === null) await this.drainOnce().catch(() => undefined)
    await this.o.spool.close()
    if (this.o.spool.entries > 0)
      this.o.log.warn(
        `${this.o.spool.entries} webhook deliver${this.o.spool.entries === 1 ? 'y' : 'ies'} answered 2xx wait in the spool (${this.o.spool.dir}) for the store: they go there when this hub starts again on this data directory; do not delete it`
      )
  }
}

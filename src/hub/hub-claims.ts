// Claims and notes on a team hub: kept in the hubs' store (hub-backend.ts's HandlingLog,
// hub.db or the PostgreSQL database every hub of the team shares), copied into this hub's
// order database, which answers orders:get, the search and the CSV, and sent to every
// desktop of this hub as order:handling. An entry made on another hub of the database
// reaches this one when the store says so (NOTIFY) or at the next poll, and is copied and
// sent the same way; copying is in the order the store kept them, one run at a time.
import { claimEntry, sameName, type HandlingEntry, type OrderClaimsRepo } from '../main/store/order-claims-repo'
import { ContractError, type ClaimInput, type OrderClaim, type OrderNote } from '../shared/ipc/contract'
import type { HandlingLog, HubEvent } from './hub-backend'

/** Entries copied per read of the store. */
const PAGE = 200

export interface HubClaimsOptions {
  log: HandlingLog
  /** This hub's copy, in its order database. */
  local(): OrderClaimsRepo
  publish(e: HubEvent): void
  now(): number
  onError(message: string): void
}

export class HubClaims {
  private running: Promise<void> = Promise.resolve()

  constructor(private readonly o: HubClaimsOptions) {}

  /** Copies what the store holds that this hub lacks, then follows what other hubs keep. */
  async start(): Promise<void> {
    await this.catchUp()
    this.o.log.watch(() => void this.catchUp())
  }

  /** Claims, releases or hands over an order as this operator; `exists` says whether a named operator may be handed it. */
  async claim(operator: string, input: ClaimInput, exists: (name: string) => Promise<boolean>): Promise<{ claim: OrderClaim | null }> {
    if (input.action === 'hand' && !(await exists(input.to)))
      throw new ContractError('invalid_input', `${input.to} is not an operator of this team`)
    const current = this.o.local().claim(input.type, input.orderId)
    await this.keep(claimEntry(current, input, operator, this.o.now()))
    const claim = this.o.local().claim(input.type, input.orderId)
    // Somebody else's claim reached the store first (on another hub, in the same moment).
    if (input.action === 'claim' && claim && !sameName(claim.operator, operator))
      throw new ContractError(
        'invalid_input',
        `${claim.operator} took this order a moment before you: ask them, or they can hand it to you`
      )
    return { claim }
  }

  async note(operator: string, ref: { type: 1 | 2; orderId: number; text: string }): Promise<OrderNote> {
    const id = await this.keep({ type: ref.type, orderId: ref.orderId, kind: 'note', text: ref.text, actor: operator, at: this.o.now() })
    const note = this.o
      .local()
      .notes(ref.type, ref.orderId)
      .find((n) => n.id === id)
    if (!note) throw new Error('the note was kept but is not in the order database')
    return note
  }

  /** Keeps the entry in the store and copies it here (with whatever else is new) before answering. */
  private async keep(e: HandlingEntry): Promise<number> {
    const id = await this.o.log.append(e)
    await this.catchUp()
    return id
  }

  /** One run at a time, each from where the copy stands. */
  catchUp(): Promise<void> {
    this.running = this.running
      .then(() => this.copy())
      .catch((err: Error) => this.o.onError(`claims and notes could not be copied: ${err.message}`))
    return this.running
  }

  private async copy(): Promise<void> {
    for (;;) {
      const local = this.o.local()
      const page = await this.o.log.after(local.lastSourceId(), PAGE)
      for (const { id, entry } of page) {
        const change = local.record(entry, id)
        if (!change) continue
        this.o.publish({
          id: null,
          event: 'order:handling',
          payload: {
            type: entry.type,
            orderId: entry.orderId,
            claim: change.claim,
            ...(change.note ? { note: change.note } : {}),
            by: entry.actor
          }
        })
      }
      if (page.length < PAGE) return
    }
  }

  close(): Promise<void> {
    return this.o.log.close()
  }
}

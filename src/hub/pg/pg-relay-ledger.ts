// The relay ledger (relay-ledger.ts) in PostgreSQL, so that hubs sharing a database relay a
// delivery once between them, whichever hub the service posted it to. A claim takes every key
// in one transaction, each with INSERT … ON CONFLICT: a key nobody holds is inserted, a key
// whose memory has run out is taken over, and a key still held returns no row, which refuses
// the claim and rolls the transaction back. A hub claiming the same key at the same moment
// waits on the other's uncommitted row and then sees it: exactly one of them relays.
import type pg from 'pg'
import { REPLAY_WINDOW_MS } from '../../main/webhooks/replay-guard'
import type { RelayLedgerStore } from '../hub-store'
import { alreadyRelayed, relayKeys, RELAYED_PAYLOAD_MEMORY_MS, type RelayClaim, type RelayClaimInput } from '../relay-ledger'
import { inTransaction } from './pg-connection'

class Refused extends Error {
  constructor(readonly claim: RelayClaim) {
    super('refused')
  }
}

export class PgRelayLedger implements RelayLedgerStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
    private readonly windowMs = REPLAY_WINDOW_MS
  ) {}

  async claim(d: RelayClaimInput): Promise<RelayClaim> {
    const at = this.now()
    const keys = relayKeys(d, this.windowMs)
    try {
      return await inTransaction(this.pool, async (c) => {
        for (const k of keys) {
          const r = await c.query(
            `INSERT INTO webhook_relays (key, at) VALUES ($1, $2)
               ON CONFLICT (key) DO UPDATE SET at = excluded.at WHERE webhook_relays.at <= $3
             RETURNING key`,
            [k.key, at, at - k.span]
          )
          if (!r.rowCount) {
            const prev = await c.query<{ at: number }>('SELECT at FROM webhook_relays WHERE key = $1', [k.key])
            throw new Refused(alreadyRelayed(k, at, prev.rows[0]?.at ?? at))
          }
        }
        return { ok: true, keys: keys.map((k) => k.key) } as RelayClaim
      })
    } catch (e) {
      if (e instanceof Refused) return e.claim
      throw e
    }
  }

  async settle(keys: readonly string[], delivered: boolean): Promise<void> {
    if (delivered || !keys.length) return
    await this.pool.query('DELETE FROM webhook_relays WHERE key = ANY($1)', [keys])
  }

  async prune(): Promise<number> {
    const at = this.now()
    const a = await this.pool.query("DELETE FROM webhook_relays WHERE key LIKE 'order:%' AND at < $1", [at - this.windowMs])
    const b = await this.pool.query("DELETE FROM webhook_relays WHERE key NOT LIKE 'order:%' AND at < $1", [at - RELAYED_PAYLOAD_MEMORY_MS])
    return (a.rowCount ?? 0) + (b.rowCount ?? 0)
  }
}

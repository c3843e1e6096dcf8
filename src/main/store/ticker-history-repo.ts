// Price ticker samples per (fiat type, coin, side), kept for the sparkline/history views
// and pruned by age so the table stays small. Prices are decimal strings.
import { toDecimalString } from '../../shared/money'
import type { Sql } from './sql'

export type TickerSide = 'buy' | 'sell'

export interface TickerSample {
  fiatType: number
  coinId: number
  side: TickerSide
  /** Decimal string. */
  price: string
  /** ISO 8601 with ms. */
  at: string
}

interface TickerDbRow {
  fiat_type: number
  coin_id: number
  side: TickerSide
  price: string
  at: string
}

const toSample = (r: TickerDbRow): TickerSample => ({ fiatType: r.fiat_type, coinId: r.coin_id, side: r.side, price: r.price, at: r.at })

function iso(name: string, v: string): string {
  const t = Date.parse(v)
  if (Number.isNaN(t)) throw new RangeError(`${name} is not a timestamp`)
  return new Date(t).toISOString()
}

export class TickerHistoryRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** Appends samples in one transaction; returns how many were written. */
  append(samples: readonly TickerSample[]): number {
    return this.sql.transaction(() => {
      for (const s of samples) {
        if (s.side !== 'buy' && s.side !== 'sell') throw new RangeError(`side must be buy or sell`)
        this.sql.run(
          'INSERT INTO ticker_history (fiat_type, coin_id, side, price, at) VALUES (?, ?, ?, ?, ?)',
          s.fiatType,
          s.coinId,
          s.side,
          toDecimalString(s.price),
          iso('at', s.at)
        )
      }
      return samples.length
    })
  }

  /** Samples of one series with from <= at < to, oldest first. */
  range(q: { fiatType: number; coinId: number; side: TickerSide; from?: string; to?: string; limit?: number }): TickerSample[] {
    const from = q.from === undefined ? '' : iso('from', q.from)
    const to = q.to === undefined ? '\u{10FFFF}' : iso('to', q.to)
    const limit = q.limit ?? -1
    return this.sql
      .all<TickerDbRow>(
        `SELECT fiat_type, coin_id, side, price, at FROM ticker_history
         WHERE fiat_type = ? AND coin_id = ? AND side = ? AND at >= ? AND at < ? ORDER BY at, id LIMIT ?`,
        q.fiatType,
        q.coinId,
        q.side,
        from,
        to,
        limit
      )
      .map(toSample)
  }

  /** The latest sample of every coin for one fiat type and side. */
  latest(fiatType: number, side: TickerSide): TickerSample[] {
    return this.sql
      .all<TickerDbRow>(
        `SELECT t.fiat_type, t.coin_id, t.side, t.price, t.at FROM ticker_history t
         WHERE t.fiat_type = ? AND t.side = ? AND t.id = (
           SELECT id FROM ticker_history u WHERE u.fiat_type = t.fiat_type AND u.coin_id = t.coin_id AND u.side = t.side
           ORDER BY at DESC, id DESC LIMIT 1)
         ORDER BY t.coin_id`,
        fiatType,
        side
      )
      .map(toSample)
  }

  /** Deletes samples older than `olderThan` (or than maxAgeMs before now); returns how many. */
  prune(opts: { olderThan: string } | { maxAgeMs: number }): number {
    const cutoff = 'olderThan' in opts ? iso('olderThan', opts.olderThan) : new Date(this.now().getTime() - opts.maxAgeMs).toISOString()
    return this.sql.run('DELETE FROM ticker_history WHERE at < ?', cutoff).changes
  }

  /** Every sample of one fiat type with at >= from, oldest first (all coins and sides: one query for the tickers view). */
  since(fiatType: number, from: string): TickerSample[] {
    return this.sql
      .all<TickerDbRow>(
        'SELECT fiat_type, coin_id, side, price, at FROM ticker_history WHERE fiat_type = ? AND at >= ? ORDER BY at, id',
        fiatType,
        iso('from', from)
      )
      .map(toSample)
  }

  count(): number {
    return this.sql.value<number>('SELECT COUNT(*) FROM ticker_history') ?? 0
  }
}

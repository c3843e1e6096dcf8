// The tickers namespace: live prices per fiat with their recent history.
import { z } from 'zod'
import { ch, Dec, EpochMs, ErrorInfo, IdNum, ok } from './primitives'

/** The windows that show tickers (the ticker polls only while one does). */
export const TickerView = z.enum(['main', 'tray'])
export type TickerView = z.infer<typeof TickerView>

export const TickerRow = z.object({
  coinId: z.number().int(),
  buy: Dec.nullable(),
  sell: Dec.nullable(),
  prevBuy: Dec.nullable(),
  prevSell: Dec.nullable(),
  at: EpochMs.nullable(),
  stale: z.boolean(),
  history: z.array(z.object({ at: EpochMs, buy: Dec.nullable(), sell: Dec.nullable() }))
})
export type TickerRow = z.infer<typeof TickerRow>

/** The prices of one fiat as a tick pushes them, and when the next refresh is due. */
export const TickerTick = z.object({ fiatType: z.number().int(), rows: z.array(TickerRow), nextRefreshAt: EpochMs.nullable() })
export type TickerTick = z.infer<typeof TickerTick>

/** The same, with the last refresh's error, as tickers:get answers. */
export const TickerSnapshot = TickerTick.extend({ error: ErrorInfo.nullable() })
export type TickerSnapshot = z.infer<typeof TickerSnapshot>

export const tickersChannels = {
  'tickers:get': ch(z.object({ fiatType: IdNum }).strict(), TickerSnapshot, 'Latest prices with history'),
  'tickers:visibility': ch(
    z.object({ view: TickerView, visible: z.boolean() }).strict(),
    ok,
    'A window shows or hides tickers (refresh only while shown)'
  )
} as const

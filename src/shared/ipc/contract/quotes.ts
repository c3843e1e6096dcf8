// The quotes namespace: an onramp or offramp quote, and the same quote on every network.
import { z } from 'zod'
import { OfframpQuoteRead, OnrampQuoteRead } from './api-shapes'
import { ch, Dec, EpochMs, ErrorInfo, IdNum, OrderType } from './primitives'

/** What the service's quote answered: the fields of both types' answers, each type's own absent from the other's. */
const answered = OnrampQuoteRead.extend(OfframpQuoteRead.shape).partial({ quantity: true, gasFee: true, fiatAmount: true, tdsFee: true })

export const QuoteResult = z.object({
  type: OrderType,
  coinId: z.number().int(),
  chainId: z.number().int(),
  fiatType: z.number().int(),
  amount: Dec,
  ...answered.shape,
  quotedAt: EpochMs,
  /** From this instant the quote is shown as stale (main's policy: the service gives quotes no validity). */
  staleAt: EpochMs
})
export type QuoteResult = z.infer<typeof QuoteResult>

export const QuoteInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal(1), coinId: IdNum, chainId: IdNum, fiatType: IdNum, fiatAmount: Dec }).strict(),
  z.object({ type: z.literal(2), coinId: IdNum, chainId: IdNum, quantity: Dec }).strict()
])
export type QuoteInput = z.infer<typeof QuoteInput>

export const CompareRow = z.object({
  chainId: z.number().int(),
  ok: z.boolean(),
  quote: QuoteResult.nullable(),
  error: ErrorInfo.nullable(),
  gasFee: Dec.nullable(),
  minimum: Dec.nullable(),
  nodeInSync: z.number().int().nullable(),
  depositEnable: z.number().int().nullable()
})
export type CompareRow = z.infer<typeof CompareRow>

export const quotesChannels = {
  'quotes:get': ch(QuoteInput, QuoteResult, 'An onramp or offramp quote (interactive priority)'),
  'quotes:compare': ch(QuoteInput, z.object({ rows: z.array(CompareRow) }), 'The same quote on every network of the coin')
} as const

// The budget namespace: the request budget per limited endpoint.
import { z } from 'zod'
import { ch, EpochMs, none } from './primitives'

export const BudgetEntry = z.object({
  endpoint: z.string(),
  limit: z.number(),
  usedInWindow: z.number(),
  queued: z.number(),
  nextSlotAt: EpochMs.nullable(),
  blockedUntil: EpochMs.nullable()
})
export type BudgetEntry = z.infer<typeof BudgetEntry>

export const budgetChannels = {
  'budget:get': ch(none, z.object({ entries: z.array(BudgetEntry) }), 'Request budget per limited endpoint')
} as const

// The bank namespace: the merchant's bank and UPI details.
import { z } from 'zod'
import { ch, EpochMs, ErrorInfo, none } from './primitives'

export const bankChannels = {
  'bank:get': ch(
    none,
    z.object({
      details: z.record(z.string(), z.unknown()).nullable(),
      fetchedAt: EpochMs.nullable(),
      stale: z.boolean(),
      error: ErrorInfo.nullable()
    }),
    'Bank and UPI details'
  )
} as const

// The audit namespace: the log of operator actions.
import { z } from 'zod'
import { ch, EpochMs } from './primitives'

export const AuditEntry = z.object({
  id: z.number().int(),
  at: EpochMs,
  action: z.string(),
  detail: z.record(z.string(), z.unknown()),
  /** On a team hub: the operator who acted. */
  operator: z.string().optional()
})

export const auditChannels = {
  'audit:list': ch(
    z.object({ limit: z.number().int().min(1).max(500) }).strict(),
    z.object({ rows: z.array(AuditEntry) }),
    'Recent operator actions'
  )
} as const

// The confirm namespace: a change the operator confirms outside the window's reach.
import { z } from 'zod'
import { ch, EpochMs } from './primitives'

/**
 * A change the operator must confirm outside the window's reach (a setting that weakens
 * security, the production webhook URL). The desktop app asks with a native dialog; the
 * browser harness shows a one-time code where it was started (its terminal), and the
 * window sends back what the operator typed (confirm:answer).
 */
export const ConfirmRequest = z.object({
  id: z.string(),
  title: z.string(),
  message: z.string(),
  detail: z.string(),
  /** The label of the button that goes ahead. */
  confirmLabel: z.string(),
  /** Where the code to type is shown, in words. */
  codeShownIn: z.string(),
  expiresAt: EpochMs
})
export type ConfirmRequest = z.infer<typeof ConfirmRequest>

export const ConfirmOutcome = z.enum(['confirmed', 'cancelled', 'expired', 'wrong_code', 'unknown'])
export type ConfirmOutcome = z.infer<typeof ConfirmOutcome>

export const confirmChannels = {
  'confirm:answer': ch(
    z.object({ id: z.string().min(1).max(64), code: z.string().max(64).nullable() }).strict(),
    z.object({ outcome: ConfirmOutcome, attemptsLeft: z.number().int() }),
    'The code the operator typed for a pending confirmation (null: cancel)'
  )
} as const

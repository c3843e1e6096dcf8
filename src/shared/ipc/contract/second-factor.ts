// A team hub operator's own second factor (TOTP): whether it is enrolled, proving it for this
// desktop's session (the code goes to the hub in a header, never in a body the hub audits),
// and enrolling it from Settings: the hub makes a secret and recovery codes and keeps them
// only once a code from the authenticator app shows it was added. Part of the team namespace
// (team.ts spreads these channels into its table).
import { z } from 'zod'
import { ch, none } from './primitives'

/** A 6-digit code from the authenticator app, or one of the recovery codes (xxxxx-xxxxx). */
export const SecondFactorCode = z
  .string()
  .trim()
  .regex(/^(\d{6}|[0-9a-fA-F]{5}-?[0-9a-fA-F]{5})$/, 'the 6-digit code from your authenticator app, or a recovery code')

/** A 6-digit code only: what confirms an enrolment. */
export const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'the 6-digit code from your authenticator app')

export const SecondFactorStatus = z.object({
  enrolled: z.boolean(),
  /** Recovery codes not used yet (0 when not enrolled). */
  recoveryCodesLeft: z.number().int().nonnegative()
})
export type SecondFactorStatus = z.infer<typeof SecondFactorStatus>

export const SecondFactorEnrolment = z.object({
  /** otpauth://totp/…: what the QR code holds. Shown this once; the hub keeps it only when confirmed. */
  uri: z.string(),
  /** Each works once in place of a code. */
  recoveryCodes: z.array(z.string()),
  /** Until when a code may confirm it (epoch ms). */
  expiresAt: z.number()
})
export type SecondFactorEnrolment = z.infer<typeof SecondFactorEnrolment>

export const secondFactorChannels = {
  'team:secondFactor': ch(none, SecondFactorStatus, "This operator's second factor on the team hub: enrolled, and recovery codes left"),
  'team:proveSecondFactor': ch(
    z.object({ code: SecondFactorCode }).strict(),
    z.object({ by: z.enum(['totp', 'recovery']), recoveryCodesLeft: z.number().int().nonnegative() }),
    "Proves this desktop's session on the team hub with a code from the authenticator app (or a recovery code)"
  ),
  'team:enrolSecondFactor': ch(
    none,
    SecondFactorEnrolment,
    "Starts enrolling this operator's own second factor: a new secret (as an otpauth URI) and recovery codes, kept once confirmed"
  ),
  'team:confirmSecondFactor': ch(
    z.object({ code: TotpCode }).strict(),
    SecondFactorStatus,
    'Confirms the enrolment under way with a code from the authenticator app; it replaces any earlier second factor'
  )
} as const

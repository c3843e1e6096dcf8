// The team namespace: a team hub's operators and roles, and this desktop's access to its hub.
import { z } from 'zod'
import { ch, EpochMs, none, ok } from './primitives'
import { secondFactorChannels } from './second-factor'

/** The three roles of a team hub's operators: each may do everything the one before it may. */
export const TeamRole = z.enum(['viewer', 'operator', 'admin'])
export type TeamRole = z.infer<typeof TeamRole>

/** Operator names: what the audit log and the hub's command line call them. */
export const OperatorName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, '1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit')

export const TeamOperator = z.object({
  name: z.string(),
  role: TeamRole,
  createdAt: EpochMs,
  lastSeenAt: EpochMs.nullable(),
  /** When its token stops working (hubs before token expiry do not say). */
  expiresAt: EpochMs.optional(),
  /** A person at a desktop, or a service account for automation (no interactive sign-in). */
  account: z.enum(['person', 'service']).optional()
})
export type TeamOperator = z.infer<typeof TeamOperator>

/** Who this desktop is on its team hub, and which channels it may call (every channel outside a team). */
export const TeamAccess = z.object({
  team: z
    .object({
      hubUrl: z.string(),
      operator: z.string(),
      role: TeamRole,
      /** The desktop's event stream from the hub is open. */
      connected: z.boolean(),
      /** The line to the hub: open, the hub out of reach, or this operator's token refused (unknown or revoked). */
      line: z.enum(['connected', 'unreachable', 'revoked']).optional(),
      /** When this operator's token stops working (hubs before token expiry do not say). */
      expiresAt: EpochMs.optional(),
      /** Why the hub refuses the token, when it ended or was replaced, or the sign-in ended (line 'revoked'). */
      refusal: z.enum(['expired', 'replaced', 'signed-out']).optional()
    })
    .nullable(),
  channels: z.array(z.string())
})
export type TeamAccess = z.infer<typeof TeamAccess>

export const teamChannels = {
  'team:access': ch(none, TeamAccess, 'This desktop on its team hub: operator, role and the channels it may call'),
  'team:operators': ch(none, z.object({ operators: z.array(TeamOperator) }), "The team hub's operators (admin)"),
  'team:addOperator': ch(
    z.object({ name: OperatorName, role: TeamRole }).strict(),
    z.object({ operator: TeamOperator, token: z.string() }),
    'Add an operator to the team hub; its token is shown this once (admin)'
  ),
  'team:revokeOperator': ch(
    z.object({ name: OperatorName }).strict(),
    ok,
    "Revoke an operator's token at once, closing its event streams (admin)"
  ),
  // An operator's own second factor: the schemas in a file of their own.
  ...secondFactorChannels
} as const

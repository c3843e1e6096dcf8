// What the hub asks of a second factor, and when. A desktop proves it by sending a current code
// (or a recovery code) in the X-Rampdesk-Second-Factor header of any request; the hub then
// holds that token's session proven for SESSION_MS, in this hub's memory (another hub, or a
// restart, asks again). For an operator signed in through the identity provider the session is
// the sign-in, not its access token, which renewal replaces every few minutes: a new sign-in
// proves again. With `--require-second-factor admins`, an admin whose session is not
// proven may do what an operator may, and no more, until it is. The actions that redirect money
// or webhooks (setting the webhook URL, adding an admin) ask more: a code from the last
// FRESH_MS, from anyone enrolled and from every admin where it is required. A service account
// cannot enrol, so where it is required an admin service account cannot take admin actions.
// An operator locked out by wrong codes (second-factor.ts) is refused every code until the
// lockout ends, and told until when.
import type { ChannelName } from '../shared/ipc/contract'
import { channelAccess } from '../shared/ipc/team-access'
import type { Operator } from './operators'
import { checkSecondFactor, type SecondFactorStore } from './second-factor'

export type SecondFactorPolicy = 'none' | 'admins'
export const SECOND_FACTOR_POLICIES: readonly SecondFactorPolicy[] = ['none', 'admins']
export const SECOND_FACTOR_HEADER = 'x-rampdesk-second-factor'
/** How long a proven session lasts. */
export const SESSION_MS = 12 * 3_600_000
/** How recent a code the actions that redirect money or webhooks ask for. */
export const FRESH_MS = 5 * 60_000

/** The actions that redirect money or webhooks, in words; null for every other. */
export function redirectingAction(channel: ChannelName, input: unknown): string | null {
  if (channel === 'webhooks:setUrl') return 'setting the webhook URL'
  if (channel === 'team:addOperator' && (input as { role?: unknown } | null)?.role === 'admin') return 'adding an admin'
  // A stolen token must not swap the factor for its thief's: replacing one needs the old one.
  if (channel === 'team:enrolSecondFactor') return 'replacing your second factor'
  return null
}

/** A channel's input as the audit keeps it: a code confirming an enrolment is not kept. */
export function auditedInput(channel: ChannelName, input: unknown): unknown {
  return channel === 'team:confirmSecondFactor' ? { code: '(withheld)' } : input
}

export interface GateRefusal {
  kind: 'second_factor_required' | 'second_factor_invalid' | 'second_factor_locked'
  message: string
}

/** What the hub records of codes: one taken, and an operator locked out (until, ms). */
export interface GateEvents {
  proven?: (by: 'totp' | 'recovery') => void
  lockedOut?: (until: number) => void
}

/** When a lockout ends, in words: the minute after it, so that trying then works. */
export function lockoutMessage(until: number): string {
  const minute = new Date(Math.ceil(until / 60_000) * 60_000).toISOString().slice(11, 16)
  return `Too many wrong codes: try again after ${minute} UTC, or ask your team lead`
}

const WHY = {
  not_enrolled: 'has no second factor enrolled (npm run hub -- operator totp enrol NAME)',
  wrong: 'the second-factor code is wrong',
  replayed: 'that second-factor code was already used: wait for the next one'
} as const

/** What a proof is held by: the provider sign-in, else the token (a session id is no token hash: 64 hex digits). */
const proofKey = (op: Operator): string => (op.sessionId !== undefined ? `session:${op.sessionId}` : op.tokenHash)

export class SecondFactorGate {
  /** When each session was last proven, by proofKey. */
  private readonly proofs = new Map<string, number>()

  constructor(private readonly o: { policy: SecondFactorPolicy; store: SecondFactorStore; now?: () => number }) {}

  get policy(): SecondFactorPolicy {
    return this.o.policy
  }

  private now(): number {
    return (this.o.now ?? Date.now)()
  }

  /**
   * Checks a request: a code sent is verified first (a wrong one is refused whatever the
   * channel); answers null when the request may go on, else why not. `on` hears of a code
   * taken and of a lockout begun, for the audit.
   */
  async check(
    op: Operator,
    channel: ChannelName,
    input: unknown,
    code: string | undefined,
    on: GateEvents = {}
  ): Promise<GateRefusal | null> {
    const at = this.now()
    if (code !== undefined) {
      const r = await checkSecondFactor(this.o.store, op.name, code, at)
      if (!r.ok) {
        if (r.why !== 'locked')
          return { kind: 'second_factor_invalid', message: r.why === 'not_enrolled' ? `${op.name} ${WHY.not_enrolled}` : WHY[r.why] }
        if (r.lockedNow) on.lockedOut?.(r.until)
        return { kind: 'second_factor_locked', message: lockoutMessage(r.until) }
      }
      this.proofs.set(proofKey(op), at)
      on.proven?.(r.by)
    }
    const required = this.o.policy === 'admins' && op.role === 'admin'
    const action = redirectingAction(channel, input)
    if (!required && action === null) return null
    if (required && op.account === 'service' && channelAccess(channel) === 'admin')
      return {
        kind: 'second_factor_required',
        message: `this hub requires a second factor for admin actions, and ${op.name} is a service account, which cannot prove one`
      }
    const provenAt = this.proofs.get(proofKey(op))
    if (action !== null) {
      // A first enrolment has no old factor to ask for.
      if ((!required || channel === 'team:enrolSecondFactor') && (await this.o.store.secretOf(op.name)) === null) return null
      if (provenAt !== undefined && at - provenAt <= FRESH_MS) return null
      return {
        kind: 'second_factor_required',
        message: `${action} needs a code from your authenticator app from the last ${FRESH_MS / 60_000} minutes`
      }
    }
    if (channelAccess(channel) !== 'admin') return null
    if (provenAt !== undefined && at - provenAt <= SESSION_MS) return null
    if ((await this.o.store.secretOf(op.name)) === null)
      return {
        kind: 'second_factor_required',
        message: `this hub requires a second factor for admins, and ${op.name} has none enrolled yet: set one up in Settings (Sign-in code), or ask your team lead to run operator totp enrol ${op.name}`
      }
    return {
      kind: 'second_factor_required',
      message: 'this hub requires a second factor for admins: enter the code from your authenticator app'
    }
  }
}

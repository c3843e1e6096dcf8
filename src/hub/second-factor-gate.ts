// What the hub asks of a second factor, and when. A desktop proves it by sending a current code
// (or a recovery code) in the X-Rampdesk-Second-Factor header of any request; the hub then
// holds that token's session proven for SESSION_MS, in the store (so every hub on the same
// database, and a restarted one, holds it too; proofs older than that are dropped whenever one
// is kept). Each check reads the store, not a memory of its own: a second factor removed
// through any hub (or the command line) takes its proofs with it everywhere at once. For an
// operator signed in through the identity provider the session is
// the sign-in, not its access token, which renewal replaces every few minutes: a new sign-in
// proves again. With `--require-second-factor admins`, an admin whose session is not
// proven may do what an operator may, and no more, until it is. The actions that redirect money
// or webhooks (setting the webhook URL, adding an admin) ask more: a code from the last
// FRESH_MS, from anyone enrolled and from every admin where it is required. A service account
// cannot enrol, so where it is required an admin service account cannot take admin actions.
// An operator locked out by wrong codes (second-factor.ts) is refused every code until the
// lockout ends, and told until when (retryAt). A stored second factor this hub's key does
// not open is refused as second_factor_unavailable, never as not enrolled or a wrong code.
// Every refusal carries `secondFactor`, which one it is, for the desktop's own words; its
// message is the hub's, for the log, Diagnostics and older desktops.
import { createHash } from 'node:crypto'
import type { ChannelName, SecondFactorRefusal } from '../shared/ipc/contract'
import { channelAccess } from '../shared/ipc/team-access'
import type { Operator } from './operators'
import { checkSecondFactor, type SecondFactorStore } from './second-factor'
import { KEY_MISMATCH_WORDS, SecondFactorKeyMismatch } from './second-factor-key'

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
  kind: 'second_factor_required' | 'second_factor_invalid' | 'second_factor_locked' | 'second_factor_unavailable'
  message: string
  secondFactor: SecondFactorRefusal
  /** When a lockout ends (ISO 8601). */
  retryAt?: string
}

/** What the hub records of codes: one taken, and an operator locked out (until, ms). */
export interface GateEvents {
  proven?: (by: 'totp' | 'recovery') => void
  lockedOut?: (until: number) => void
}

/** When trying again after a lockout works: the minute after it ends (what the words name, too). */
export const lockoutEnd = (until: number): number => Math.ceil(until / 60_000) * 60_000

/** When a lockout ends, in the hub's words (UTC); a desktop words it from retryAt in its own time. */
export function lockoutMessage(until: number): string {
  const minute = new Date(lockoutEnd(until)).toISOString().slice(11, 16)
  return `Too many wrong codes: try again after ${minute} UTC, or ask your team lead`
}

const WHY = {
  not_enrolled: 'has no second factor enrolled (npm run hub -- operator totp enrol NAME)',
  wrong: 'the second-factor code is wrong',
  replayed: 'that second-factor code was already used: wait for the next one'
} as const

/**
 * What a proof is held by: the provider sign-in, else the token (a session id is no token
 * hash: 64 hex digits); hashed, so that the store keeps no session id.
 */
export const proofKey = (op: Operator): string =>
  createHash('sha256')
    .update(op.sessionId !== undefined ? `session:${op.sessionId}` : op.tokenHash, 'utf8')
    .digest('hex')

/** The refusal for a stored second factor this hub's key does not open. */
const unavailable = (): GateRefusal => ({ kind: 'second_factor_unavailable', message: KEY_MISMATCH_WORDS, secondFactor: 'key_mismatch' })

export class SecondFactorGate {
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
    try {
      return await this.checked(op, channel, input, code, on)
    } catch (e) {
      if (e instanceof SecondFactorKeyMismatch) return unavailable()
      throw e
    }
  }

  /** When this session was last proven, if it was since `since`, as the store says now. */
  private async provenSince(key: string, since: number): Promise<number | undefined> {
    const stored = await this.o.store.provenAt(key)
    return stored === null || stored < since ? undefined : stored
  }

  private async proven(op: Operator, key: string, at: number): Promise<void> {
    await this.o.store.prove(key, op.name, at, at - SESSION_MS)
  }

  private async checked(
    op: Operator,
    channel: ChannelName,
    input: unknown,
    code: string | undefined,
    on: GateEvents
  ): Promise<GateRefusal | null> {
    const at = this.now()
    const key = proofKey(op)
    if (code !== undefined) {
      const r = await checkSecondFactor(this.o.store, op.name, code, at, key)
      if (!r.ok) {
        if (r.why !== 'locked')
          return {
            kind: 'second_factor_invalid',
            message: r.why === 'not_enrolled' ? `${op.name} ${WHY.not_enrolled}` : WHY[r.why],
            secondFactor: r.why
          }
        if (r.lockedNow) on.lockedOut?.(r.until)
        return {
          kind: 'second_factor_locked',
          message: lockoutMessage(r.until),
          secondFactor: 'locked',
          retryAt: new Date(r.until).toISOString()
        }
      }
      await this.proven(op, key, at)
      on.proven?.(r.by)
    }
    const required = this.o.policy === 'admins' && op.role === 'admin'
    const action = redirectingAction(channel, input)
    if (!required && action === null) return null
    if (required && op.account === 'service' && channelAccess(channel) === 'admin')
      return {
        kind: 'second_factor_required',
        message: `this hub requires a second factor for admin actions, and ${op.name} is a service account, which cannot prove one`,
        secondFactor: 'service_account'
      }
    if (action !== null) {
      // A first enrolment has no old factor to ask for.
      if ((!required || channel === 'team:enrolSecondFactor') && (await this.o.store.secretOf(op.name)) === null) return null
      if ((await this.provenSince(key, at - FRESH_MS)) !== undefined) return null
      return {
        kind: 'second_factor_required',
        message: `${action} needs a code from your authenticator app from the last ${FRESH_MS / 60_000} minutes`,
        secondFactor: 'needed_fresh'
      }
    }
    if (channelAccess(channel) !== 'admin') return null
    if ((await this.provenSince(key, at - SESSION_MS)) !== undefined) return null
    if ((await this.o.store.secretOf(op.name)) === null)
      return {
        kind: 'second_factor_required',
        message: `this hub requires a second factor for admins, and ${op.name} has none enrolled yet: set one up in Settings (Sign-in code), or ask your team lead to run operator totp enrol ${op.name}`,
        secondFactor: 'not_enrolled'
      }
    return {
      kind: 'second_factor_required',
      message: 'this hub requires a second factor for admins: enter the code from your authenticator app',
      secondFactor: 'needed'
    }
  }
}

// Enrolling one's own second factor from a desktop (team:enrolSecondFactor, then
// team:confirmSecondFactor): the hub makes a secret and recovery codes and hands them over
// this once, but keeps them, in this hub's memory only, until a code from the authenticator
// app shows the secret was added; only then are they stored (sealed, second-factor-key.ts),
// replacing any earlier enrolment. An enrolment not confirmed within ENROLMENT_MS is dropped.
// Both are capped per operator beyond the hub's request rate: ENROL_STARTS new secrets in
// ENROL_WINDOW_MS, and MAX_CONFIRM_TRIES wrong codes drop the enrolment under way. Replacing
// a second factor already enrolled needs a fresh code of the old one (second-factor-gate.ts).
import type { SecondFactorEnrolment, SecondFactorStatus } from '../shared/ipc/contract'
import type { TeamOperator } from '../shared/ipc/contract'
import { hashRecoveryCode, newEnrolment, TOTP_PERIOD_S, totpDelta, type SecondFactorStore } from './second-factor'

export const ENROLMENT_MS = 10 * 60_000
export const ENROL_STARTS = 5
export const ENROL_WINDOW_MS = 15 * 60_000
export const MAX_CONFIRM_TRIES = 5
/** What the otpauth label names after the operator: the same as `operator totp enrol`. */
const HUB_LABEL = 'rampdesk-hub'

/** An error the envelope carries with its kind (toEnvelopeError). */
const refusal = (kind: 'forbidden' | 'rate_limited' | 'second_factor_invalid', message: string) =>
  Object.assign(new Error(message), { kind, retryable: kind === 'rate_limited' })

interface Pending {
  secret: string
  recoveryHashes: string[]
  expiresAt: number
  wrong: number
}

export class SecondFactorEnrolments {
  private readonly pending = new Map<string, Pending>()
  private readonly starts = new Map<string, number[]>()

  constructor(
    private readonly store: SecondFactorStore,
    private readonly now: () => number
  ) {}

  async status(name: string): Promise<SecondFactorStatus> {
    const enrolled = (await this.store.secretOf(name)) !== null
    return { enrolled, recoveryCodesLeft: enrolled ? await this.store.recoveryCodesLeft(name) : 0 }
  }

  start(op: TeamOperator): SecondFactorEnrolment {
    if (op.account === 'service')
      throw refusal('forbidden', `${op.name} is a service account: it signs in with its token alone and cannot enrol a second factor`)
    const at = this.now()
    const key = op.name.toLowerCase()
    const recent = (this.starts.get(key) ?? []).filter((t) => t > at - ENROL_WINDOW_MS)
    if (recent.length >= ENROL_STARTS) {
      const minutes = Math.ceil((recent[0]! + ENROL_WINDOW_MS - at) / 60_000)
      throw refusal(
        'rate_limited',
        `${ENROL_STARTS} enrolments were started in the last ${ENROL_WINDOW_MS / 60_000} minutes: try again in ${minutes} min`
      )
    }
    this.starts.set(key, [...recent, at])
    const e = newEnrolment(op.name, HUB_LABEL)
    const expiresAt = at + ENROLMENT_MS
    this.pending.set(key, { secret: e.secret, recoveryHashes: e.recoveryCodes.map(hashRecoveryCode), expiresAt, wrong: 0 })
    return { uri: e.uri, recoveryCodes: e.recoveryCodes, expiresAt }
  }

  async confirm(op: TeamOperator, code: string): Promise<SecondFactorStatus> {
    const at = this.now()
    const key = op.name.toLowerCase()
    const p = this.pending.get(key)
    if (!p || p.expiresAt <= at) {
      this.pending.delete(key)
      throw refusal(
        'second_factor_invalid',
        p ? 'the enrolment took longer than 10 minutes: start again' : 'no enrolment is under way on this hub: start again'
      )
    }
    const delta = totpDelta(p.secret, code, at)
    if (delta === null) {
      p.wrong++
      if (p.wrong >= MAX_CONFIRM_TRIES) {
        this.pending.delete(key)
        throw refusal('second_factor_invalid', `${MAX_CONFIRM_TRIES} wrong codes: the enrolment was dropped, start again`)
      }
      throw refusal(
        'second_factor_invalid',
        'that code does not match: check that the clock of your phone is right and type the newest code'
      )
    }
    this.pending.delete(key)
    await this.store.enrol(op.name, p.secret, p.recoveryHashes, at)
    // The code that confirmed it is used: it does not prove a session too.
    await this.store.takeStep(op.name, Math.floor(at / 1000 / TOTP_PERIOD_S) + delta)
    return { enrolled: true, recoveryCodesLeft: p.recoveryHashes.length }
  }
}

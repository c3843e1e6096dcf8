// Enrolling one's own second factor from a desktop (team:enrolSecondFactor, then
// team:confirmSecondFactor): the hub makes a secret and recovery codes and hands them over
// this once, but keeps them, in the store's enrolments under way (the secret sealed like an
// enrolled one, second-factor-key.ts), until a code from the authenticator app shows the
// secret was added; only then are they stored as the operator's second factor, replacing any
// earlier enrolment. Kept in the store, not in one hub's memory, so that a desktop moved to
// another hub on the same database (or a restarted hub) confirms what it started. An
// enrolment not confirmed within ENROLMENT_MS is dropped. Both are capped per operator beyond
// the hub's request rate: ENROL_STARTS new secrets in ENROL_WINDOW_MS, and MAX_CONFIRM_TRIES
// wrong codes drop the enrolment under way. Replacing a second factor already enrolled needs
// a fresh code of the old one (second-factor-gate.ts).
//
// Each refusal carries, beside its words, `secondFactor`: which refusal it is, so that a
// desktop words it itself (the hub's message is kept for older desktops and Diagnostics).
import type { SecondFactorEnrolment, SecondFactorRefusal, SecondFactorStatus } from '../shared/ipc/contract'
import type { TeamOperator } from '../shared/ipc/contract'
import { hashRecoveryCode, newEnrolment, TOTP_PERIOD_S, totpDelta, type SecondFactorStore } from './second-factor'

export const ENROLMENT_MS = 10 * 60_000
export const ENROL_STARTS = 5
export const ENROL_WINDOW_MS = 15 * 60_000
export const MAX_CONFIRM_TRIES = 5
/** What the otpauth label names after the operator: the same as `operator totp enrol`. */
const HUB_LABEL = 'rampdesk-hub'
/** Whose step the code that confirmed an enrolment was taken by: no session, so it proves none. */
const ENROLMENT_TAKER = 'enrolment'

/** An error the envelope carries with its kind (toEnvelopeError). */
const refusal = (
  kind: 'forbidden' | 'rate_limited' | 'second_factor_invalid',
  message: string,
  extra: { secondFactor?: SecondFactorRefusal; retryAt?: string } = {}
) => Object.assign(new Error(message), { kind, retryable: kind === 'rate_limited', ...extra })

export class SecondFactorEnrolments {
  constructor(
    private readonly store: SecondFactorStore,
    private readonly now: () => number
  ) {}

  async status(name: string): Promise<SecondFactorStatus> {
    const enrolled = (await this.store.secretOf(name)) !== null
    return { enrolled, recoveryCodesLeft: enrolled ? await this.store.recoveryCodesLeft(name) : 0 }
  }

  async start(op: TeamOperator): Promise<SecondFactorEnrolment> {
    if (op.account === 'service')
      throw refusal('forbidden', `${op.name} is a service account: it signs in with its token alone and cannot enrol a second factor`, {
        secondFactor: 'service_account'
      })
    const at = this.now()
    const first = await this.store.recordStart(op.name, at, at - ENROL_WINDOW_MS, ENROL_STARTS)
    if (first !== null) {
      const retryAt = first + ENROL_WINDOW_MS
      const minutes = Math.ceil((retryAt - at) / 60_000)
      throw refusal(
        'rate_limited',
        `${ENROL_STARTS} enrolments were started in the last ${ENROL_WINDOW_MS / 60_000} minutes: try again in ${minutes} min`,
        { secondFactor: 'enrol_starts', retryAt: new Date(retryAt).toISOString() }
      )
    }
    const e = newEnrolment(op.name, HUB_LABEL)
    const expiresAt = at + ENROLMENT_MS
    await this.store.putPending(op.name, { secret: e.secret, recoveryHashes: e.recoveryCodes.map(hashRecoveryCode), expiresAt })
    return { uri: e.uri, recoveryCodes: e.recoveryCodes, expiresAt }
  }

  async confirm(op: TeamOperator, code: string): Promise<SecondFactorStatus> {
    const at = this.now()
    const p = await this.store.pendingOf(op.name)
    if (!p || p.expiresAt <= at) {
      if (p) await this.store.dropPending(op.name)
      throw refusal(
        'second_factor_invalid',
        p ? 'the enrolment took longer than 10 minutes: start again' : 'no enrolment is under way on this hub: start again',
        { secondFactor: p ? 'enrolment_expired' : 'enrolment_missing' }
      )
    }
    const delta = totpDelta(p.secret, code, at)
    if (delta === null) {
      if ((await this.store.pendingWrong(op.name)) >= MAX_CONFIRM_TRIES) {
        await this.store.dropPending(op.name)
        throw refusal('second_factor_invalid', `${MAX_CONFIRM_TRIES} wrong codes: the enrolment was dropped, start again`, {
          secondFactor: 'enrolment_dropped'
        })
      }
      throw refusal(
        'second_factor_invalid',
        'that code does not match: check that the clock of your phone is right and type the newest code',
        { secondFactor: 'wrong' }
      )
    }
    await this.store.enrol(op.name, p.secret, p.recoveryHashes, at)
    await this.store.dropPending(op.name)
    // The code that confirmed it is used: it does not prove a session too.
    await this.store.takeStep(op.name, Math.floor(at / 1000 / TOTP_PERIOD_S) + delta, ENROLMENT_TAKER)
    return { enrolled: true, recoveryCodesLeft: p.recoveryHashes.length }
  }
}

// Asking this desktop's operator for a second-factor code when the team hub wants one: the
// call the hub refused waits while the dialog (SecondFactorDialog.svelte) asks, and is sent
// again once a code proved the session; calls refused meanwhile wait for the same answer. An
// operator with no second factor enrolled is not asked (there is no code to give): the
// refusal is shown where it happened, as before. The code goes to main and on to the hub; it
// is kept here only while typed and never logged.
import type { ChannelOutput, ErrorInfo } from '../../../shared/ipc/contract'

/** The ErrorInfo a refused call carries (bridge.ts's UiError), or the error in words. */
const infoOf = (e: unknown): ErrorInfo =>
  e instanceof Error && 'info' in e && typeof (e as { info?: unknown }).info === 'object'
    ? (e as Error & { info: ErrorInfo }).info
    : { kind: 'internal', message: e instanceof Error ? e.message : String(e), retryable: false }

type Prove = (code: string) => Promise<ChannelOutput<'team:proveSecondFactor'>>
type Status = () => Promise<ChannelOutput<'team:secondFactor'>>

/** The dialog's state: closed, asking (with what went wrong last), or telling that a recovery code was used. */
export type SecondFactorPrompt =
  { kind: 'closed' } | { kind: 'asking'; why: string; problem: string | null; busy: boolean } | { kind: 'recovered'; left: number }

/** In words an operator on the phone can act on: what the hub said of a refused code. */
export function codeProblem(e: ErrorInfo, typed: string): string {
  if (e.kind === 'second_factor_locked') return e.message
  if (e.kind === 'second_factor_invalid') {
    if (/already used/.test(e.message)) return 'That code was just used. Wait for the next one (a new code comes every 30 seconds).'
    if (!/^\d{6}$/.test(typed.trim())) return 'That recovery code is not right, or it was used already (each works once).'
    if (/wrong/.test(e.message))
      return 'That code is not right. Type the newest code your authenticator app shows; check that the phone’s clock is right.'
  }
  return e.message
}

class SecondFactorAsk {
  prompt = $state<SecondFactorPrompt>({ kind: 'closed' })
  private waiting: Promise<boolean> | null = null
  private settle: ((proven: boolean) => void) | null = null

  constructor(
    private readonly prove: Prove,
    private readonly status: Status
  ) {}

  /** Asks for a code because of `refusal`; true once one proved the session, false when the operator cancelled. */
  ask(refusal: ErrorInfo): Promise<boolean> {
    if (this.waiting) return this.waiting
    this.waiting = (async () => {
      const enrolled = await this.status().then(
        (s) => s.enrolled,
        () => false
      )
      if (!enrolled) return false
      return new Promise<boolean>((resolve) => {
        this.settle = resolve
        this.prompt = { kind: 'asking', why: refusal.message, problem: null, busy: false }
      })
    })().finally(() => {
      this.waiting = null
    })
    return this.waiting
  }

  async submit(code: string): Promise<void> {
    if (this.prompt.kind !== 'asking' || this.prompt.busy) return
    this.prompt = { ...this.prompt, busy: true, problem: null }
    try {
      const r = await this.prove(code.trim())
      if (r.by === 'recovery') this.prompt = { kind: 'recovered', left: r.recoveryCodesLeft }
      else this.done(true)
    } catch (e) {
      if (this.prompt.kind === 'asking') this.prompt = { ...this.prompt, busy: false, problem: codeProblem(infoOf(e), code) }
    }
  }

  /** After a recovery code was used and said so: the call goes on. */
  carryOn(): void {
    this.done(true)
  }

  cancel(): void {
    this.done(false)
  }

  private done(proven: boolean): void {
    this.prompt = { kind: 'closed' }
    const settle = this.settle
    this.settle = null
    settle?.(proven)
  }
}

export function secondFactorAsk(prove: Prove, status: Status): SecondFactorAsk {
  return new SecondFactorAsk(prove, status)
}
export type { SecondFactorAsk }

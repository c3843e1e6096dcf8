// Asking this desktop's operator for a second-factor code when the team hub wants one: the
// call the hub refused waits while the dialog (SecondFactorDialog.svelte) asks, and is sent
// again once a code proved the session; calls refused meanwhile wait for the same answer. An
// operator with no second factor enrolled is not asked (there is no code to give): the
// refusal is shown where it happened, as before; a hub that cannot check codes at all (its
// key file does not match) is said so, never taken for "not enrolled". The code goes to main
// and on to the hub; it is kept here only while typed and never logged. Every refusal is in
// the desktop's words (second-factor-words.ts), the hub's own message staying in Diagnostics.
import type { ChannelOutput, ErrorInfo } from '../../../shared/ipc/contract'
import { operatorErrorText } from '../../../shared/api/error-words'
import { SECOND_FACTOR_WORDS, secondFactorWords } from '../../../shared/second-factor-words'

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

/** In words an operator on the phone can act on: what the hub said of a refused code. `minute`: the operator's clock. */
export function codeProblem(e: ErrorInfo, typed: string | undefined, minute?: (ms: number) => string): string {
  return (
    secondFactorWords(e, { ...(typed !== undefined ? { typed } : {}), ...(minute ? { minute } : {}) }) ??
    operatorErrorText(e, minute ? { minute } : {})
  )
}

class SecondFactorAsk {
  prompt = $state<SecondFactorPrompt>({ kind: 'closed' })
  private waiting: Promise<boolean> | null = null
  private settle: ((proven: boolean) => void) | null = null

  constructor(
    private readonly prove: Prove,
    private readonly status: Status,
    private readonly minute?: (ms: number) => string
  ) {}

  /** Asks for a code because of `refusal`; true once one proved the session, false when the operator cancelled. */
  ask(refusal: ErrorInfo): Promise<boolean> {
    if (this.waiting) return this.waiting
    this.waiting = (async () => {
      const enrolled = await this.status().then(
        (s) => s.enrolled,
        (e: unknown) => {
          // Not "not enrolled": the hub cannot tell, and the call fails with why.
          if (infoOf(e).kind === 'second_factor_unavailable') throw e
          return false
        }
      )
      if (!enrolled) return false
      return new Promise<boolean>((resolve) => {
        this.settle = resolve
        this.prompt = { kind: 'asking', why: secondFactorWords(refusal) ?? SECOND_FACTOR_WORDS.needed, problem: null, busy: false }
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
      if (this.prompt.kind === 'asking') this.prompt = { ...this.prompt, busy: false, problem: codeProblem(infoOf(e), code, this.minute) }
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

export function secondFactorAsk(prove: Prove, status: Status, minute?: (ms: number) => string): SecondFactorAsk {
  return new SecondFactorAsk(prove, status, minute)
}
export type { SecondFactorAsk }

// Confirming a change that weakens security or touches production, in main, where the
// window cannot answer for the operator. The desktop shell asks with a native dialog
// (src/main/electron/confirm-dialog.ts). The browser harness has no dialog of its own, so
// main makes a one-time code and shows it where the harness was started (its terminal),
// never to the window; the window asks the operator to type it back (confirm:answer). A
// script running in the page (an injected one, an extension) sees that a confirmation is
// pending but not the code, so it cannot confirm by itself.
import { randomInt, randomUUID, timingSafeEqual } from 'node:crypto'
import type { ConfirmOutcome, EventName, EventPayload } from '../shared/ipc/contract'

/** What the operator is asked to confirm. */
export interface ConfirmationPrompt {
  /** The change, as the audit log names it (allowPlaintextSecrets, inboxBeyondLoopback, webhookUrl). */
  change: string
  title: string
  message: string
  detail: string
  /** The label of the button that goes ahead. */
  confirmLabel: string
}

/** Asks the operator; true only when they confirmed. */
export type Confirm = (prompt: ConfirmationPrompt) => Promise<boolean>

/** A change was not confirmed: nothing was changed. */
export class NotConfirmedError extends Error {
  readonly kind = 'not_confirmed'
  readonly retryable = false
  constructor(prompt: ConfirmationPrompt) {
    super(`${prompt.title}: not confirmed, so nothing was changed.`)
    this.name = 'NotConfirmedError'
  }
}

export interface TypedConfirmationsOptions {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  /** Shows a line outside the window (the terminal of npm run web). Without it every request is refused. */
  show?: (line: string) => void
  /** Where `show` puts the code, in words for the window ("the terminal where npm run web runs"). */
  shownIn?: string
  now: () => number
  /** How long a code is valid (default 2 minutes). */
  ttlMs?: number
  /** Wrong codes allowed before the request is refused (default 3). */
  maxAttempts?: number
}

interface Pending {
  code: string
  attemptsLeft: number
  timer: NodeJS.Timeout
  settle(outcome: ConfirmOutcome): void
}

/** Eight digits as 1234-5678: easy to type, and three guesses in 10^8 never land. */
function newCode(): string {
  const n = String(randomInt(0, 100_000_000)).padStart(8, '0')
  return `${n.slice(0, 4)}-${n.slice(4)}`
}

const digits = (s: string): string => s.replace(/[^0-9]/g, '')

function sameCode(typed: string, code: string): boolean {
  const a = Buffer.from(digits(typed))
  const b = Buffer.from(digits(code))
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Typed one-time codes, for a shell without a native dialog. */
export class TypedConfirmations {
  private readonly pending = new Map<string, Pending>()

  constructor(private readonly o: TypedConfirmationsOptions) {}

  confirm: Confirm = (prompt) => {
    const show = this.o.show
    if (!show) return Promise.resolve(false)
    const id = randomUUID()
    const code = newCode()
    const ttlMs = this.o.ttlMs ?? 120_000
    return new Promise<boolean>((resolve) => {
      const settle = (outcome: ConfirmOutcome): void => {
        const p = this.pending.get(id)
        if (!p) return
        clearTimeout(p.timer)
        this.pending.delete(id)
        this.o.emit('confirm:settled', { id, outcome })
        resolve(outcome === 'confirmed')
      }
      const timer = setTimeout(() => settle('expired'), ttlMs)
      timer.unref()
      this.pending.set(id, { code, attemptsLeft: this.o.maxAttempts ?? 3, timer, settle })
      show(`Rampdesk asks you to confirm: ${prompt.title}`)
      show(`  ${prompt.message}`)
      show(`  To confirm, type ${code} in the browser within ${Math.round(ttlMs / 1000)} s; to refuse, cancel there or let it expire.`)
      this.o.emit('confirm:request', {
        id,
        title: prompt.title,
        message: prompt.message,
        detail: prompt.detail,
        confirmLabel: prompt.confirmLabel,
        codeShownIn: this.o.shownIn ?? 'the terminal where Rampdesk was started',
        expiresAt: this.o.now() + ttlMs
      })
    })
  }

  /** The window's answer: the typed code, or null to cancel. */
  answer(id: string, typed: string | null): { outcome: ConfirmOutcome; attemptsLeft: number } {
    const p = this.pending.get(id)
    if (!p) return { outcome: 'unknown', attemptsLeft: 0 }
    if (typed === null) {
      p.settle('cancelled')
      return { outcome: 'cancelled', attemptsLeft: 0 }
    }
    if (sameCode(typed, p.code)) {
      p.settle('confirmed')
      return { outcome: 'confirmed', attemptsLeft: p.attemptsLeft }
    }
    p.attemptsLeft--
    if (p.attemptsLeft <= 0) {
      p.settle('cancelled')
      return { outcome: 'cancelled', attemptsLeft: 0 }
    }
    return { outcome: 'wrong_code', attemptsLeft: p.attemptsLeft }
  }

  /** Refuses every pending request (shutdown). */
  close(): void {
    for (const p of [...this.pending.values()]) p.settle('cancelled')
  }
}

// Asks the service as the operator types, without flooding it: each change waits for a
// pause in typing (debounce), at most one request is in flight, and only the answer to
// what is asked now is shown; an answer to an earlier input is dropped. A refresh (the
// button) skips the pause and asks again even for the same input. Quotes use it; it is
// plain TypeScript with injectable timers so it is unit-tested without a browser.

export interface LatestRequestOptions<I, O> {
  /** The request itself. */
  send: (input: I) => Promise<O>
  /** Equal keys mean the same request: a change that keeps the key sends nothing new. */
  key: (input: I) => string
  /** The pause in typing to wait for before asking. */
  debounceMs: number
  /** The answer to the current input. */
  onAnswer: (input: I, value: O) => void
  /** The current input's request failed. */
  onError: (input: I, error: unknown) => void
  /** Whether a request is in flight or waiting to be sent. */
  onBusy?: (busy: boolean) => void
  timers?: { set: (fn: () => void, ms: number) => unknown; clear: (handle: unknown) => void }
}

export class LatestRequest<I, O> {
  #wanted: I | null = null
  /** The key of the request in flight, or null. */
  #inFlight: string | null = null
  /** The key of the last request answered (or failed) for the current input. */
  #answered: string | null = null
  #timer: unknown = null
  #force = false
  #busy = false
  #closed = false
  readonly #o: LatestRequestOptions<I, O>
  readonly #timers: NonNullable<LatestRequestOptions<I, O>['timers']>

  constructor(o: LatestRequestOptions<I, O>) {
    this.#o = o
    this.#timers = o.timers ?? { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) }
  }

  /** What is asked now changed (typing): sent after the pause, unless it is what was last asked. null asks nothing. */
  change(input: I | null): void {
    this.#wanted = input
    this.#force = false
    this.#stopTimer()
    if (input !== null && this.#o.key(input) !== this.#answered) {
      this.#timer = this.#timers.set(() => {
        this.#timer = null
        this.#flush()
      }, this.#o.debounceMs)
    }
    this.#setBusy()
  }

  /** Ask now, without the pause, even if the same input was answered. */
  refresh(input: I): void {
    this.#wanted = input
    this.#force = true
    this.#stopTimer()
    this.#flush()
  }

  /** Forget the input (the operator changed direction or coin): nothing pending is sent, an answer in flight is dropped. */
  clear(): void {
    this.change(null)
    this.#answered = null
  }

  close(): void {
    this.#closed = true
    this.#stopTimer()
    this.#wanted = null
  }

  get busy(): boolean {
    return this.#busy
  }

  #stopTimer(): void {
    if (this.#timer !== null) this.#timers.clear(this.#timer)
    this.#timer = null
  }

  #currentKey(): string | null {
    return this.#wanted === null ? null : this.#o.key(this.#wanted)
  }

  #flush(): void {
    const input = this.#wanted
    if (this.#closed || input === null) return this.#setBusy()
    // One at a time: what is wanted now goes out when the answer in flight arrives.
    if (this.#inFlight !== null) return this.#setBusy()
    const key = this.#o.key(input)
    if (!this.#force && key === this.#answered) return this.#setBusy()
    this.#force = false
    this.#inFlight = key
    this.#setBusy()
    const settle = (deliver: () => void) => {
      this.#inFlight = null
      if (this.#closed) return
      // Only the answer to what is asked now is shown.
      if (this.#currentKey() === key) {
        this.#answered = key
        deliver()
      }
      if (this.#timer === null) this.#flush()
      else this.#setBusy()
    }
    this.#o.send(input).then(
      (value) => settle(() => this.#o.onAnswer(input, value)),
      (error: unknown) => settle(() => this.#o.onError(input, error))
    )
  }

  #setBusy(): void {
    const busy = !this.#closed && (this.#inFlight !== null || this.#timer !== null)
    if (busy === this.#busy) return
    this.#busy = busy
    this.#o.onBusy?.(busy)
  }
}

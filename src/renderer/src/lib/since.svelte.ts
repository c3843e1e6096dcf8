// "Since you were here": when the operator opens the app or comes back (the window shown
// again, or the first input after a while without any, which also covers a computer that
// slept or was locked: no input reaches a window meanwhile), one summary of what changed
// since they last looked (activity:since). Main keeps the last look per profile; it moves
// forward while the operator is here with no summary standing (they see what happens live),
// when they dismiss the summary, and when they go away with none standing. An absence under
// MIN_AWAY_MS (a reload, a glance at another window) is no absence. Nothing to say is no summary.
import { call } from './bridge'
import { errorInfoOf } from './app-state.svelte'
import type { ActivitySummary, ErrorInfo } from '../../../shared/ipc/contract'

/** Without input this long, the operator is away; their next input is a return. */
export const IDLE_MS = 5 * 60_000
const IDLE_CHECK_MS = 15_000
/** Away for less than this, the operator has not been away: no summary. */
export const MIN_AWAY_MS = 2 * 60_000
/** How often the last look moves forward while the operator is here. */
export const PRESENT_EVERY_MS = 30_000
const INPUTS = ['pointerdown', 'keydown', 'wheel', 'mousemove', 'touchstart'] as const

type SinceState =
  { kind: 'quiet' } | { kind: 'looking' } | { kind: 'shown'; summary: ActivitySummary } | { kind: 'failed'; error: ErrorInfo }

class SinceYouWereHere {
  state = $state<SinceState>({ kind: 'quiet' })
  #lastInput = Date.now()
  #idle = false
  /** Which look is the latest: an older answer arriving late is dropped. */
  #seq = 0

  /** Listens for the operator leaving and coming back; returns the way to stop. */
  start(): () => void {
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') void this.away(Date.now())
      else void this.look()
    }
    const onInput = () => {
      this.#lastInput = Date.now()
      if (this.#idle) {
        this.#idle = false
        void this.look()
      }
    }
    const timer = setInterval(() => {
      if (!this.#idle && Date.now() - this.#lastInput >= IDLE_MS) {
        this.#idle = true
        // Looked at until the last input: a computer that slept since saw nothing after it.
        void this.away(this.#lastInput)
      }
    }, IDLE_CHECK_MS)
    // Here, with the window shown and nothing standing: seen until now, so an app closed
    // without a word (quit, crashed) still counts its absence from about when it went.
    const present = setInterval(() => {
      if (!this.#idle && document.visibilityState === 'visible') void this.away(Date.now())
    }, PRESENT_EVERY_MS)
    document.addEventListener('visibilitychange', onVisibility)
    for (const e of INPUTS) window.addEventListener(e, onInput, { passive: true, capture: true })
    return () => {
      clearInterval(timer)
      clearInterval(present)
      document.removeEventListener('visibilitychange', onVisibility)
      for (const e of INPUTS) window.removeEventListener(e, onInput, { capture: true })
    }
  }

  /** Asks what changed since the last look (the first look on this desktop only sets it). */
  async look(): Promise<void> {
    const seq = ++this.#seq
    if (this.state.kind !== 'shown') this.state = { kind: 'looking' }
    try {
      const last = await call('activity:lastLooked', {})
      if (last.at === null) {
        await call('activity:seen', {})
        if (seq === this.#seq) this.state = { kind: 'quiet' }
        return
      }
      if (Date.now() - last.at < MIN_AWAY_MS) {
        if (seq === this.#seq) this.state = { kind: 'quiet' }
        return
      }
      const summary = await call('activity:since', { since: last.at })
      if (seq !== this.#seq) return
      if (summary.groups.length) this.state = { kind: 'shown', summary }
      else {
        this.state = { kind: 'quiet' }
        await call('activity:seen', { at: summary.at })
      }
    } catch (e) {
      if (seq === this.#seq) this.state = { kind: 'failed', error: errorInfoOf(e) }
    }
  }

  /** Another profile is active: what was shown was the last one's. */
  async switched(): Promise<void> {
    this.state = { kind: 'quiet' }
    await this.look()
  }

  /** The operator has read it: looked at until the summary's moment, so nothing after it is lost. */
  async dismiss(): Promise<void> {
    const s = this.state
    this.state = { kind: 'quiet' }
    this.#seq++
    if (s.kind !== 'shown') return
    try {
      await call('activity:seen', { at: s.summary.at })
    } catch (e) {
      this.state = { kind: 'failed', error: errorInfoOf(e) }
    }
  }

  /** Seen until `at`, unless a summary is standing or being asked for (it would be lost). */
  private async away(at: number): Promise<void> {
    if (this.state.kind !== 'quiet') return
    await call('activity:seen', { at: Math.floor(at) }).catch(() => undefined)
  }
}

export const since = new SinceYouWereHere()

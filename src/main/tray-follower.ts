// Keeps the tray current: after the events that can change what it tells (sync states,
// orders created or changed, alerts raised or cleared, a profile switch) it asks tray:state again and hands the
// answer to the shell when it changed. A burst of events (a history page stores hundreds
// of orders) is one question, asked after a short pause, one at a time.
import type { EventName, TrayState } from '../shared/ipc/contract'

/** The events after which the tray may tell something else. */
export const TRAY_EVENTS: ReadonlySet<EventName> = new Set<EventName>([
  'sync:state',
  'order:created',
  'order:changed',
  'profile:changed',
  'alerts:changed'
])

export interface TrayFollowerOptions {
  subscribe(listener: (event: EventName, payload: unknown) => void): () => void
  /** tray:state */
  get(): Promise<TrayState>
  show(state: TrayState): void
  /** The pause that gathers a burst of events. Default 500 ms. */
  delayMs?: number
  timers?: { set: (fn: () => void, ms: number) => unknown; clear: (handle: unknown) => void }
}

export interface TrayFollower {
  /** Ask again after the pause (a theme change, a wake). */
  refresh(): void
  stop(): void
}

export function followTrayState(o: TrayFollowerOptions): TrayFollower {
  const timers = o.timers ?? { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) }
  const delayMs = o.delayMs ?? 500
  let timer: unknown = null
  let asking = false
  let again = false
  let stopped = false
  let last: string | null = null

  async function ask(): Promise<void> {
    timer = null
    if (stopped) return
    if (asking) {
      again = true
      return
    }
    asking = true
    try {
      const state = await o.get()
      const text = JSON.stringify(state)
      if (!stopped && text !== last) {
        last = text
        o.show(state)
      }
    } catch {
      // No session for a moment (a profile switch): the next event asks again.
    } finally {
      asking = false
      if (again && !stopped) {
        again = false
        schedule()
      }
    }
  }

  function schedule(): void {
    if (timer === null && !stopped) timer = timers.set(() => void ask(), delayMs)
  }

  const unsubscribe = o.subscribe((event) => {
    if (TRAY_EVENTS.has(event)) schedule()
  })
  void ask()

  return {
    refresh: schedule,
    stop() {
      stopped = true
      unsubscribe()
      if (timer !== null) timers.clear(timer)
      timer = null
    }
  }
}

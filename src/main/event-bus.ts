// The services' event fan-out: every contract event goes to each shell that subscribed
// (Electron's windows, the harness's event stream, tests). A listener that throws (a
// window closing under us) does not stop the others.
import type { EventName, EventPayload } from '../shared/ipc/contract'

export type EventListener = (event: EventName, payload: unknown) => void

export interface EventBus {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  subscribe(listener: EventListener): () => void
  clear(): void
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventListener>()
  return {
    emit(event, payload) {
      for (const l of listeners) {
        try {
          l(event, payload)
        } catch {
          // The others still get the event.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    clear: () => listeners.clear()
  }
}

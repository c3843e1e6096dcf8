// A window.rampdesk for the renderer's unit tests, standing where the preload does: each
// call goes through the real contract (invokeChannel parses the input with the channel's
// schema, runs the test's handler and answers the envelope), so a renderer module that
// sends an input main would refuse fails here as it would in the app. A channel the test
// gave no handler for answers an error envelope naming it. Events are pushed by the test.
import { invokeChannel } from '../../src/main/handlers/invoke'
import {
  channelNames,
  eventNames,
  methodName,
  type ChannelName,
  type ContractHandlers,
  type EventName,
  type EventPayload,
  type RampdeskBridge
} from '../../src/shared/ipc/contract'

export interface ContractBridge {
  bridge: RampdeskBridge
  /** Every call in order, with its input as the renderer sent it. */
  calls: { channel: ChannelName; input: unknown }[]
  /** Delivers an event to the renderer's subscribers. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  /** How many listeners an event has (a module that unsubscribes leaves none). */
  listeners(event: EventName): number
}

export function contractBridge(handlers: Partial<ContractHandlers>): ContractBridge {
  const all = Object.fromEntries(
    channelNames.map((c) => [
      c,
      handlers[c] ??
        (async () => {
          throw new Error(`no handler for ${c} in this test`)
        })
    ])
  ) as ContractHandlers
  const calls: ContractBridge['calls'] = []
  const subscribers = new Map<EventName, Set<(p: unknown) => void>>(eventNames.map((e) => [e, new Set()]))
  const api: Record<string, unknown> = {}
  for (const c of channelNames) {
    api[methodName(c)] = (input: unknown) => {
      calls.push({ channel: c, input })
      return invokeChannel(all, c, input)
    }
  }
  api.on = (event: EventName, listener: (p: unknown) => void) => {
    const set = subscribers.get(event)
    if (!set) throw new Error(`unknown event ${event}`)
    set.add(listener)
    return () => void set.delete(listener)
  }
  return {
    bridge: api as unknown as RampdeskBridge,
    calls,
    emit: (event, payload) => {
      for (const l of subscribers.get(event) ?? []) l(payload)
    },
    listeners: (event) => subscribers.get(event)?.size ?? 0
  }
}

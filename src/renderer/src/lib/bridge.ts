// The renderer's one way to main: window.rampdesk (Electron preload) or, in a plain
// browser, the same contract over the web harness (POST /rpc/<channel>, SSE /events).
// Either way every call returns the contract's envelope; `api` unwraps it and throws
// a UiError carrying the ErrorInfo so views can show a plain-words message.
import {
  channelNames,
  eventNames,
  methodName,
  type ChannelInput,
  type ChannelName,
  type ChannelOutput,
  type Envelope,
  type ErrorInfo,
  type EventName,
  type EventPayload,
  type MethodName,
  type RampdeskBridge,
  type ShellKind
} from '../../../shared/ipc/contract'

declare global {
  interface Window {
    rampdesk?: RampdeskBridge
  }
}

export class UiError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message)
    this.name = 'UiError'
  }
}

/**
 * POSTs a channel's input and resolves with the status and the whole body. XMLHttpRequest
 * rather than fetch: while keys are being typed, Chromium hands a fetch's body to the page
 * tens of ms after its headers (the body stream is read in tasks that input outranks),
 * and XMLHttpRequest delivers the whole body with its load event.
 */
function post(url: string, body: string): Promise<{ status: number; statusText: string; text: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    xhr.setRequestHeader('Content-Type', 'application/json')
    xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText })
    xhr.onerror = () => reject(new Error('the request failed'))
    xhr.onabort = () => reject(new Error('the request was aborted'))
    xhr.send(body)
  })
}

function httpBridge(): RampdeskBridge {
  const api: Record<string, unknown> = {}
  for (const c of channelNames) {
    api[methodName(c)] = async (input: unknown): Promise<Envelope<unknown>> => {
      try {
        const res = await post(`/rpc/${c}`, JSON.stringify(input ?? {}))
        try {
          return JSON.parse(res.text) as Envelope<unknown>
        } catch {
          return {
            ok: false,
            error: {
              kind: 'http',
              httpStatus: res.status,
              message: res.text.slice(0, 200) || res.statusText,
              retryable: res.status >= 500
            }
          }
        }
      } catch (e) {
        return {
          ok: false,
          error: {
            kind: 'network',
            message: `the Rampdesk harness is unreachable (${e instanceof Error ? e.message : String(e)})`,
            retryable: true
          }
        }
      }
    }
  }
  let source: EventSource | null = null
  const listeners = new Map<string, Set<(p: unknown) => void>>()
  const ensureSource = () => {
    if (source) return
    source = new EventSource('/events')
    for (const e of eventNames) {
      source.addEventListener(e, (m) => {
        const payload = JSON.parse((m as MessageEvent<string>).data) as unknown
        for (const l of listeners.get(e) ?? []) l(payload)
      })
    }
  }
  api.on = (event: EventName, listener: (p: unknown) => void) => {
    ensureSource()
    const set = listeners.get(event) ?? new Set()
    set.add(listener)
    listeners.set(event, set)
    return () => set.delete(listener)
  }
  return api as unknown as RampdeskBridge
}

export const bridge: RampdeskBridge = window.rampdesk ?? httpBridge()
export const shell: ShellKind = window.rampdesk ? 'electron' : 'web'

/** Asked when the team hub wants a second factor for a call: true once one proved the session. */
let askSecondFactor: ((refusal: ErrorInfo) => Promise<boolean>) | null = null
export function onSecondFactorNeeded(ask: (refusal: ErrorInfo) => Promise<boolean>): void {
  askSecondFactor = ask
}

/** Calls a channel and returns its value, or throws UiError. */
export async function call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  const fn = (bridge as unknown as Record<MethodName<C>, (i: unknown) => Promise<Envelope<ChannelOutput<C>>>>)[methodName(channel)]
  let env = await fn(input)
  // The hub wants a code first: asked for, then the same call once more.
  if (!env.ok && env.error.kind === 'second_factor_required' && askSecondFactor && (await askSecondFactor(env.error))) env = await fn(input)
  if (!env.ok) throw new UiError(env.error)
  return env.value
}

export function on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
  return bridge.on(event, listener)
}

// The preload: exposes window.rampdesk with one named method per contract channel and
// on(event) returning an unsubscribe. Raw ipcRenderer never reaches the page.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { channelNames, eventChannel, eventNames, methodName, type EventName } from '../shared/ipc/contract'

function buildBridge(
  invoke: (channel: string, input: unknown) => Promise<unknown>,
  subscribe: (channel: string, fn: (payload: unknown) => void) => () => void
) {
  const api: Record<string, unknown> = {}
  for (const c of channelNames) {
    api[methodName(c)] = (input: unknown) => invoke(c, input)
  }
  api.on = (event: EventName, listener: (payload: unknown) => void) => {
    if (!(eventNames as string[]).includes(event)) throw new Error(`unknown event ${String(event)}`)
    if (typeof listener !== 'function') throw new Error('listener must be a function')
    return subscribe(eventChannel(event), listener)
  }
  return Object.freeze(api)
}

const bridge = buildBridge(
  (channel, input) => ipcRenderer.invoke(channel, input),
  (channel, fn) => {
    const h = (_e: IpcRendererEvent, payload: unknown) => fn(payload)
    ipcRenderer.on(channel, h)
    return () => {
      ipcRenderer.removeListener(channel, h)
    }
  }
)

contextBridge.exposeInMainWorld('rampdesk', bridge)

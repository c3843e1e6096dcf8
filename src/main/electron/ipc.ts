// The only place ipcMain is used: one handle() wrapper registers every contract channel,
// checks that the sender is one of our windows showing one of our pages, then hands the
// call to invokeChannel (parse with the contract, run, answer the envelope). Events go
// out on the contract's event channels.
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron'
import { invokeChannel } from '../handlers/invoke'
import {
  ContractError,
  channelNames,
  eventChannel,
  toEnvelopeError,
  type ChannelName,
  type ContractHandlers,
  type Envelope,
  type EventName,
  type EventPayload
} from '../../shared/ipc/contract'

export interface SenderPolicy {
  /** Is this webContents one of the app's own windows? */
  isOurWebContents(wc: WebContents): boolean
  /** Is this URL one of the app's own pages? */
  isAppUrl(url: string): boolean
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>, policy: SenderPolicy): boolean {
  const frame = event.senderFrame
  if (!frame || !policy.isOurWebContents(event.sender)) return false
  // Only the top frame of our page may call in; never an iframe or a navigated-away page.
  if (frame.parent) return false
  return policy.isAppUrl(frame.url)
}

export async function dispatch<C extends ChannelName>(
  channel: C,
  handlers: ContractHandlers,
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  raw: unknown,
  policy: SenderPolicy
): Promise<Envelope<unknown>> {
  if (!isTrustedSender(event, policy)) {
    return {
      ok: false,
      error: toEnvelopeError(new ContractError('forbidden_sender', `refused ${channel}: the sender is not a Rampdesk window`))
    }
  }
  return invokeChannel(handlers, channel, raw)
}

/** Registers every channel; returns a function that removes them all. */
export function registerIpc(handlers: ContractHandlers, policy: SenderPolicy): () => void {
  for (const channel of channelNames) {
    ipcMain.handle(channel, (event, raw: unknown) => dispatch(channel, handlers, event, raw, policy))
  }
  return () => {
    for (const channel of channelNames) ipcMain.removeHandler(channel)
  }
}

export function sendEvent<E extends EventName>(targets: Iterable<WebContents>, event: E, payload: EventPayload<E>): void {
  for (const wc of targets) if (!wc.isDestroyed()) wc.send(eventChannel(event), payload)
}

// The one way a shell calls a contract channel: parse the raw input with the channel's
// schema, run its handler, and answer the envelope (the value, or the error as data).
// The Electron IPC and the web harness both go through it, each after its own sender
// check; a new shell serving the contract (a team hub over HTTP) does the same.
import {
  parseInput,
  toEnvelopeError,
  type ChannelName,
  type ChannelOutput,
  type ContractHandlers,
  type Envelope
} from '../../shared/ipc/contract'

export async function invokeChannel<C extends ChannelName>(
  handlers: ContractHandlers,
  channel: C,
  rawInput: unknown
): Promise<Envelope<ChannelOutput<C>>> {
  try {
    // An unknown channel is refused by the parse, before any handler is looked up.
    const input = parseInput(channel, rawInput)
    const handler = handlers[channel] as (i: unknown) => Promise<ChannelOutput<C>>
    return { ok: true, value: await handler(input) }
  } catch (e) {
    return { ok: false, error: toEnvelopeError(e) }
  }
}

// The channel handlers with their failures logged: a call that fails leaves a line with
// the channel and the error's kind and message (never its input), then fails as before.
// Input refused by the contract never reaches a handler and is not logged here.
import { channelNames, type ContractHandlers } from '../../shared/ipc/contract'
import type { Log } from './logger'
import { logError } from './log-lines'

export function withErrorLog(handlers: ContractHandlers, log: Log): ContractHandlers {
  const out: Record<string, (input: never) => Promise<unknown>> = {}
  for (const channel of channelNames) {
    const handler = handlers[channel] as (input: never) => Promise<unknown>
    out[channel] = async (input) => {
      try {
        return await handler(input)
      } catch (e) {
        logError(log, 'channel failed', e, { channel })
        throw e
      }
    }
  }
  return out as unknown as ContractHandlers
}

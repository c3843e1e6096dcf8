// team:* on a desktop outside a team: every channel is its own to call, and operators
// are managed on a team hub (a Team profile forwards these channels to it).
import { channelNames } from '../../shared/ipc/contract'
import type { HandlerSlice } from './context'

const notTeam = (): never => {
  throw new Error('operators are managed on a team hub: switch to a Team profile of an admin first')
}

const noHub = (): never => {
  throw new Error('a second factor is kept by a team hub: switch to a Team profile first')
}

export function teamHandlers(): HandlerSlice<'team'> {
  return {
    'team:access': async () => ({ team: null, channels: [...channelNames] }),
    'team:operators': async () => notTeam(),
    'team:addOperator': async () => notTeam(),
    'team:revokeOperator': async () => notTeam(),
    'team:secondFactor': async () => noHub(),
    'team:proveSecondFactor': async () => noHub(),
    'team:enrolSecondFactor': async () => noHub(),
    'team:confirmSecondFactor': async () => noHub()
  }
}

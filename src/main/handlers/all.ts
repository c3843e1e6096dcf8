// Every namespace's slice of the contract's handlers, put together over one context: the
// table a desktop answers from itself (a Team profile forwards part of it, team-routing.ts).
import type { ContractHandlers } from '../../shared/ipc/contract'
import type { HandlerContext } from './context'
import { appHandlers } from './app'
import { profileHandlers } from './profiles'
import { signInHandlers } from './sign-in'
import { secretHandlers } from './secrets'
import { settingsHandlers } from './settings'
import { configHandlers } from './config'
import { tickerHandlers } from './tickers'
import { quoteHandlers } from './quotes'
import { orderHandlers } from './orders'
import { syncHandlers } from './sync'
import { diagnosticsHandlers } from './diagnostics'
import { webhookHandlers } from './webhooks'
import { auditHandlers } from './audit'
import { trayHandlers } from './tray'
import { confirmHandlers } from './confirm'
import { teamHandlers } from './team'
import { alertHandlers } from './alerts'
import { activityHandlers } from './activity'

export function allHandlers(context: HandlerContext): ContractHandlers {
  return {
    ...appHandlers(context),
    ...profileHandlers(context),
    ...signInHandlers(context),
    ...secretHandlers(context),
    ...settingsHandlers(context),
    ...configHandlers(context),
    ...tickerHandlers(context),
    ...quoteHandlers(context),
    ...orderHandlers(context),
    ...syncHandlers(context),
    ...diagnosticsHandlers(context),
    ...webhookHandlers(context),
    ...auditHandlers(context),
    ...trayHandlers(context),
    ...confirmHandlers(context),
    ...teamHandlers(),
    ...alertHandlers(context),
    ...activityHandlers(context)
  }
}

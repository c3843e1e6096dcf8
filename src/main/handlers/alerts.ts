// alerts:list — what needs a person now in the active profile's orders: stalled orders, open
// orders on an unwell chain and completions the merchant's system has not confirmed
// (alerts/alert-tracker.ts). alerts:resend on a desktop: the inbox passes nothing on to the
// merchant's system, so there is no copy here to send again; the service is asked to send its
// notice of the order again (a team hub relays its kept copy instead: src/hub).
import { ContractError } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

export function alertHandlers(c: Pick<HandlerContext, 'ready'>): HandlerSlice<'alerts'> {
  return {
    'alerts:list': async () => (await c.ready()).alerts.look(),
    'alerts:resend': async ({ type, orderId }) => {
      const s = await c.ready()
      if (!s.store.orders.get(type, orderId)) throw new ContractError('invalid_input', 'This order is not in the database')
      await s.client.resendWebhook({ orderId }, { priority: 'interactive' })
      s.store.audit.append('webhook.resend', { orderId, type, for: 'unacknowledged' })
      return {
        done: 'service-asked',
        message:
          "This desktop passes nothing on to the merchant's system, so it has no copy of its own to send. The service was asked to send its notice of this order again."
      }
    }
  }
}

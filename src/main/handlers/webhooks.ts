// webhooks:* — the merchant's webhook URL at the service, dummy and resent deliveries
// (to a URL or to the local inbox), the inbox's log and status, and the signature check,
// computed here so the secret never reaches the window.
import { ApiError } from '../../shared/api/errors'
import { decodePayload, verifySignature } from '../../shared/api/signature'
import { toContractDelivery } from '../webhooks/inbox'
import type { HandlerContext, HandlerSlice } from './context'

export function webhookHandlers(c: Pick<HandlerContext, 'ready' | 'activeProfile' | 'secretFor'>): HandlerSlice<'webhooks'> {
  return {
    'webhooks:setUrl': async ({ url }) => {
      const s = await c.ready()
      const message = await s.client.setWebhookUrl({ webhookUrl: url }, { priority: 'interactive' })
      s.store.audit.append('webhook.setUrl', { url })
      return { message }
    },
    'webhooks:sendDummy': async ({ target, url }) => {
      const s = await c.ready()
      let to: string | undefined = url
      if (target === 'inbox') {
        const inbox = s.inboxStatus()
        if (!inbox.listening || !inbox.url)
          throw new ApiError({
            kind: 'invalid_request',
            message: 'the local inbox is off: turn it on in Settings (Webhook inbox) first',
            retryable: false
          })
        to = inbox.url
      }
      const message = await s.client.sendDummyWebhook(to ? { webhookUrl: to } : {}, { priority: 'interactive' })
      s.store.audit.append('webhook.sendDummy', { target, url: to ?? null })
      return { message, sentTo: to ?? null }
    },
    'webhooks:resend': async ({ orderId }) => {
      const s = await c.ready()
      const message = await s.client.resendWebhook({ orderId }, { priority: 'interactive' })
      s.store.audit.append('webhook.resend', { orderId })
      return { message }
    },
    'webhooks:deliveries': async ({ offset, limit }) => {
      const s = await c.ready()
      const r = s.store.webhookDeliveries.list({ offset, limit })
      return { total: r.total, rows: r.rows.map(toContractDelivery) }
    },
    'webhooks:verify': async ({ payload, signature }) => {
      const profile = c.activeProfile()
      const secret = await c.secretFor(profile)
      let decoded: unknown = null
      let shape = ''
      try {
        decoded = decodePayload(payload)
      } catch (e) {
        shape = ` (the payload does not decode: ${(e as Error).message})`
      }
      const match = verifySignature(payload, signature, secret)
      return {
        match,
        decoded,
        reason: match
          ? `The signature matches this payload under the secret of “${profile.name}”.${shape}`
          : `The signature does not match this payload under the secret of “${profile.name}”: either the payload was changed, or it was signed with another secret.${shape}`
      }
    },
    'webhooks:inbox': async () => (await c.ready()).inboxStatus()
  }
}

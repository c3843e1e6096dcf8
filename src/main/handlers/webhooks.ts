// webhooks:* — the merchant's webhook URL at the service, dummy and resent deliveries
// (to a URL or to the local inbox), the inbox's log and status, and the signature check,
// computed here so the secret never reaches the window. Setting the URL of a live profile
// is a production change: the operator confirms it in main, told which URL it replaces, and
// the answer names the URL replaced.
import { ApiError } from '../../shared/api/errors'
import { decodePayload, verifySignature } from '../../shared/api/signature'
import { toContractDelivery } from '../webhooks/inbox'
import type { AuditLogRepo } from '../store/audit-log-repo'
import type { HandlerContext, HandlerSlice } from './context'

/** The URL last set from this app on this profile, from its audit log (the service has no way to read it back). */
function lastSetUrl(audit: AuditLogRepo): { url: string | null; at: number | null } {
  const last = audit.list({ action: 'webhook.setUrl', limit: 1 }).rows[0]
  const url = last?.detail.url
  return typeof url === 'string' ? { url, at: Date.parse(last!.at) } : { url: null, at: null }
}

export function webhookHandlers(
  c: Pick<HandlerContext, 'ready' | 'activeProfile' | 'secretFor' | 'requireConfirmation'>
): HandlerSlice<'webhooks'> {
  return {
    'webhooks:setUrl': async ({ url }) => {
      const s = await c.ready()
      const profile = s.profile
      const previous = lastSetUrl(s.store.audit)
      if (profile.kind === 'live') {
        await c.requireConfirmation({
          change: 'webhookUrl',
          title: 'Change the production webhook URL',
          message: `The live service of “${profile.name}” will send the webhooks of every order to ${url}.`,
          detail: previous.url
            ? `It replaces ${previous.url}, set from this app on ${new Date(previous.at!).toISOString()}.`
            : 'The URL it replaces is not known: none was set from this app on this profile.',
          confirmLabel: 'Set the production URL'
        })
      }
      const message = await s.client.setWebhookUrl({ webhookUrl: url }, { priority: 'interactive' })
      s.store.audit.append('webhook.setUrl', { url })
      // The one replaced is what an admin needs to know afterwards, not the one just set.
      return { message, replaced: previous }
    },
    'webhooks:lastUrl': async () => lastSetUrl((await c.ready()).store.audit),
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
    // Only a team hub relays deliveries on (--forward-to): a desktop's inbox has none to show or send again.
    'webhooks:relays': async () => ({
      target: null,
      counts: { waiting: 0, sending: 0, failed: 0, oldestWaitingAt: null },
      rows: []
    }),
    'webhooks:retryRelays': async () => ({ queued: 0 }),
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

// Where the inbox hands a verified order: an interface declared here and implemented by
// the order monitor, which sits above the inbox, so that the inbox knows nothing of it.
import type { OfframpOrder, OnrampOrder } from '../../shared/api/schemas'
import type { OrderType } from '../../shared/ipc/contract'
import type { BodyIdentity } from './body-identity'

export type WebhookOutcome = 'status' | 'updated' | 'unchanged' | 'stale' | 'unknown' | 'mismatch'
/** 'checking': the body said nothing of which order it is; orderStatus is asked instead. */
export type WebhookStatusOutcome = Exclude<WebhookOutcome, 'updated'> | 'checking'

export interface VerifiedOrders {
  /** A verified whole record; `identity` is what its body said of which order it is. */
  ingestWebhook(type: OrderType, record: OnrampOrder | OfframpOrder, identity?: BodyIdentity): WebhookOutcome
  /** A verified body that is no whole record: its status alone. */
  ingestWebhookStatus(type: OrderType, orderId: number, status: number, identity: BodyIdentity): WebhookStatusOutcome
}

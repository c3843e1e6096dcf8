// One profile's local store: the database and every repository over it, opened together
// and closed together. The services layer holds one of these for the active profile.
import { AuditLogRepo } from './audit-log-repo'
import { ConfigCacheRepo } from './config-cache-repo'
import { openProfileDatabase, type OpenDatabaseOptions, type ProfileDatabase } from './database'
import { OrderClaimsRepo } from './order-claims-repo'
import { OrdersRepo } from './orders-repo'
import { ServiceFactsRepo } from './service-facts-repo'
import { SyncCursorsRepo } from './sync-cursors-repo'
import { UnreadableOrdersRepo } from './unreadable-orders-repo'
import { TickerHistoryRepo } from './ticker-history-repo'
import { WatchesRepo } from './watches-repo'
import { WebhookDeliveriesRepo } from './webhook-deliveries-repo'

export interface LocalStore {
  readonly database: ProfileDatabase
  readonly orders: OrdersRepo
  readonly syncCursors: SyncCursorsRepo
  readonly unreadableOrders: UnreadableOrdersRepo
  readonly serviceFacts: ServiceFactsRepo
  readonly configCache: ConfigCacheRepo
  readonly tickers: TickerHistoryRepo
  readonly webhookDeliveries: WebhookDeliveriesRepo
  readonly audit: AuditLogRepo
  readonly watches: WatchesRepo
  readonly claims: OrderClaimsRepo
  close(): void
}

export interface LocalStoreOptions extends OpenDatabaseOptions {
  /** The running Rampdesk's version: records it cannot read are tried again by a newer one. */
  appVersion?: string
}

export function openLocalStore(dir: string, opts: LocalStoreOptions = {}): LocalStore {
  const database = openProfileDatabase(dir, opts)
  const now = opts.now ?? (() => new Date())
  const sql = database.sql
  const syncCursors = new SyncCursorsRepo(sql, now)
  const unreadableOrders = new UnreadableOrdersRepo(sql, opts.appVersion ?? '0.0.0', now)
  const audit = new AuditLogRepo(sql, now)
  return {
    database,
    orders: new OrdersRepo(sql, now, syncCursors, unreadableOrders, ({ type, scope, kept, counted }) =>
      // The log's detail names the fiat type, null for every fiat.
      audit.append('orders.counts_rebuilt', { type, fiatType: scope.kind === 'one' ? scope.fiatType : null, kept, counted })
    ),
    syncCursors,
    unreadableOrders,
    serviceFacts: new ServiceFactsRepo(sql, now),
    configCache: new ConfigCacheRepo(sql, now),
    tickers: new TickerHistoryRepo(sql, now),
    webhookDeliveries: new WebhookDeliveriesRepo(sql, now),
    audit,
    watches: new WatchesRepo(sql, now),
    claims: new OrderClaimsRepo(sql),
    close: () => database.close()
  }
}

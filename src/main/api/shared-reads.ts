// Several hubs on one database spend one request budget, and the reads that are the same
// for every operator (the configuration endpoints, priceTicker) are the leader's to send:
// a follower's client asks the relay for the leader's latest answer instead of the
// service. The relay (src/hub/pg/pg-shared-reads.ts) answers null on the leader, which
// then sends the request itself and hands the answer back through publish().
import type { EndpointName } from '../../shared/api/endpoints'

/** The endpoints whose answers the leader fetches for every hub. */
export const SHARED_READS: ReadonlySet<EndpointName> = new Set<EndpointName>([
  'publicAllConfig',
  'allConfigMapping',
  'allGasFee',
  'limits',
  'allChainMapping',
  'allCoinLimits',
  'bankDetails',
  'priceTicker'
])

export interface SharedReads {
  /** The leader's answer to this request, or null when this hub leads (send it). Throws ApiError when none comes. */
  read(name: EndpointName, input: unknown, signal?: AbortSignal): Promise<unknown>
  /** This hub sent the request: its answer for the other hubs. */
  publish(name: EndpointName, input: unknown, data: unknown): void
}

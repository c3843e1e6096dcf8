// The app's ApiClient pointed at a sandbox (or at a merchant the bench was handed: its URL,
// service name, key and secret), as every bench that drives the real client makes it. The
// bench says what differs: the budget, the clock, the simulated network, the retry's sleep.
import { ApiClient, type ApiClientOptions } from '../../src/main/api/client'

/** Where and as whom the client calls: a sandbox's or a handed merchant's connection. */
export interface ServiceAccess {
  url: string
  serviceName: string
  apiKey: string
  apiSecret: string
}

export function sandboxClient(
  service: ServiceAccess,
  o: Omit<ApiClientOptions, 'baseUrl' | 'serviceName' | 'apiKey' | 'getSecret'>
): ApiClient {
  return new ApiClient({
    ...o,
    baseUrl: service.url,
    serviceName: service.serviceName,
    apiKey: service.apiKey,
    getSecret: async () => service.apiSecret
  })
}

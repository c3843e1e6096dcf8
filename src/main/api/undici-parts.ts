// The parts of undici the main process uses: Pool (the ApiClient's transport), Agent and
// request (the team hub connection), loaded module by module. undici's index also loads
// fetch, WebSocket, EventSource, the cache stores, cookies and the mocks: measured in the
// history benchmark's process, about 5 MB of resident memory at idle, 3 MB of live heap
// and 10-15 MB of peak RSS during a first sync (an old generation sized to a smaller live
// heap), none of it used here. The paths are the ones undici's own index puts together.
import { createRequire } from 'node:module'
import type * as Undici from 'undici'

const load = createRequire(import.meta.url)

// What undici's index does for every dispatcher: the request API on the prototype
// (idempotent if the index is loaded too, by tests or another module).
Object.assign(
  (load('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher).prototype,
  load('undici/lib/api/index.js') as object
)

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof Undici.Pool
export type Pool = Undici.Pool
export const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent
export type Agent = Undici.Agent

/** undici's request(url, options) for an absolute URL, sent through options.dispatcher. */
export function request(
  url: string,
  opts: Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
    dispatcher: Undici.Dispatcher
    method?: Undici.Dispatcher.HttpMethod
  }
): Promise<Undici.Dispatcher.ResponseData> {
  const u = new URL(url)
  const { dispatcher, method = 'GET', ...rest } = opts
  return dispatcher.request({ ...rest, method, origin: u.origin, path: u.pathname + u.search })
}

// Browsers resolve every <name>.localhost to loopback themselves (RFC 6761 lets a
// resolver do so); Node asks DNS, which does not know them. The web harness is reached by
// such a per-launch name, so Node-side tests resolve it the browsers' way: node:http takes
// `lookup: localhostLookup`, undici `dispatcher: localhostDispatcher`. Other names go to DNS.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { Agent } from 'undici'

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

export function localhostLookup(hostname: string, options: { all?: boolean } | number | undefined, callback: Callback): void {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if (typeof options === 'object' && options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
    else callback(null, '127.0.0.1', 4)
    return
  }
  dnsLookup(hostname, (typeof options === 'object' ? options : {}) as { all: true }, callback as never)
}

export const localhostDispatcher = new Agent({ connect: { lookup: localhostLookup as never } })

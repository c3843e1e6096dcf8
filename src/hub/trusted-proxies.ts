// Whose request is it: the peer's, or, when the peer is a reverse proxy the hub was told to
// trust (--trusted-proxy CIDR[,CIDR]), the client the proxy names in X-Forwarded-For.
// Behind a proxy every connection comes from the proxy's address, so per-address caps and
// throttles would lump the whole team together with any stranger; trusting the header from
// anyone else would let a stranger pick the address they are counted under.
//
// The rule (docs/hub-reference.md, "Behind a reverse proxy"):
//   - a peer outside every trusted CIDR is the client, and X-Forwarded-For is ignored;
//   - from a trusted peer, X-Forwarded-For is read from the right (each proxy appends the
//     address it was connected from): the first address that is not itself a trusted proxy
//     is the client. What lies to the left of it was written by the client and is never read;
//   - an entry that is not an address (`unknown`, an obfuscated name, junk) stops the walk:
//     the client is then the trusted hop that wrote it (it could not say whom it served);
//   - no header, or every entry trusted: the left-most trusted address.
// IPv4 and IPv6 CIDRs; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is the IPv4 address.
// `Forwarded` (RFC 7239) and `X-Real-IP` are not read.
import type { IncomingMessage } from 'node:http'
import { BlockList, isIP, isIPv4 } from 'node:net'
import { sourceOf } from '../main/webhooks/source-limits'

export interface Cidr {
  /** The network's address as written (normalised: an IPv4-mapped IPv6 address as IPv4). */
  address: string
  prefix: number
  family: 'ipv4' | 'ipv6'
}

/** An address as the hub compares it: zone dropped, IPv4-mapped IPv6 as IPv4; null when it is no address. */
export function normaliseAddress(raw: string | undefined): { address: string; family: 'ipv4' | 'ipv6' } | null {
  if (!raw) return null
  const a = raw.trim().toLowerCase().split('%')[0]!
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)
  if (mapped && isIPv4(mapped[1]!)) return { address: mapped[1]!, family: 'ipv4' }
  const v = isIP(a)
  if (v === 4) return { address: a, family: 'ipv4' }
  if (v === 6) return { address: a, family: 'ipv6' }
  return null
}

/** `192.0.2.0/24`, `2001:db8::/32`, or a bare address (one host); throws saying what is wrong. */
export function parseCidr(text: string): Cidr {
  const t = text.trim()
  const slash = t.indexOf('/')
  const addr = normaliseAddress(slash < 0 ? t : t.slice(0, slash))
  if (!addr || (slash < 0 ? false : !/^\d{1,3}$/.test(t.slice(slash + 1))))
    throw new Error(`${JSON.stringify(t)} is not an address or a CIDR (192.0.2.0/24, 2001:db8::/32)`)
  const max = addr.family === 'ipv4' ? 32 : 128
  // A mapped IPv4 network (::ffff:10.0.0.0/104) counts its prefix over the IPv6 bits.
  const mappedBits = slash >= 0 && addr.family === 'ipv4' && t.toLowerCase().startsWith('::ffff:') ? 96 : 0
  const prefix = slash < 0 ? max : Number(t.slice(slash + 1)) - mappedBits
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max)
    throw new Error(`${JSON.stringify(t)}: the prefix length must be 0-${max + mappedBits}`)
  return { address: addr.address, prefix, family: addr.family }
}

/** One entry of X-Forwarded-For as an address (`192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]:443`, `2001:db8::1`), or null. */
export function forwardedAddress(entry: string): string | null {
  let e = entry.trim().replace(/^"(.*)"$/, '$1')
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(e)
  if (bracketed) e = bracketed[1]!
  else {
    const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(e)
    if (v4port) e = v4port[1]!
  }
  return normaliseAddress(e)?.address ?? null
}

export class TrustedProxies {
  private readonly list = new BlockList()

  constructor(readonly cidrs: readonly Cidr[]) {
    for (const c of cidrs) this.list.addSubnet(c.address, c.prefix, c.family)
  }

  /** Whether any proxy is trusted at all. */
  get any(): boolean {
    return this.cidrs.length > 0
  }

  /** Whether this address (a peer's, or an entry of X-Forwarded-For) is a trusted proxy. */
  trusts(address: string | undefined): boolean {
    if (!this.any) return false
    const a = normaliseAddress(address)
    return a !== null && this.list.check(a.address, a.family)
  }

  /** The client's address: the peer's, or behind a trusted proxy the one X-Forwarded-For names (above). */
  clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined {
    if (!this.trusts(peer)) return peer
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')
    const entries = header.split(',').filter((e) => e.trim() !== '')
    let client = normaliseAddress(peer)!.address
    for (let i = entries.length - 1; i >= 0; i--) {
      const a = forwardedAddress(entries[i]!)
      if (a === null) return client
      client = a
      if (!this.trusts(a)) return a
    }
    return client
  }

  /** The source a request is counted under (an IPv4 address or an IPv6 /64): its client's. */
  sourceOf(req: IncomingMessage): string {
    return sourceOf(this.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']))
  }
}

/** Trusts no proxy: every request is its peer's. */
export const NO_TRUSTED_PROXIES = new TrustedProxies([])

/** `CIDR[,CIDR]` as --trusted-proxy takes it; throws naming the entry that is wrong. */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
  if (!parts.length) throw new Error('no address or CIDR given')
  return new TrustedProxies(parts.map(parseCidr))
}

// Trusted proxies: CIDR matching (IPv4, IPv6, IPv4-mapped IPv6) against a reference that
// compares the bits itself, and X-Forwarded-For read from the right, never from a peer that
// is not trusted, never further left than the first address that is not a trusted proxy.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forwardedAddress, NO_TRUSTED_PROXIES, parseCidr, parseTrustedProxies } from '../../../src/hub/trusted-proxies'

/** An address as a number of its bits (the reference the BlockList is checked against). */
function bitsOf(address: string): { bits: bigint; width: number } {
  if (address.includes('.') && !address.includes(':'))
    return { bits: address.split('.').reduce((n, o) => (n << 8n) | BigInt(Number(o)), 0n), width: 32 }
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined]
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const all = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t]
  return { bits: all.reduce((n, x) => (n << 16n) | BigInt(parseInt(x || '0', 16)), 0n), width: 128 }
}

function inReference(address: string, network: string, prefix: number): boolean {
  const a = bitsOf(address)
  const n = bitsOf(network)
  if (a.width !== n.width) return false
  const shift = BigInt(a.width - prefix)
  return a.bits >> shift === n.bits >> shift
}

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'))
const ipv6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((h) => h.map((x) => x.toString(16)).join(':'))

describe('CIDRs', () => {
  it('parses IPv4, IPv6, bare addresses and IPv4-mapped networks, and refuses anything else saying what', () => {
    expect(parseCidr('192.0.2.0/24')).toEqual({ address: '192.0.2.0', prefix: 24, family: 'ipv4' })
    expect(parseCidr(' 2001:DB8::/32 ')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' })
    expect(parseCidr('10.0.0.7')).toEqual({ address: '10.0.0.7', prefix: 32, family: 'ipv4' })
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' })
    expect(parseCidr('::ffff:10.0.0.0/104')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' })
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', '10.0.0/8', 'proxy.example', '10.0.0.0/', '10.0.0.0/-1', '1.2.3.4/8/9', ''])
      expect(() => parseCidr(bad), bad).toThrow(/CIDR|prefix/)
    expect(() => parseTrustedProxies('10.0.0.0/8, nope')).toThrow(/"nope" is not an address or a CIDR/)
    expect(() => parseTrustedProxies(' , ')).toThrow(/no address/)
  })

  it('matches an IPv4 address exactly when its first prefix bits are the network’s, mapped or not', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (address, network, prefix) => {
        const proxies = parseTrustedProxies(`${network}/${prefix}`)
        const expected = inReference(address, network, prefix)
        expect(proxies.trusts(address)).toBe(expected)
        expect(proxies.trusts(`::ffff:${address}`)).toBe(expected)
      }),
      { numRuns: 2_000 }
    )
  })

  it('matches an IPv6 address exactly when its first prefix bits are the network’s', () => {
    fc.assert(
      fc.property(ipv6, ipv6, fc.integer({ min: 0, max: 128 }), (address, network, prefix) => {
        expect(parseTrustedProxies(`${network}/${prefix}`).trusts(address)).toBe(inReference(address, network, prefix))
      }),
      { numRuns: 2_000 }
    )
  })

  it('keeps IPv6 out of IPv4 networks, covers IPv4 by an IPv6 network only through the mapped range, and trusts nothing without a CIDR', () => {
    const v4 = parseTrustedProxies('0.0.0.0/0')
    expect(v4.trusts('203.0.113.9')).toBe(true)
    expect(v4.trusts('2001:db8::1')).toBe(false)
    // An IPv4 address is its mapped IPv6 address (::ffff:203.0.113.9), which ::/0 and ::ffff:0:0/96 hold, and 2001:db8::/32 does not.
    expect(parseTrustedProxies('::/0').trusts('203.0.113.9')).toBe(true)
    expect(parseTrustedProxies('::ffff:0:0/96').trusts('203.0.113.9')).toBe(true)
    expect(parseTrustedProxies('2001:db8::/32').trusts('203.0.113.9')).toBe(false)
    expect(parseTrustedProxies('fe80::/10').trusts('fe80::1%eth0')).toBe(true)
    expect(NO_TRUSTED_PROXIES.trusts('127.0.0.1')).toBe(false)
    expect(parseTrustedProxies('127.0.0.1').trusts(undefined)).toBe(false)
  })
})

describe('X-Forwarded-For', () => {
  const proxies = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, 2001:db8:1::/48')

  it('reads each entry as an address, with or without a port or brackets', () => {
    expect(forwardedAddress(' 203.0.113.9 ')).toBe('203.0.113.9')
    expect(forwardedAddress('203.0.113.9:4711')).toBe('203.0.113.9')
    expect(forwardedAddress('[2001:db8::7]:443')).toBe('2001:db8::7')
    expect(forwardedAddress('2001:DB8::7')).toBe('2001:db8::7')
    expect(forwardedAddress('"[2001:db8::7]"')).toBe('2001:db8::7')
    expect(forwardedAddress('::ffff:198.51.100.2')).toBe('198.51.100.2')
    for (const bad of ['unknown', '_hidden', '', '300.1.1.1', 'a.b.c.d', '1.2.3.4:port']) expect(forwardedAddress(bad), bad).toBeNull()
  })

  it('is ignored entirely when the peer is not a trusted proxy', () => {
    expect(proxies.clientAddress('198.51.100.7', '203.0.113.9')).toBe('198.51.100.7')
    expect(NO_TRUSTED_PROXIES.clientAddress('127.0.0.1', '203.0.113.9')).toBe('127.0.0.1')
  })

  it('names the right-most address that is not a trusted proxy', () => {
    expect(proxies.clientAddress('127.0.0.1', '203.0.113.9')).toBe('203.0.113.9')
    expect(proxies.clientAddress('::ffff:127.0.0.1', 'evil, 198.51.100.1, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9')
    expect(proxies.clientAddress('127.0.0.1', ['198.51.100.1', '203.0.113.9:5000, 10.9.9.9'])).toBe('203.0.113.9')
    expect(proxies.clientAddress('127.0.0.1', '2001:db8:2::1, 2001:db8:1::5')).toBe('2001:db8:2::1')
  })

  it('stops at an entry that is no address: the trusted hop that wrote it is the client', () => {
    expect(proxies.clientAddress('127.0.0.1', '203.0.113.9, unknown')).toBe('127.0.0.1')
    expect(proxies.clientAddress('127.0.0.1', '203.0.113.9, unknown, 10.0.0.2')).toBe('10.0.0.2')
  })

  it('answers the peer without a header, and the left-most trusted address when every entry is trusted', () => {
    expect(proxies.clientAddress('127.0.0.1', undefined)).toBe('127.0.0.1')
    expect(proxies.clientAddress('127.0.0.1', ' , ')).toBe('127.0.0.1')
    expect(proxies.clientAddress('127.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3')
  })

  it('never lets what a client wrote decide: whatever it puts first, the proxy’s entry wins', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(ipv4, ipv6, fc.string({ maxLength: 12 })), { maxLength: 6 }), ipv4, (written, real) => {
        fc.pre(!proxies.trusts(real))
        // The proxy appended the address it was connected from after whatever the client sent.
        expect(proxies.clientAddress('10.0.0.1', [...written, real].join(', '))).toBe(real)
      }),
      { numRuns: 1_000 }
    )
  })
})

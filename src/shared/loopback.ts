// Which hosts count as this computer (loopback), and what that allows: a live profile may
// talk plain http only to a loopback host (the sandbox, a local test double, a tunnel's
// local end); everywhere else the API key and the signed payloads must travel over https.
// The same predicate decides when binding a listener is "beyond loopback". Pure: no DNS is
// asked, so only names that are loopback by definition pass (RFC 6761 `localhost`, the
// 127.0.0.0/8 block, ::1); anything that merely resolves there today does not.

/** 127.0.0.0/8 written as four decimal octets (the form a WHATWG URL normalises IPv4 to). */
function isIpv4Loopback(h: string): boolean {
  const parts = h.split('.')
  if (parts.length !== 4 || parts[0] !== '127') return false
  return parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)
}

/** Every spelling of ::1: zero groups written out, compressed or with leading zeros. */
function isIpv6Loopback(h: string): boolean {
  if (!/^[0-9a-f:]+$/.test(h) || !h.includes(':')) return false
  const halves = h.split('::')
  if (halves.length > 2) return false
  const groups = (s: string | undefined): string[] => (s ? s.split(':') : [])
  const head = groups(halves[0])
  const tail = groups(halves[1])
  if ([...head, ...tail].some((g) => g === '' || g.length > 4)) return false
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return false
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail].map((g) => parseInt(g, 16))
  return all.length === 8 && all.slice(0, 7).every((n) => n === 0) && all[7] === 1
}

/**
 * Whether a host name or address is loopback by definition: `localhost`, 127.0.0.0/8 or
 * ::1 (brackets allowed, case ignored). `sub.localhost`, IPv4-mapped addresses and short
 * or hex IPv4 forms are not accepted: a caller that wants them normalises first (a
 * WHATWG URL does for IPv4).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase()
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h
  return bare === 'localhost' || isIpv4Loopback(bare) || isIpv6Loopback(bare)
}

/**
 * Why a live profile may not use this base URL, or null when it may: https anywhere,
 * plain http only to a loopback host.
 */
export function liveBaseUrlProblem(baseUrl: string): string | null {
  let u: URL
  try {
    u = new URL(baseUrl)
  } catch {
    return 'the base URL must be an absolute URL'
  }
  if (u.protocol === 'https:') return null
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return null
  if (u.protocol === 'http:')
    return `a live or team profile must use https: plain http would send the API key (or operator token) and signed requests to ${u.host} readable by anyone on the way (http is allowed only for this computer: localhost, 127.0.0.0/8, ::1)`
  return 'the base URL must be https (or http to this computer)'
}

/** The origin (scheme, host, port) of a URL, or null for a string that is not one. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

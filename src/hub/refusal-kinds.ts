// What the hub refuses, as a closed set of kinds (docs/hub-reference.md, "What the hub refuses"): the
// front door's and the routes' refusals are counted by kind in /metrics, never by anything
// the request itself carried.
export const REFUSAL_KINDS = [
  /** Over the open-connection caps, in all or per address, or a client behind a trusted proxy over its open requests (503). */
  'connection_cap',
  /** A connection closed to make room for another address when the pool is full (no status). */
  'evicted',
  /** Over the caps of /webhook connections (503). */
  'webhook_connection_cap',
  /** Request line and headers over the limit (431). */
  'headers_too_large',
  /** A request line over 8 KiB (414). */
  'request_line_too_long',
  /** The request line, the headers or the body not in within the time (408). */
  'too_slow',
  /** A request that does not parse, or a path that does not decode (400). */
  'malformed',
  /** A TLS handshake that failed or took too long. */
  'tls_handshake',
  /** A request with an Origin header: a web page (403). */
  'origin',
  /** No operator token, or an unknown or revoked one (401). */
  'unauthorized',
  /** The same, past the failures allowed from one client or with one token's first characters (429, auth-throttle.ts). */
  'auth_throttled',
  /** A role without the channel (403). */
  'role',
  /** A body over the cap (413). */
  'too_large',
  /** An operator over their request rate (429). */
  'rate_limited',
  /** An operator over their event streams, or a second replay (429). */
  'streams',
  /** A path the hub does not serve (404). */
  'not_found',
  /** /metrics without the metrics token, or from beyond loopback when none is set (401, 403). */
  'metrics',
  /** A sign-in through the identity provider refused: a bad start, a used or stale callback, too many from one source (400, 429). */
  'sign_in'
] as const
export type RefusalKind = (typeof REFUSAL_KINDS)[number]

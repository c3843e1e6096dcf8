// What may go into the support log. Every field and message passes through redactForLog
// before it is written: credentials, signatures, request and webhook payloads and wallet
// addresses never reach the file, whether they arrive under a telling key or inside a
// message (an error text quoting the service, say). It errs on the side of hiding: a
// long hex or base64 run is taken for a hash, key or payload and goes too.

const SECRET = '[redacted]'
const PAYLOAD = '[redacted payload]'
const ADDRESS = '[address]'
const HEX = '[hex]'

/** Keys compared without case, dashes or underscores ("X-Service-Signature" -> "xservicesignature"). */
const normal = (key: string): string => key.toLowerCase().replace(/[-_\s]/g, '')

const SECRET_KEY = /secret|password|passphrase|token|apikey|authorization|signature|cookie|credential|privatekey|mnemonic|seed$/
const PAYLOAD_KEYS = new Set(['payload', 'body', 'bodytext', 'rawbody', 'record', 'data', 'request', 'response', 'headers', 'json'])
const ADDRESS_KEY = /address$|^wallet|^memo$|^destinationtag$/
/**
 * Keys whose string value is a local file or folder the app chose (an export's path): kept as
 * written. Paths look like base64 runs to the text rules, and a path is what a support
 * engineer needs.
 */
const PATH_KEY = /^(path|file|filepath|filename|dir|directory|folder)$/
/** What such a path looks like: absolute, no spaces or quotes, not too long. Anything else under the key is redacted as usual. */
const LOCAL_PATH = /^(\/|[A-Za-z]:\\)[^\s"'<>|]{0,1023}$/

function keyVerdict(key: string): string | undefined {
  const k = normal(key)
  if (SECRET_KEY.test(k)) return SECRET
  if (PAYLOAD_KEYS.has(k)) return PAYLOAD
  if (ADDRESS_KEY.test(k)) return ADDRESS
  return undefined
}

/**
 * The user information of a URL (`https://user:password@host/`, `postgres://u:p@db/`): a
 * password, or a token passed as the user name. The whole of it goes, the user name too:
 * nothing tells a user name from a token in that place.
 */
// The authority runs to the first '/', '?' or '#', and the user information to its LAST '@':
// a password may hold '@', '"' or '<' unescaped, and all of it goes.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi

/** The text with every URL's user information replaced (`https://[redacted]@host/path`); the rest as it was. */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, (_m, scheme: string) => `${scheme}${SECRET}@`)
}

const B58 = '1-9A-HJ-NP-Za-km-z'
const hasDigit = (s: string) => /\d/.test(s)

/** Patterns applied to every string, most specific first. */
const TEXT_RULES: Array<[RegExp, (m: string, ...g: string[]) => string]> = [
  // Credentials in a URL, before the rules below could take a piece of them for something else.
  [URL_CREDENTIALS, (_m, scheme: string) => `${scheme}${SECRET}@`],
  // "secret=…", "apiKey: …", '"signature":"…"': the value after a telling word.
  [
    /\b(api[-_ ]?secret|secret|api[-_ ]?key|signature|payload|password|token|authorization)(\s*["']?\s*[:=]\s*["']?)([^\s"',;&)]+)/gi,
    (_m, word: string, sep: string) => `${word}${sep}${SECRET}`
  ],
  // EVM addresses, then any long hex run (signatures, transaction hashes, keys).
  [/\b0x[0-9a-fA-F]{40}\b(?![0-9a-fA-F])/g, () => ADDRESS],
  [/\b(?:0x)?[0-9a-fA-F]{32,}\b/g, () => HEX],
  // Bech32 addresses (BTC segwit and taproot, BNB Beacon Chain).
  [/\b(?:bc1|tb1|bnb1|BC1|TB1|BNB1)[02-9ac-hj-np-zAC-HJ-NP-Z]{8,87}\b/g, () => ADDRESS],
  // Base64 and base64url runs: payload headers, TON addresses, encoded secrets.
  [/[A-Za-z0-9+/_-]{40,}={0,2}/g, (m) => (/[a-z]/.test(m) && /[A-Z]/.test(m) ? SECRET : m)],
  // Base58 runs: TRON, NEO, BTC legacy and Solana addresses. A digit tells them from words,
  // and so does mixed case over 32 letters (a Solana address may hold no digit at all).
  [new RegExp(`\\b[${B58}]{25,44}\\b`, 'g'), (m) => (hasDigit(m) || (m.length >= 32 && /[a-z]/.test(m) && /[A-Z]/.test(m)) ? ADDRESS : m)]
]

/** The text with credentials, payload encodings, hashes and addresses replaced. */
export function redactText(text: string): string {
  let out = text
  for (const [re, replace] of TEXT_RULES) out = out.replace(re, replace as (m: string) => string)
  return out
}

const MAX_DEPTH = 8

/**
 * A copy of the value fit for the log: keys that name credentials, payloads or addresses
 * lose their value, every string is passed through redactText, errors keep their name
 * and message. The input is not changed.
 */
export function redactForLog(value: unknown): unknown {
  return walk(value, 0, new WeakSet())
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value
  if (seen.has(value)) return '[circular]'
  if (depth >= MAX_DEPTH) return '[nested]'
  seen.add(value)
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) }
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, seen))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue
    // A boolean carries no credential, whatever its key says ({ credentialDeleted: true }).
    if (v === null || typeof v === 'boolean') out[k] = v
    else if (typeof v === 'string' && PATH_KEY.test(normal(k)) && LOCAL_PATH.test(v)) out[k] = v
    else out[k] = keyVerdict(k) ?? walk(v, depth + 1, seen)
  }
  return out
}

/** The most characters an audit entry's detail keeps (its JSON text); a longer one is kept as its head. */
export const AUDIT_DETAIL_CHARS = 2000

/**
 * An action's detail as an audit log keeps it (the desktop's and the team hub's): redacted
 * exactly as the support log is, then clipped, in that order, so that nothing is clipped
 * into a string the redactor no longer recognises. A detail whose redacted JSON is too long
 * becomes `{ clipped: "<head>… (N characters)" }`.
 */
export function auditDetail(detail: Record<string, unknown>, maxChars = AUDIT_DETAIL_CHARS): Record<string, unknown> {
  const safe = redactForLog(detail) as Record<string, unknown>
  const text = JSON.stringify(safe)
  if (text.length <= maxChars) return safe
  return { clipped: `${text.slice(0, maxChars)}… (${text.length} characters)` }
}

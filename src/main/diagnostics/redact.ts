// Text that leaves the app for support (Copy diagnostics) must carry no secret, API key,
// signature or wallet address, whatever an error message happened to quote. Known values
// (the profile's key and secret) are removed wherever they appear; the rest is found by
// shape: anything that looks like a chain address, a transaction hash or a signature.
const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Hex: EVM addresses (40), hashes and HMAC signatures (64), longer keys. Word-bounded
  // so order ids and amounts are untouched.
  [/\b0x[0-9a-fA-F]{16,}\b/g, '[hex]'],
  [/\b[0-9a-fA-F]{32,}\b/g, '[hex]'],
  // Bech32 addresses (bc1, ltc1, tb1, cosmos1, ...).
  [/\b[a-z]{1,10}1[02-9ac-hj-np-z]{20,90}\b/g, '[address]'],
  // Base58 / base64-ish runs of 25+ letters and digits mixing cases: Bitcoin legacy,
  // Tron, Solana, XRP addresses, base64 signatures and API keys.
  [/\b(?=[A-Za-z0-9+/=_-]*[a-z])(?=[A-Za-z0-9+/=_-]*[A-Z])(?=[A-Za-z0-9+/=_-]*[0-9])[A-Za-z0-9+/=_-]{25,}/g, '[redacted]']
]

/** Removes the known values, then anything shaped like an address, hash, signature or key. */
export function redactText(text: string, known: readonly string[] = []): string {
  let out = text
  for (const k of known) if (k.length >= 4) out = out.split(k).join('[redacted]')
  for (const [re, mark] of PATTERNS) out = out.replace(re, mark)
  return out
}

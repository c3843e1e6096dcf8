// Secrets the hub must keep for a while but must not hold readable at rest: the nonce and
// PKCE verifier of a sign-in under way, the session handed over to a desktop, the provider's
// refresh token, a renewed session for the refresh token it replaced (handed out again once, within a minute).
// Each is sealed (AES-256-GCM) with a key derived from a random value only the
// other side holds (the state in the browser's URL, the hand-over code, the desktop's refresh
// token), and filed under that value's hash: the database alone opens none of them. TOTP
// secrets are sealed the same way with the key file the hub keeps beside its database
// (second-factor-key.ts).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'

const keyOf = (secret: string, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `rampdesk-oidc ${purpose}`, 32))

/** Where a sealed value is filed: the secret's hash, never the secret. */
export const keyHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex')

export function seal(secret: string, purpose: string, value: unknown): string {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', keyOf(secret, purpose), iv)
  const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()])
  return [iv, c.getAuthTag(), body].map((b) => b.toString('base64url')).join('.')
}

/** The value, or null when it was not sealed with this secret for this purpose. */
export function unseal<T>(secret: string, purpose: string, sealed: string): T | null {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'))
  if (!iv || !tag || !body) return null
  try {
    const d = createDecipheriv('aes-256-gcm', keyOf(secret, purpose), iv)
    d.setAuthTag(tag)
    return JSON.parse(Buffer.concat([d.update(body), d.final()]).toString('utf8')) as T
  } catch {
    return null
  }
}

/** A random value for a URL or a header: 32 bytes. */
export const randomSecret = (prefix = ''): string => prefix + randomBytes(32).toString('base64url')

// The secrets namespace: where an API secret is kept; a secret goes in and never comes back out.
import { z } from 'zod'
import { ch, ErrorInfo, none, ok } from './primitives'
import { ProfileId } from './profiles'

export const SecretBackend = z.enum(['keychain', 'safeStorage', 'plaintext', 'none'])
export type SecretBackend = z.infer<typeof SecretBackend>

const SecretSelector = z.object({ profileId: ProfileId }).strict()

export const secretsChannels = {
  'secrets:status': ch(
    SecretSelector,
    z.object({ has: z.boolean(), backend: SecretBackend, plaintextWarning: z.boolean() }),
    'Whether a secret is stored and where (never the secret)'
  ),
  'secrets:set': ch(
    SecretSelector.extend({ secret: z.string().min(8).max(512) }).strict(),
    z.object({ backend: SecretBackend }),
    'Store or replace a secret (write-only)'
  ),
  'secrets:delete': ch(SecretSelector, ok, 'Delete a stored secret'),
  'secrets:where': ch(
    none,
    z.object({ backend: SecretBackend, reason: z.string().nullable() }),
    'Where a secret stored now would go (none: it would be refused), and why when that is plain text or nowhere'
  ),
  'secrets:test': ch(
    SecretSelector,
    z.object({ ok: z.boolean(), latencyMs: z.number().nullable(), message: z.string(), error: ErrorInfo.nullable() }),
    'Call one cheap authenticated endpoint and explain the outcome'
  )
} as const

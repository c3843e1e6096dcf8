// profiles:* — the connection profiles: list, create, edit, delete and switch, and a test
// of a live connection before it is saved. Editing or deleting the active profile
// reconnects (or falls back to the sandbox) first. A base URL moved to another origin (or a
// team profile's list of hubs gaining one) costs the profile its stored secret (the store
// removes it).
import { checkConnection } from '../connection-check'
import { profileOrigins, SANDBOX_PROFILE_ID } from '../profiles/profile-store'
import type { HandlerContext, HandlerSlice } from './context'
import type { SignInChannel } from './sign-in'

export function profileHandlers(
  c: Pick<HandlerContext, 'profiles' | 'activeProfile' | 'switchTo' | 'audit' | 'now'>
): Omit<HandlerSlice<'profiles'>, SignInChannel> {
  return {
    'profiles:list': async () => ({ profiles: c.profiles.list(), activeId: c.activeProfile().id }),
    'profiles:create': async (input) => {
      const p = await c.profiles.create(input)
      c.audit('profile.create', { id: p.id, name: p.name, kind: p.kind, baseUrl: p.baseUrl })
      return p
    },
    'profiles:update': async ({ id, patch }) => {
      const before = c.profiles.get(id)
      const p = await c.profiles.update(id, patch)
      // Named so the audit log's redaction of credential-like keys leaves it readable.
      const was = before && profileOrigins(before)
      const credentialDeleted = was !== undefined && [...profileOrigins(p)].some((o) => !was.has(o))
      c.audit('profile.update', {
        id,
        fields: Object.keys(patch),
        ...(credentialDeleted ? { credentialDeleted, baseUrl: p.baseUrl, ...(p.fallbackUrls ? { fallbackUrls: p.fallbackUrls } : {}) } : {})
      })
      // The active profile's endpoint or key changed: reconnect cleanly.
      if (id === c.activeProfile().id) await c.switchTo(id)
      return p
    },
    'profiles:delete': async ({ id }) => {
      if (id === SANDBOX_PROFILE_ID) throw new Error('the sandbox profile cannot be deleted')
      if (id === c.activeProfile().id) await c.switchTo(SANDBOX_PROFILE_ID)
      // The store removes the secret first, then the profile and its database directory.
      await c.profiles.delete(id)
      c.audit('profile.delete', { id })
      return { ok: true }
    },
    'profiles:switch': async ({ id }) => c.switchTo(id),
    'profiles:test': async (input) => checkConnection(input, c.now)
  }
}

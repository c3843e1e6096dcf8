// profiles:* — the connection profiles: list, create, edit, delete and switch, and a test
// of a live connection before it is saved. Editing or deleting the active profile
// reconnects (or falls back to the sandbox) first. A base URL moved to another origin (or a
// team profile's list of hubs gaining one) costs the profile its stored secret (the store
// removes it); a Team profile's session from its hub's identity provider is ended at that hub
// first, when deleted too, so that no session stands there for a profile gone from here.
import { checkConnection } from '../connection-check'
import { profileOrigins, SANDBOX_PROFILE_ID } from '../profiles/profile-store'
import type { Profile } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'
import type { SignInChannel } from './sign-in'

export function profileHandlers(
  c: Pick<HandlerContext, 'profiles' | 'activeProfile' | 'switchTo' | 'audit' | 'now' | 'teamSignIn'>
): Omit<HandlerSlice<'profiles'>, SignInChannel> {
  /** A Team profile's session, to be ended at its hub once the change that costs it is made. */
  const sessionOf = async (p: Profile) => (p.kind === 'team' ? c.teamSignIn.credentials.sessionToEnd(p) : null)
  const ended = (profileId: string) => (why: string) => c.audit('secret.delete', { profileId, via: 'profile-change', hubTold: false, why })
  return {
    'profiles:list': async () => ({ profiles: c.profiles.list(), activeId: c.activeProfile().id }),
    'profiles:create': async (input) => {
      const p = await c.profiles.create(input)
      c.audit('profile.create', { id: p.id, name: p.name, kind: p.kind, baseUrl: p.baseUrl })
      return p
    },
    'profiles:update': async ({ id, patch }) => {
      const before = c.profiles.get(id)
      // Named so the audit log's redaction of credential-like keys leaves it readable.
      const was = before && profileOrigins(before)
      const moved = (p: Profile) => was !== undefined && [...profileOrigins(p)].some((o) => !was.has(o))
      const session = before && moved({ ...before, ...patch } as Profile) ? await sessionOf(before) : null
      const p = await c.profiles.update(id, patch)
      const credentialDeleted = moved(p)
      if (credentialDeleted) session?.end(ended(id))
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
      const p = c.profiles.get(id)
      const session = p ? await sessionOf(p) : null
      // The store removes the secret first, then the profile and its database directory.
      await c.profiles.delete(id)
      session?.end(ended(id))
      c.audit('profile.delete', { id })
      return { ok: true }
    },
    'profiles:switch': async ({ id }) => c.switchTo(id),
    'profiles:test': async (input) => checkConnection(input, c.now)
  }
}

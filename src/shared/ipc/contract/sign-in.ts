// A Team profile signed in through its hub's identity provider instead of a pasted operator
// token: whether the hub offers it (and the provider's name, for "Sign in with …"), this
// profile's sign-in as it stands, how a sign-in began, and how signing out went (the channels
// are profiles:signInInfo, profiles:signIn, profiles:cancelSignIn and profiles:signOut). The
// session's tokens stay in the main process and the keychain: nothing here carries them.
import { z } from 'zod'
import { TeamRole } from './team'

/** What the profile's hub says about signing in. */
export const HubSignInOffer = z.discriminatedUnion('kind', [
  /** The hub signs people in through this provider (its display name as the hub gives it). */
  z.object({ kind: z.literal('provider'), provider: z.string(), sessionMinutes: z.number().int().positive() }),
  /** The hub takes pasted operator tokens only. */
  z.object({ kind: z.literal('tokens-only') }),
  /** The hub could not be asked, in words. */
  z.object({ kind: z.literal('unreachable'), message: z.string() })
])
export type HubSignInOffer = z.infer<typeof HubSignInOffer>

/** This profile's sign-in through the provider. */
export const ProfileSignIn = z.discriminatedUnion('kind', [
  /** No session from a provider (the profile may hold a pasted token). */
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('signed-in'), operator: z.string(), role: TeamRole }),
  /** The hub ended the session (the provider refused to renew it, the person lost their role): why, in words. */
  z.object({ kind: z.literal('ended'), message: z.string() }),
  /** The last attempt did not sign in (the person has no role, the provider refused): why, in words. */
  z.object({ kind: z.literal('refused'), message: z.string() })
])
export type ProfileSignIn = z.infer<typeof ProfileSignIn>

export const SignInStarted = z.discriminatedUnion('kind', [
  /** The desktop: the system browser came back and the session is stored; the profile is now active. */
  z.object({ kind: z.literal('signed-in'), operator: z.string(), role: TeamRole }),
  /** The browser harness: the page goes here (the provider) and comes back to the harness. */
  z.object({ kind: z.literal('redirect'), url: z.string().url() })
])
export type SignInStarted = z.infer<typeof SignInStarted>

export const SignOutResult = z.discriminatedUnion('kind', [
  /** The hub ended the session (or there was none), and this desktop's copy is deleted. */
  z.object({ kind: z.literal('signed-out') }),
  /**
   * This desktop's copy is deleted, but no hub of the profile could be told: the session there
   * ends by itself when its access lapses (`endsAt`, ms since the epoch), as nothing can renew it.
   */
  z.object({ kind: z.literal('signed-out-here'), endsAt: z.number() })
])
export type SignOutResult = z.infer<typeof SignOutResult>

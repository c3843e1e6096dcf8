// profiles:signInInfo, profiles:signIn, profiles:cancelSignIn and profiles:signOut — a Team
// profile signed in through its hub's identity provider instead of a pasted token. The desktop
// opens the system browser and waits on a one-shot loopback listener (team/oidc-sign-in.ts),
// until the browser comes back or the person cancels; the browser harness, which has no system
// browser, sends its own page to the hub and takes it back at its /oidc/done (web/server.ts).
// Either way the session is stored as the profile's credential and the profile becomes the
// active one; the window learns who signed in, never a token. Signing out tells the hub to end
// the session when it can be reached, and deletes the stored copy whether or not.
import { hubSignIn, SignInCancelled, SignInError, signInThroughBrowser } from '../team/oidc-sign-in'
import { transportProblem } from '../profiles/profile-store'
import { ContractError, type HubSignInOffer, type Profile } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

export type SignInChannel = 'profiles:signInInfo' | 'profiles:signIn' | 'profiles:cancelSignIn' | 'profiles:signOut'

/** A failure the window shows in these words (ErrorInfo's kind and message). */
const failure = (kind: string, message: string, retryable = false): Error => Object.assign(new Error(message), { kind, retryable })

type SignInContext = Pick<HandlerContext, 'profiles' | 'switchTo' | 'shell' | 'audit' | 'teamSignIn' | 'shellKind' | 'now'>

/**
 * How long a hub's answer on how it signs people in is reused: Settings asks for it from two cards
 * at every visit, and the hub caps its sign-in routes per client, so asking each time would spend
 * the allowance a sign-in itself needs.
 */
const OFFER_REUSE_MS = 30_000

function teamProfile(c: SignInContext, id: string): Profile {
  const p = c.profiles.get(id)
  if (!p) throw new ContractError('invalid_input', `no profile ${id}`)
  if (p.kind !== 'team') throw new ContractError('invalid_input', 'Only a Team profile signs in through its hub')
  const problem = transportProblem(p)
  if (problem) throw new ContractError('invalid_input', `The team hub cannot be reached this way: ${problem}`)
  return p
}

type KnownOffers = Map<string, { offer: HubSignInOffer; at: number }>

/** The hub's offer, reused for a while when it answered (an unreachable hub is asked again each time). */
async function offerOf(c: SignInContext, p: Profile, known: KnownOffers): Promise<HubSignInOffer> {
  const kept = known.get(p.baseUrl)
  if (kept && c.now() - kept.at < OFFER_REUSE_MS) return kept.offer
  const offer = await askOffer(c, p)
  if (offer.kind === 'unreachable') known.delete(p.baseUrl)
  else known.set(p.baseUrl, { offer, at: c.now() })
  return offer
}

async function askOffer(c: SignInContext, p: Profile): Promise<HubSignInOffer> {
  try {
    const info = await hubSignIn(p.baseUrl, { dispatcher: c.teamSignIn.dispatcher })
    return info ? { kind: 'provider', provider: info.provider, sessionMinutes: info.sessionMinutes } : { kind: 'tokens-only' }
  } catch (e) {
    // The library's words (ECONNREFUSED and the like) are for Diagnostics, not for this card.
    if (e instanceof SignInError) return { kind: 'unreachable', message: e.message }
    return {
      kind: 'unreachable',
      message: `The team hub at ${p.baseUrl} did not answer. Check its address, or ask your team lead whether it is running.`
    }
  }
}

export function signInHandlers(c: SignInContext): Pick<HandlerSlice<'profiles'>, SignInChannel> {
  const { credentials } = c.teamSignIn
  const known: KnownOffers = new Map()
  /** Sign-ins waiting for the system browser, by profile: aborted to cancel. */
  const waiting = new Map<string, AbortController>()
  return {
    'profiles:signInInfo': async ({ id }) => {
      const p = teamProfile(c, id)
      const [offer, signIn] = await Promise.all([offerOf(c, p, known), credentials.state(p)])
      return { offer, signIn, waiting: waiting.has(p.id) || credentials.redirectPending(p.id) }
    },
    'profiles:cancelSignIn': async ({ id }) => {
      const p = teamProfile(c, id)
      const w = waiting.get(p.id)
      w?.abort()
      const redirect = credentials.cancelRedirect(p.id)
      return { cancelled: w !== undefined || redirect }
    },
    'profiles:signOut': async ({ id }) => {
      const p = teamProfile(c, id)
      const r = await credentials.signOut(p)
      c.audit('secret.delete', {
        profileId: p.id,
        via: 'sign-out',
        hubTold: r.kind === 'signed-out',
        ...(r.kind === 'signed-out-here' ? { why: r.why } : {})
      })
      return r.kind === 'signed-out' ? { kind: 'signed-out' } : { kind: 'signed-out-here', endsAt: r.endsAt }
    },
    'profiles:signIn': async ({ id }) => {
      const p = teamProfile(c, id)
      const offer = await offerOf(c, p, known)
      if (offer.kind === 'unreachable') throw failure('hub_unreachable', offer.message, true)
      if (offer.kind === 'tokens-only')
        throw failure(
          'sign_in_unavailable',
          'This team hub signs no one in through an identity provider: paste the operator token its admin gave you'
        )
      const back = c.teamSignIn.redirectUri()
      if (back) return { kind: 'redirect', url: credentials.beginRedirect(p, back) }
      // The harness has no system browser: its page goes, and it can only come back to this computer.
      if (c.shellKind === 'web')
        throw failure('sign_in_unavailable', 'Sign-in through the provider works in the browser harness only when it listens on 127.0.0.1')
      // A second "Sign in" while one waits replaces it (its listener closes).
      waiting.get(p.id)?.abort()
      const abort = new AbortController()
      waiting.set(p.id, abort)
      let tokens
      try {
        tokens = await signInThroughBrowser({
          hubUrl: p.baseUrl,
          openExternal: (url) => c.shell.openExternal(url),
          dispatcher: c.teamSignIn.dispatcher,
          signal: abort.signal
        })
      } catch (e) {
        // Cancelled: nothing was refused, so the card keeps no words of it.
        if (e instanceof SignInCancelled) throw failure('sign_in_cancelled', e.message)
        const message = e instanceof Error ? e.message : String(e)
        credentials.refused(p.id, message)
        throw failure('sign_in_refused', message)
      } finally {
        if (waiting.get(p.id) === abort) waiting.delete(p.id)
      }
      await credentials.store(p, tokens)
      c.audit('secret.set', { profileId: p.id, via: `sign-in through ${offer.provider}` })
      await c.switchTo(p.id)
      return { kind: 'signed-in', operator: tokens.operator, role: tokens.role as 'viewer' | 'operator' | 'admin' }
    }
  }
}

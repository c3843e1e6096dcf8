// The profiles namespace: connection profiles (sandbox, live, team), their inputs, and the
// connection test run before one is saved.
import { z } from 'zod'
import { ch, ErrorInfo, HttpUrl, none, ok } from './primitives'
import { HubSignInOffer, ProfileSignIn, SignInStarted, SignOutResult } from './sign-in'

export const ProfileId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'invalid profile id')
export type ProfileId = z.infer<typeof ProfileId>

/** team: the desktop of one operator of a team hub, which holds the merchant's secret and budget. */
export const ProfileKind = z.enum(['sandbox', 'live', 'team'])
export type ProfileKind = z.infer<typeof ProfileKind>

export const Profile = z.object({
  id: ProfileId,
  name: z.string().min(1).max(64),
  kind: ProfileKind,
  baseUrl: z.string(),
  /**
   * A team profile's other hubs (several hubs on one store), tried in order after baseUrl
   * when the hub in use stops answering. Absent or empty: baseUrl is the only hub.
   */
  fallbackUrls: z.array(z.string()).optional(),
  serviceName: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  apiKey: z.string().max(256)
})
export type Profile = z.infer<typeof Profile>

const ProfileName = z.string().trim().min(1).max(64)
/** The most hubs a team profile names beyond its baseUrl. */
export const MAX_FALLBACK_URLS = 7
const FallbackUrls = z.array(HttpUrl).max(MAX_FALLBACK_URLS)
const ServiceName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lowercase letters, digits and dashes')
const ApiKey = z.string().trim().max(256)

export const ProfileInput = z
  .object({
    name: ProfileName,
    /** A live profile's service, or a team profile's hub. */
    baseUrl: HttpUrl,
    /** A team profile's other hubs, tried in order when the one in use stops answering. */
    fallbackUrls: FallbackUrls.optional(),
    serviceName: ServiceName.default('service'),
    /** Required for a live profile; a team profile has none (the hub holds the merchant's key). */
    apiKey: ApiKey.default(''),
    kind: z.enum(['live', 'team']).default('live')
  })
  .strict()
  .refine((p) => p.kind !== 'live' || p.apiKey.length > 0, { message: 'required for a live profile', path: ['apiKey'] })
  .refine((p) => p.kind === 'team' || !p.fallbackUrls?.length, { message: 'only a team profile has other hubs', path: ['fallbackUrls'] })

/** No defaults: a field left out of a patch keeps its value. */
const ProfilePatch = z
  .object({ name: ProfileName, baseUrl: HttpUrl, fallbackUrls: FallbackUrls, serviceName: ServiceName, apiKey: ApiKey.min(1) })
  .partial()
  .strict()

/** A connection to test before it is saved: the profile's fields and the API secret (used for the test, never kept). */
export const ConnectionInput = z
  .object({
    baseUrl: HttpUrl,
    serviceName: ServiceName.default('service'),
    apiKey: ApiKey.min(1),
    secret: z.string().min(8).max(512)
  })
  .strict()
export type ConnectionInput = z.infer<typeof ConnectionInput>

/** What a failed connection test comes down to, in the operator's terms. */
export const ConnectionCause = z.enum([
  'network',
  'service_name',
  'not_the_service',
  'bad_key',
  'bad_signature',
  'forbidden',
  'clock',
  'rate_limited',
  'service_down',
  'other'
])
export type ConnectionCause = z.infer<typeof ConnectionCause>

export const ConnectionCheck = z.object({
  ok: z.boolean(),
  /** The step that failed: reaching the service (an unsigned call) or signing (a signed one); null when both passed. */
  step: z.enum(['reach', 'sign']).nullable(),
  cause: ConnectionCause.nullable(),
  /** What happened, what it means and what to do next, in plain words. */
  title: z.string(),
  explanation: z.string(),
  next: z.string(),
  latencyMs: z.number().nullable(),
  /** The service's clock minus this computer's, when an answer carried it. */
  clockSkewMs: z.number().nullable(),
  error: ErrorInfo.nullable()
})
export type ConnectionCheck = z.infer<typeof ConnectionCheck>

/** Inputs that name one profile. */
const ProfileSelector = z.object({ id: ProfileId }).strict()

export const profilesChannels = {
  'profiles:list': ch(none, z.object({ profiles: z.array(Profile), activeId: ProfileId }), 'All profiles and the active one'),
  'profiles:create': ch(ProfileInput, Profile, 'Create a live or team profile'),
  'profiles:update': ch(z.object({ id: ProfileId, patch: ProfilePatch }).strict(), Profile, 'Edit a live or team profile'),
  'profiles:delete': ch(ProfileSelector, ok, 'Delete a live profile, its secret and its database'),
  'profiles:switch': ch(ProfileSelector, Profile, 'Make a profile active; every service switches'),
  'profiles:test': ch(
    ConnectionInput,
    ConnectionCheck,
    'Test a live connection before saving it: reach the service, then sign one call; each failure explained with what to do'
  ),
  'profiles:signInInfo': ch(
    ProfileSelector,
    z.object({ offer: HubSignInOffer, signIn: ProfileSignIn, waiting: z.boolean() }),
    "A Team profile's hub: whether it signs people in through an identity provider (and its name), this profile's sign-in, and whether one is under way (waiting for the browser)"
  ),
  'profiles:signIn': ch(
    ProfileSelector,
    SignInStarted,
    "Sign a Team profile in through its hub's identity provider (the system browser and a loopback redirect; in the browser harness, a redirect of the page); the session is kept in the keychain, never shown"
  ),
  'profiles:cancelSignIn': ch(
    ProfileSelector,
    z.object({ cancelled: z.boolean() }),
    "Cancel a Team profile's sign-in under way: the loopback listener closes and profiles:signIn fails with sign_in_cancelled ('Sign-in cancelled.'); in the browser harness, a page coming back finds the sign-in over. cancelled: whether one was under way"
  ),
  'profiles:signOut': ch(
    ProfileSelector,
    SignOutResult,
    'Sign a Team profile out: its session is ended at the hub (POST /auth/oidc/sign-out; best effort) and the stored credential deleted; a pasted token is deleted'
  )
} as const

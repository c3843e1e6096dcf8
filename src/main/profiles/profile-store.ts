// Connection profiles (sandbox or live service): name, base URL, service name and API key,
// kept in profiles.json under the app data dir and written atomically. The API secret is
// never in this file: it goes to the SecretStore. A sandbox profile is created, and made
// active, on first run. Deleting a profile deletes its secret and its database directory.
// A live profile talks https (plain http only to this computer), and a base URL moved to
// another origin loses its stored secret: a secret is only ever sent where it was entered.
// A team profile may name other hubs of its team (fallbackUrls): its token goes to each of
// them, so a list that gains an origin loses the stored token the same way.
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { ProfileKind } from '../../shared/ipc/contract'
import { liveBaseUrlProblem, originOf } from '../../shared/loopback'
import { writeFileAtomic } from './atomic-file'
import { PROFILE_ID_RE } from './profile-id'

export const PROFILES_FILE = 'profiles.json'
/** Profile databases live in <dataDir>/profiles/<id>/. */
export const PROFILES_DIR = 'profiles'

const BaseUrl = z
  .string()
  .trim()
  .transform((s, ctx) => {
    let u: URL
    try {
      u = new URL(s)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'baseUrl must be an absolute URL' })
      return z.NEVER
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'baseUrl must be http or https' })
      return z.NEVER
    }
    if (u.username || u.password) {
      // Credentials belong in the SecretStore, never in profiles.json.
      ctx.addIssue({ code: 'custom', message: 'baseUrl must not contain a user name or password' })
      return z.NEVER
    }
    if (u.search || u.hash) {
      ctx.addIssue({ code: 'custom', message: 'baseUrl must not have a query or fragment' })
      return z.NEVER
    }
    return `${u.origin}${u.pathname}`.replace(/\/+$/, '')
  })

/** A team profile's other hubs: at most seven. */
const FallbackUrls = z.array(BaseUrl).max(7, 'at most 7 other hub URLs')

/** First path segment and the middle word of the header names: a header-safe token. */
const ServiceName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/, 'serviceName must be 1-32 letters, digits or "-"')

const Name = z.string().trim().min(1, 'name is required').max(64, 'name is at most 64 characters')
const ApiKey = z
  .string()
  .trim()
  .max(256)
  .regex(/^[\x21-\x7e]*$/, 'apiKey must be printable ASCII without spaces')

export const Profile = z.object({
  id: z.string().regex(PROFILE_ID_RE),
  name: Name,
  kind: ProfileKind,
  baseUrl: BaseUrl,
  fallbackUrls: FallbackUrls.optional(),
  serviceName: ServiceName.default('service'),
  apiKey: ApiKey.default(''),
  createdAt: z.string(),
  updatedAt: z.string()
})
export type Profile = z.output<typeof Profile>

export const ProfileInput = z.object({
  /** Optional explicit id; generated from the name otherwise. */
  id: z.string().regex(PROFILE_ID_RE, 'id must be 1-64 of a-z, 0-9, "_" and "-"').optional(),
  name: Name,
  kind: ProfileKind,
  baseUrl: BaseUrl,
  fallbackUrls: FallbackUrls.optional(),
  serviceName: ServiceName.default('service'),
  apiKey: ApiKey.default('')
})
export type ProfileInput = z.input<typeof ProfileInput>

/** No defaults here: a field left out of a patch keeps its current value. */
export const ProfilePatch = z
  .object({ name: Name, kind: ProfileKind, baseUrl: BaseUrl, fallbackUrls: FallbackUrls, serviceName: ServiceName, apiKey: ApiKey })
  .partial()
export type ProfilePatch = z.input<typeof ProfilePatch>

const ProfilesFile = z.object({
  version: z.literal(1),
  activeId: z.string(),
  profiles: z.array(Profile)
})
type ProfilesFile = z.output<typeof ProfilesFile>

/** The profile of the embedded simulator: always there, the fallback when another cannot open. */
export const SANDBOX_PROFILE_ID = 'sandbox'

const DEFAULT_SANDBOX: z.input<typeof ProfileInput> & { id: string } = {
  id: SANDBOX_PROFILE_ID,
  name: 'Sandbox',
  kind: 'sandbox',
  baseUrl: 'http://127.0.0.1:8787',
  serviceName: 'service',
  apiKey: ''
}

export class ProfileError extends Error {
  constructor(
    readonly code: 'invalid' | 'not_found' | 'duplicate_name' | 'duplicate_id' | 'last_profile',
    message: string
  ) {
    super(message)
    this.name = 'ProfileError'
  }
}

/** The parts of SecretStore profiles need. */
export interface ProfileSecrets {
  set(profileId: string, secret: string): Promise<unknown>
  delete(profileId: string): Promise<unknown>
}

export interface ProfileStoreOptions {
  /** The app data dir (Electron's userData). */
  dataDir: string
  secrets?: ProfileSecrets
  /** Closes the profile's open database before its directory is removed. */
  closeDatabase?: (profileId: string) => void | Promise<void>
  /** Overrides of the sandbox profile created on first run. */
  defaultSandbox?: Partial<z.input<typeof ProfileInput>>
  now?: () => Date
}

function zodMessage(e: z.ZodError): string {
  return e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value)
  if (!r.success) throw new ProfileError('invalid', zodMessage(r.error))
  return r.data
}

/**
 * Why this profile may not be connected to, or null: a live profile over plain http to
 * another computer (the sandbox profile is always loopback). Checked on every save, and
 * again when a session opens, for a profile saved before https was required.
 */
export function transportProblem(p: { kind: ProfileKind; baseUrl: string }): string | null {
  // A team profile's token travels to its hub as a live profile's key to the service.
  return p.kind === 'sandbox' ? null : liveBaseUrlProblem(p.baseUrl)
}

function assertTransport(p: { kind: ProfileKind; baseUrl: string; fallbackUrls?: readonly string[] }): void {
  const problem = transportProblem(p)
  if (problem) throw new ProfileError('invalid', `baseUrl: ${problem}`)
  if (p.fallbackUrls?.length && p.kind !== 'team') throw new ProfileError('invalid', 'fallbackUrls: only a team profile has other hubs')
  for (const url of p.fallbackUrls ?? []) {
    const other = liveBaseUrlProblem(url)
    if (other) throw new ProfileError('invalid', `fallbackUrls: ${other}`)
  }
}

/** The other hubs without repeats and without the base URL itself; undefined when none are left. */
function otherHubs(baseUrl: string, urls: readonly string[] | undefined): string[] | undefined {
  const list = [...new Set(urls ?? [])].filter((u) => u !== baseUrl)
  return list.length ? list : undefined
}

/** Every origin a profile's secret is sent to. */
export function profileOrigins(p: { baseUrl: string; fallbackUrls?: readonly string[] }): Set<string | null> {
  return new Set([p.baseUrl, ...(p.fallbackUrls ?? [])].map(originOf))
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

export class ProfileStore {
  /** Why the file was reset at open (it was unreadable), if it was. */
  warning: string | null = null
  private state: ProfilesFile = { version: 1, activeId: '', profiles: [] }
  private queue: Promise<unknown> = Promise.resolve()
  private readonly file: string
  private readonly now: () => Date

  private constructor(private readonly opts: ProfileStoreOptions) {
    this.file = join(opts.dataDir, PROFILES_FILE)
    this.now = opts.now ?? (() => new Date())
  }

  /** Loads profiles.json, creating it with an active sandbox profile on first run. */
  static async open(opts: ProfileStoreOptions): Promise<ProfileStore> {
    const store = new ProfileStore(opts)
    await store.load()
    return store
  }

  private async load(): Promise<void> {
    let text: string | null = null
    try {
      text = await fs.readFile(this.file, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    if (text !== null) {
      let parsed: ProfilesFile | null = null
      try {
        const r = ProfilesFile.safeParse(JSON.parse(text))
        if (r.success && r.data.profiles.length > 0) parsed = r.data
      } catch {
        parsed = null
      }
      if (parsed) {
        if (!parsed.profiles.some((p) => p.id === parsed.activeId)) parsed.activeId = parsed.profiles[0]!.id
        this.state = parsed
        return
      }
      // Keep the unreadable file for the operator instead of overwriting it.
      const aside = `${this.file}.corrupt-${this.now().getTime()}`
      await fs.rename(this.file, aside)
      this.warning = `profiles.json was unreadable and was moved to ${aside}; a new sandbox profile was created`
    }
    const at = this.now().toISOString()
    const input = parseOrThrow(ProfileInput, { ...DEFAULT_SANDBOX, ...this.opts.defaultSandbox })
    const sandbox: Profile = { ...input, id: input.id ?? 'sandbox', createdAt: at, updatedAt: at }
    await this.commit({ version: 1, activeId: sandbox.id, profiles: [sandbox] })
  }

  /** Writes the next state; memory changes only once the file has. */
  private async commit(next: ProfilesFile): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`, 0o600)
    this.state = next
  }

  /** Runs mutations one at a time, so concurrent calls never interleave their writes. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  list(): Profile[] {
    return this.state.profiles.map((p) => ({ ...p }))
  }

  get(id: string): Profile | undefined {
    const p = this.state.profiles.find((x) => x.id === id)
    return p ? { ...p } : undefined
  }

  active(): Profile {
    const p = this.state.profiles.find((x) => x.id === this.state.activeId) ?? this.state.profiles[0]
    if (!p) throw new ProfileError('not_found', 'there is no profile')
    return { ...p }
  }

  /** Where a profile's database lives. */
  databaseDir(id: string): string {
    if (!PROFILE_ID_RE.test(id)) throw new ProfileError('invalid', 'invalid profile id')
    return join(this.opts.dataDir, PROFILES_DIR, id)
  }

  setActive(id: string): Promise<Profile> {
    return this.serial(async () => {
      const p = this.requireProfile(id)
      if (this.state.activeId !== id) {
        await this.commit({ ...this.state, activeId: id })
      }
      return { ...p }
    })
  }

  /** Creates a profile; apiSecret, when given, goes to the SecretStore, never to the file. */
  create(input: ProfileInput & { apiSecret?: string }): Promise<Profile> {
    return this.serial(async () => {
      const { apiSecret, ...rest } = input
      const parsed = parseOrThrow(ProfileInput, rest)
      const data = { ...parsed, fallbackUrls: otherHubs(parsed.baseUrl, parsed.fallbackUrls) }
      assertTransport(data)
      this.assertUniqueName(data.name)
      const id = data.id ?? this.newId(data.name)
      if (this.state.profiles.some((p) => p.id === id)) throw new ProfileError('duplicate_id', `a profile with id ${id} already exists`)
      const at = this.now().toISOString()
      const profile: Profile = { ...data, id, createdAt: at, updatedAt: at }
      if (!profile.fallbackUrls) delete profile.fallbackUrls
      if (apiSecret !== undefined) await this.requireSecrets().set(id, apiSecret)
      try {
        await this.commit({ ...this.state, profiles: [...this.state.profiles, profile] })
      } catch (e) {
        if (apiSecret !== undefined) await this.opts.secrets?.delete(id).catch(() => undefined)
        throw e
      }
      return { ...profile }
    })
  }

  update(id: string, patch: ProfilePatch & { apiSecret?: string }): Promise<Profile> {
    return this.serial(async () => {
      const current = this.requireProfile(id)
      const { apiSecret, ...rest } = patch
      const changes = parseOrThrow(ProfilePatch, rest)
      const parsed = parseOrThrow(ProfileInput, {
        id,
        name: changes.name ?? current.name,
        kind: changes.kind ?? current.kind,
        baseUrl: changes.baseUrl ?? current.baseUrl,
        fallbackUrls: changes.fallbackUrls ?? current.fallbackUrls,
        serviceName: changes.serviceName ?? current.serviceName,
        apiKey: changes.apiKey ?? current.apiKey
      })
      const merged = { ...parsed, fallbackUrls: otherHubs(parsed.baseUrl, parsed.fallbackUrls) }
      assertTransport(merged)
      this.assertUniqueName(merged.name, id)
      // The secret was entered for the old origins: it must never be sent to another one. It
      // goes first, so a failure to remove it leaves the profile as it was.
      const before = profileOrigins(current)
      const gains = [...profileOrigins(merged)].some((o) => !before.has(o))
      if (gains && apiSecret === undefined) await this.opts.secrets?.delete(id)
      if (apiSecret !== undefined) await this.requireSecrets().set(id, apiSecret)
      const updated: Profile = { ...current, ...merged, id, updatedAt: this.now().toISOString() }
      if (!updated.fallbackUrls) delete updated.fallbackUrls
      await this.commit({ ...this.state, profiles: this.state.profiles.map((p) => (p.id === id ? updated : p)) })
      return { ...updated }
    })
  }

  /**
   * Deletes a profile, its secret and its database directory. The last profile cannot be
   * deleted; deleting the active one activates the sandbox profile (or the first left).
   */
  delete(id: string): Promise<void> {
    return this.serial(async () => {
      this.requireProfile(id)
      if (this.state.profiles.length === 1) throw new ProfileError('last_profile', 'the last profile cannot be deleted')
      await this.opts.closeDatabase?.(id)
      // The secret first: if it cannot be removed, nothing else has changed yet.
      await this.opts.secrets?.delete(id)
      const profiles = this.state.profiles.filter((p) => p.id !== id)
      const activeId = this.state.activeId === id ? (profiles.find((p) => p.kind === 'sandbox') ?? profiles[0]!).id : this.state.activeId
      await this.commit({ ...this.state, activeId, profiles })
      await fs.rm(this.databaseDir(id), { recursive: true, force: true })
    })
  }

  private requireProfile(id: string): Profile {
    const p = this.state.profiles.find((x) => x.id === id)
    if (!p) throw new ProfileError('not_found', `no profile with id ${JSON.stringify(id)}`)
    return p
  }

  private requireSecrets(): ProfileSecrets {
    if (!this.opts.secrets) throw new ProfileError('invalid', 'no secret store is configured to hold the API secret')
    return this.opts.secrets
  }

  private assertUniqueName(name: string, exceptId?: string): void {
    if (this.state.profiles.some((p) => p.id !== exceptId && sameName(p.name, name))) {
      throw new ProfileError('duplicate_name', `a profile named ${JSON.stringify(name.trim())} already exists`)
    }
  }

  private newId(name: string): string {
    const slug =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) || 'profile'
    for (;;) {
      const id = `${slug}-${randomBytes(3).toString('hex')}`
      if (PROFILE_ID_RE.test(id) && !this.state.profiles.some((p) => p.id === id)) return id
    }
  }
}

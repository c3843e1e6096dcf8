// Cancelling a sign-in that waits for the system browser (profiles:cancelSignIn): the person
// closed the browser tab, or changed their mind. The pending profiles:signIn ends at once with
// "Sign-in cancelled." (not a refusal: the card keeps no words of it), the loopback listener is
// closed (a browser coming back later finds nobody), and the card's info says nothing waits any
// more. In the browser harness, a sign-in whose page went to the provider is dropped the same way.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { signInHandlers } from '../../../../src/main/handlers/sign-in'
import { SecretStore } from '../../../../src/main/secrets/secret-store'
import { TeamCredentials } from '../../../../src/main/team/team-credentials'
import type { Profile } from '../../../../src/shared/ipc/contract'
import { memorySafeStorage } from '../../../support/memory-safe-storage'

type Context = Parameters<typeof signInHandlers>[0]

let hub: Server
let hubUrl = ''
let dir = ''
beforeEach(async () => {
  // The hub's answer to "how do you sign people in"; nothing else is asked of it here.
  hub = createServer((req, res) => {
    req.resume()
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ok: true, value: { provider: 'Test IdP', issuer: 'https://idp.example', sessionMinutes: 15 } }))
  })
  await new Promise<void>((ok) => hub.listen(0, '127.0.0.1', ok))
  hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`
  dir = await mkdtemp(join(tmpdir(), 'rampdesk-cancel-'))
})
afterEach(async () => {
  await new Promise<void>((ok) => hub.close(() => ok()))
  await rm(dir, { recursive: true, force: true })
})

function handlers(o: { redirectUri?: string | null; opened: string[] }) {
  const profile: Profile = {
    id: 'team-1',
    name: 'Team SSO',
    kind: 'team',
    baseUrl: hubUrl,
    serviceName: '',
    apiKey: ''
  }
  const credentials = new TeamCredentials({
    secrets: new SecretStore({ userDataDir: dir, safeStorage: memorySafeStorage(), keytar: null })
  })
  const c = {
    profiles: { get: (id: string) => (id === profile.id ? profile : undefined) },
    switchTo: async () => profile,
    // The system browser: opened, and the person closes the tab (nothing comes back).
    shell: { openExternal: async (url: string) => void o.opened.push(url) },
    audit: () => undefined,
    teamSignIn: { credentials, redirectUri: () => o.redirectUri ?? null },
    shellKind: o.redirectUri ? 'web' : 'electron',
    now: Date.now
  } as unknown as Context
  return { h: signInHandlers(c), profile }
}

async function until(cond: () => boolean): Promise<void> {
  const end = Date.now() + 5_000
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('cancelling a sign-in', () => {
  it('ends the sign-in waiting for the system browser with "Sign-in cancelled." and closes the loopback listener', async () => {
    const opened: string[] = []
    const { h, profile } = handlers({ opened })
    const signIn = h['profiles:signIn']({ id: profile.id }).catch((e: unknown) => e)
    await until(() => opened.length === 1)
    expect(await h['profiles:signInInfo']({ id: profile.id })).toMatchObject({ waiting: true, signIn: { kind: 'none' } })

    expect(await h['profiles:cancelSignIn']({ id: profile.id })).toEqual({ cancelled: true })
    const e = (await signIn) as Error & { kind?: string }
    expect(e).toBeInstanceOf(Error)
    expect(e.message).toBe('Sign-in cancelled.')
    expect(e.kind).toBe('sign_in_cancelled')
    // The listener is closed: the browser coming back now finds nobody.
    const redirect = new URL(new URL(opened[0]!).searchParams.get('redirect_uri')!)
    await expect(request(`${redirect.href}?state=x&code=y`)).rejects.toThrow()
    // Nothing waits, and nothing was refused.
    expect(await h['profiles:signInInfo']({ id: profile.id })).toMatchObject({ waiting: false, signIn: { kind: 'none' } })
    expect(await h['profiles:cancelSignIn']({ id: profile.id })).toEqual({ cancelled: false })
  })

  it('drops the browser harness’s sign-in whose page went to the provider', async () => {
    const { h, profile } = handlers({ opened: [], redirectUri: 'http://127.0.0.1:9/oidc/done' })
    expect(await h['profiles:signIn']({ id: profile.id })).toMatchObject({ kind: 'redirect' })
    expect(await h['profiles:signInInfo']({ id: profile.id })).toMatchObject({ waiting: true })
    expect(await h['profiles:cancelSignIn']({ id: profile.id })).toEqual({ cancelled: true })
    expect(await h['profiles:signInInfo']({ id: profile.id })).toMatchObject({ waiting: false })
  })
})

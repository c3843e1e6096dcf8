// The sign-in options: the role map, the claim's values (a string, an array, a dotted path),
// the highest role winning, the redirect URIs a desktop may give, and sealed values opened
// only with their secret.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveOptions, SERVE_OPTIONS } from '../../../../src/hub/cli-options'
import { claimValues, parseRoleMap, roleOf } from '../../../../src/hub/oidc/oidc-config'
import { oidcConfigOf } from '../../../../src/hub/oidc/oidc-options'
import { seal, unseal } from '../../../../src/hub/oidc/oidc-seal'
import { loopbackRedirect } from '../../../../src/hub/oidc/oidc-service'

describe('OIDC options', () => {
  it('maps claim values to roles, the highest winning, from a string, an array or a dotted path', () => {
    const roles = parseRoleMap('admin=ops-leads, operator=ops,viewer=support,viewer=finance')
    expect(roles).toEqual({ admin: ['ops-leads'], operator: ['ops'], viewer: ['support', 'finance'] })
    const c = { roleClaim: 'groups', roles }
    expect(roleOf(c, { groups: ['finance', 'ops'] })).toBe('operator')
    expect(roleOf(c, { groups: 'support' })).toBe('viewer')
    expect(roleOf(c, { groups: ['ops-leads', 'support'] })).toBe('admin')
    expect(roleOf(c, { groups: ['everyone'] })).toBeNull()
    expect(roleOf(c, {})).toBeNull()
    expect(claimValues({ realm_access: { roles: ['a', 'b', 3] } }, 'realm_access.roles')).toEqual(['a', 'b'])
    expect(() => parseRoleMap('owner=x')).toThrow(/ROLE=VALUE/)
    expect(() => parseRoleMap('admin=')).toThrow(/ROLE=VALUE/)
  })

  it('reads the flags and variables, the secret from its file, and refuses what is missing or unsafe', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampdesk-oidc-'))
    const secret = join(dir, 'secret')
    writeFileSync(secret, 's3cret\n', { mode: 0o600 })
    const env = {
      RAMPDESK_HUB_OIDC_ISSUER: 'https://sso.example.com/realms/team',
      RAMPDESK_HUB_OIDC_CLIENT_ID: 'rampdesk',
      RAMPDESK_HUB_OIDC_CLIENT_SECRET_FILE: secret,
      RAMPDESK_HUB_OIDC_ROLE_CLAIM: 'groups',
      RAMPDESK_HUB_OIDC_ROLES: 'admin=a,viewer=v'
    }
    const of = (args: string[], e: NodeJS.ProcessEnv = env) =>
      oidcConfigOf(resolveOptions(args, SERVE_OPTIONS, { env: e }), () => undefined)
    expect(of([])).toMatchObject({
      issuer: 'https://sso.example.com/realms/team',
      clientId: 'rampdesk',
      clientSecret: 's3cret',
      roles: { admin: ['a'], operator: [], viewer: ['v'] },
      sessionMs: 15 * 60_000,
      providerName: 'sso.example.com',
      allowHttp: false
    })
    expect(of(['--oidc-session-minutes', '5', '--oidc-provider-name', 'Keycloak'])).toMatchObject({
      sessionMs: 5 * 60_000,
      providerName: 'Keycloak'
    })
    expect(of([], {})).toBeNull()
    expect(() => of(['--oidc-issuer', 'http://sso.example.com'])).toThrow(/https/)
    expect(of(['--oidc-issuer', 'http://127.0.0.1:8080'])).toMatchObject({ allowHttp: true })
    expect(() => of([], { ...env, RAMPDESK_HUB_OIDC_ROLES: '' })).toThrow('--oidc-issuer needs --oidc-roles')
    expect(() => of(['--oidc-client-id', 'x'], {})).toThrow('--oidc-client-id needs --oidc-issuer')
    expect(() => of(['--oidc-session-minutes', '0'])).toThrow(/1-1440/)
  })

  it('takes only loopback redirect URIs with a port', () => {
    expect(loopbackRedirect('http://127.0.0.1:53123/callback')?.href).toBe('http://127.0.0.1:53123/callback')
    expect(loopbackRedirect('http://[::1]:53123/')).not.toBeNull()
    for (const bad of [
      'https://127.0.0.1:1/',
      'http://127.0.0.1/',
      'http://localhost:1/',
      'http://a@127.0.0.1:1/',
      'http://10.0.0.1:1/',
      'x'
    ])
      expect(loopbackRedirect(bad)).toBeNull()
  })

  it('opens a sealed value only with its secret and purpose', () => {
    const s = seal('secret-a', 'login', { nonce: 'n' })
    expect(s).not.toContain('n"')
    expect(unseal('secret-a', 'login', s)).toEqual({ nonce: 'n' })
    expect(unseal('secret-b', 'login', s)).toBeNull()
    expect(unseal('secret-a', 'handoff', s)).toBeNull()
  })
})

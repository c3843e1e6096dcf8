// The operator directory as requests see it: operator tokens as before, and session tokens
// of people signed in through the identity provider (told apart by their prefix, so an
// operator token is never looked up among sessions nor the other way round).
import type { OperatorDirectory } from '../hub-store'
import { keyHash } from './oidc-seal'
import { sessionShaped, type OidcStore } from './oidc-store'

export function withOidcSessions(operators: OperatorDirectory, oidc: Pick<OidcStore, 'authenticate' | 'isActive'>): OperatorDirectory {
  return {
    add: (name, role, o) => operators.add(name, role, o),
    rotate: (name, o) => operators.rotate(name, o),
    list: () => operators.list(),
    revoke: (name, opts) => operators.revoke(name, opts),
    authenticate: (token) => (sessionShaped(token) ? oidc.authenticate(keyHash(token)) : operators.authenticate(token)),
    // A session's operator carries its access token's hash, an operator token's its own hash.
    isActive: (tokenHash) => operators.isActive(tokenHash) || oidc.isActive(tokenHash),
    // A session ends with its provider, never as a replaced or expired operator token.
    refusalOf: (token) => (sessionShaped(token) ? null : operators.refusalOf(token))
  }
}

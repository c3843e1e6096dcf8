// The key TOTP secrets are sealed with at rest: second-factor.key in the hub's data directory
// (0600, made on first need), apart from the database, so that a copy of hub.db or a dump of
// the PostgreSQL database alone opens no operator's authenticator. Each secret is sealed with
// AES-256-GCM (oidc-seal.ts) and kept as `k1:<key id>:<sealed>`: the id (a prefix of the key's
// SHA-256) says which key sealed it, so a hub given another key file says so in words instead
// of refusing every code as wrong. Several hubs on one PostgreSQL database each need the same
// file in their data directory; a backup of the database is of no use without it.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { keyHash, randomSecret, seal, unseal } from './oidc/oidc-seal'

export const SECOND_FACTOR_KEY_FILE = 'second-factor.key'
const PURPOSE = 'second-factor secret'
const PREFIX = 'k1:'

export interface SecondFactorKey {
  /** Where it is kept, to name in a message. */
  readonly file: string
  /** Which key this is (a prefix of its SHA-256): stored beside each sealed secret. */
  readonly id: string
  readonly secret: string
}

/** A lazily read key: the file is read (or made) the first time a secret is sealed or opened. */
export type SecondFactorKeyOf = () => SecondFactorKey

const keyOf = (file: string, secret: string): SecondFactorKey => ({ file, id: keyHash(secret).slice(0, 12), secret })

/** Reads the data directory's key, or makes one (0600) when there is none yet. */
export function loadSecondFactorKey(dataDir: string): SecondFactorKey {
  const file = join(dataDir, SECOND_FACTOR_KEY_FILE)
  try {
    const secret = readFileSync(file, 'utf8').trim()
    if (secret.length < 43) throw new Error(`${file} does not hold a second-factor key (it is too short); restore it from your backup`)
    return keyOf(file, secret)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  try {
    // 'wx': two processes making it at once keep the one written first.
    writeFileSync(file, `${randomSecret()}\n`, { mode: 0o600, flag: 'wx' })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  return keyOf(file, readFileSync(file, 'utf8').trim())
}

/** A key read once from the data directory, when first asked for. */
export function secondFactorKeyIn(dataDir: string): SecondFactorKeyOf {
  let key: SecondFactorKey | null = null
  return () => (key ??= loadSecondFactorKey(dataDir))
}

/** For a store opened without a data directory: every use says what is missing. */
export const NO_SECOND_FACTOR_KEY: SecondFactorKeyOf = () => {
  throw new Error('this hub store was opened without a second-factor key (second-factor.key in the data directory)')
}

export const isSealedSecret = (stored: string): boolean => stored.startsWith(PREFIX)

export function sealSecret(key: SecondFactorKey, secret: string): string {
  return `${PREFIX}${key.id}:${seal(key.secret, PURPOSE, secret)}`
}

/**
 * What a desktop is told when this hub's key does not open a stored second factor: not that
 * the operator is not enrolled, nor that the code is wrong, but that the hub cannot check
 * codes, in words for the operator; the team lead reads the key file's name in the hub's log.
 */
export const KEY_MISMATCH_WORDS = 'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).'

/**
 * A stored second factor this hub's key does not open: another key sealed it, or it was
 * altered. Its message (for the hub's log) names the key file; toInfo() is what a desktop is
 * sent (kind second_factor_unavailable).
 */
export class SecondFactorKeyMismatch extends Error {
  readonly kind = 'second_factor_unavailable'
  readonly retryable = false
  constructor(
    message: string,
    readonly operator: string,
    /** The key file of this hub. */
    readonly file: string,
    /** Which key sealed it (null when the key matched but the secret did not open: altered). */
    readonly sealedWith: string | null
  ) {
    super(message)
    this.name = 'SecondFactorKeyMismatch'
  }

  toInfo(): { kind: string; message: string; retryable: boolean; secondFactor: 'key_mismatch' } {
    return { kind: this.kind, message: KEY_MISMATCH_WORDS, retryable: false, secondFactor: 'key_mismatch' }
  }
}

/** Which key sealed a stored secret (its id), or null when it is not sealed. */
export function sealedKeyId(stored: string): string | null {
  if (!isSealedSecret(stored)) return null
  const rest = stored.slice(PREFIX.length)
  return rest.slice(0, rest.indexOf(':'))
}

/** The secret (base32); throws SecondFactorKeyMismatch when another key sealed it or it was tampered with. */
export function openSecret(key: SecondFactorKey, stored: string, name: string): string {
  if (!isSealedSecret(stored)) throw new Error(`the second factor of ${name} is not sealed: the hub's store was not migrated`)
  const rest = stored.slice(PREFIX.length)
  const colon = rest.indexOf(':')
  const id = rest.slice(0, colon)
  if (id !== key.id)
    throw new SecondFactorKeyMismatch(
      `the second factor of ${name} was sealed with another key (id ${id}) than ${key.file} (id ${key.id}): copy second-factor.key from the hub that enrolled it`,
      name,
      key.file,
      id
    )
  const secret = unseal<string>(key.secret, PURPOSE, rest.slice(colon + 1))
  if (typeof secret !== 'string')
    throw new SecondFactorKeyMismatch(`the second factor of ${name} does not open with ${key.file}: it was altered`, name, key.file, null)
  return secret
}

/** This hub's key tried on every stored second factor: the operators whose secret opens, and those whose does not. */
export interface SecondFactorKeyCheck {
  opened: string[]
  unopenable: SecondFactorKeyMismatch[]
}

/** Opens stored secrets for a store, and tells those listening of each that does not open. */
export class KeyMismatchHeard {
  readonly listeners: ((e: SecondFactorKeyMismatch) => void)[] = []

  constructor(private readonly key: SecondFactorKeyOf) {}

  open(stored: string, name: string): string {
    try {
      return openSecret(this.key(), stored, name)
    } catch (e) {
      if (e instanceof SecondFactorKeyMismatch) for (const l of this.listeners) l(e)
      throw e
    }
  }

  /** Which rows' secrets open and which do not (without telling the listeners: the caller reports them). */
  check(rows: readonly { name: string; secret: string }[]): SecondFactorKeyCheck {
    const sealed = rows.filter((r) => isSealedSecret(r.secret))
    const result: SecondFactorKeyCheck = { opened: [], unopenable: [] }
    if (!sealed.length) return result
    const key = this.key()
    for (const r of sealed) {
      try {
        openSecret(key, r.secret, r.name)
        result.opened.push(r.name)
      } catch (e) {
        if (e instanceof SecondFactorKeyMismatch) result.unopenable.push(e)
        else throw e
      }
    }
    return result
  }
}

// Profile ids name files and directories (the secret file, the database directory), so
// they are restricted to a safe alphabet: no separators, no dots, nothing to traverse with.
export const PROFILE_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/

export function isValidProfileId(id: unknown): id is string {
  return typeof id === 'string' && PROFILE_ID_RE.test(id)
}

export function assertProfileId(id: unknown): asserts id is string {
  if (!isValidProfileId(id)) throw new RangeError('invalid profile id (expected 1-64 of a-z, 0-9, "_" and "-")')
}

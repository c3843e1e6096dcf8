// How a record that did not match its schema is named in the log and the diagnostics: the
// first issue, with its path written as the record's fields are ("data[3].updatedAt").
import type { z } from 'zod'

type Issue = z.core.$ZodIssue

/** "path: message" of the first issue. */
export function formatIssue(issues: readonly Issue[]): string {
  const { path, message } = firstIssue(issues)
  return path ? `${path}: ${message}` : message
}

/** The first issue, descending into the union branch that got furthest, with its path as "data[3].updatedAt". */
export function firstIssue(issues: readonly Issue[], prefix: PropertyKey[] = []): { path: string; message: string } {
  const deepest = (list: readonly Issue[], base: PropertyKey[]): { keys: PropertyKey[]; message: string } => {
    const issue = list[0]
    if (!issue) return { keys: base, message: 'invalid' }
    const keys = [...base, ...issue.path]
    if (issue.code === 'invalid_union' && issue.errors.length > 0)
      return issue.errors.map((branch) => deepest(branch, keys)).reduce((best, b) => (b.keys.length > best.keys.length ? b : best))
    return { keys, message: issue.message }
  }
  const { keys, message } = deepest(issues, prefix)
  return { path: formatPath(keys), message }
}

function formatPath(keys: PropertyKey[]): string {
  return keys.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '')
}

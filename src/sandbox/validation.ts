// Maps a request schema's zod issues to the service's error codes: a parameter of the
// wrong JSON type is 409 ("wrong parameter type"); a missing parameter, an unknown
// key, a value out of range or any other rule is 400.
import type { z } from 'zod'

export interface ValidationFailure {
  code: 400 | 409
  error: string
}

type Issue = z.core.$ZodIssue

const at = (root: unknown, path: readonly PropertyKey[]): unknown => {
  let v = root
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[k]
  }
  return v
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const name = (path: readonly PropertyKey[]): string => (path.length === 0 ? 'body' : path.map(String).join('.'))

function describe(issue: Issue, body: unknown): { wrongType: boolean; text: string } {
  const value = at(body, issue.path)
  const field = name(issue.path)
  if (issue.code === 'invalid_type') {
    if (value === undefined) return { wrongType: false, text: `Missing parameter: ${field}` }
    if (issue.path.length === 0) return { wrongType: false, text: `The request body must be a JSON object, not ${jsonType(value)}` }
    return { wrongType: true, text: `Wrong parameter type: ${field} must be ${issue.expected}, not ${jsonType(value)}` }
  }
  if (issue.code === 'invalid_union') {
    const branches = issue.errors
    const allTypes = branches.length > 0 && branches.every((b) => b.length > 0 && b.every((i) => i.code === 'invalid_type'))
    if (allTypes) {
      if (value === undefined) return { wrongType: false, text: `Missing parameter: ${field}` }
      const expected = [...new Set(branches.flatMap((b) => b.map((i) => (i.code === 'invalid_type' ? i.expected : ''))))].join(' or ')
      return { wrongType: true, text: `Wrong parameter type: ${field} must be ${expected}, not ${jsonType(value)}` }
    }
    // A discriminated union (quotes) names its discriminator in the path.
    if (value !== undefined && typeof value !== 'number')
      return { wrongType: true, text: `Wrong parameter type: ${field} must be a number, not ${jsonType(value)}` }
    if (value === undefined) return { wrongType: false, text: `Missing parameter: ${field}` }
    return { wrongType: false, text: `Invalid ${field}: ${issue.message}` }
  }
  if (issue.code === 'unrecognized_keys')
    return { wrongType: false, text: `Unknown parameter${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` }
  return { wrongType: false, text: `Invalid ${field}: ${issue.message}` }
}

/** Validates a body; returns the parsed value or the failure to answer with. */
export function validate<S extends z.ZodType>(
  schema: S,
  body: unknown
): { ok: true; value: z.output<S> } | { ok: false; failure: ValidationFailure } {
  const r = schema.safeParse(body)
  if (r.success) return { ok: true, value: r.data }
  const described = r.error.issues.map((i) => describe(i, body))
  const wrong = described.filter((d) => d.wrongType)
  const chosen = wrong.length > 0 ? wrong : described
  return { ok: false, failure: { code: wrong.length > 0 ? 409 : 400, error: chosen.map((d) => d.text).join('; ') } }
}

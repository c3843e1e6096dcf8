// Canonical JSON and its SHA-256, so "same content" means the same hash whatever the key
// order the service happened to send: identical records are skipped without a write.
import { createHash } from 'node:crypto'

/** JSON with object keys sorted at every level; undefined values are dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(o).sort()) {
      if (o[k] !== undefined) out[k] = sortKeys(o[k])
    }
    return out
  }
  return value
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}

// The audit log's hash chain: every entry carries its place (seq, from 1, with no gaps), the
// hash of the entry before it (prev_hash; 64 zeros before the first) and its own hash, the
// SHA-256 (hex) of the RFC 8785 canonical JSON of { seq, time, actor, action, detail,
// prev_hash }. Editing, removing or moving an entry breaks the chain at that entry, which
// `audit verify` finds (audit-verify.ts); a copy that left the hub (an export, the live copy)
// keeps the hashes, so the copy and the database can be checked against each other.
//
// An exported line is that object with its hash: the same names, so anyone can recompute a
// hash from a line with any RFC 8785 library and SHA-256.
import { createHash } from 'node:crypto'

export const GENESIS_HASH = '0'.repeat(64)

/** One entry as the chain covers it (and as an exported line carries it). */
export interface ChainedEntry {
  seq: number
  /** ISO 8601 with milliseconds, UTC. */
  time: string
  actor: string
  action: string
  detail: Record<string, unknown>
  prev_hash: string
  hash: string
}

/** Where the chain stands: the entry the next one follows (seq 0 and GENESIS_HASH: none yet). */
export interface ChainLink {
  seq: number
  hash: string
}

export const CHAIN_START: ChainLink = { seq: 0, hash: GENESIS_HASH }

/**
 * RFC 8785 for the values JSON.parse gives: object keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (which is what
 * RFC 8785 prescribes).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** The hash an entry must carry, from everything but its hash. */
export function entryHash(e: Omit<ChainedEntry, 'hash'>): string {
  const covered = { seq: e.seq, time: e.time, actor: e.actor, action: e.action, detail: e.detail, prev_hash: e.prev_hash }
  return createHash('sha256').update(canonicalJson(covered), 'utf8').digest('hex')
}

export const isoTime = (at: number): string => new Date(at).toISOString()

/** An entry as a store row holds it, before it is chained. */
export interface UnchainedRow {
  at: number
  operator: string
  action: string
  detail_json: string
}

/** Chains rows, in the order given, after `head`; answers each row's seq, prev_hash and hash. */
export function chainAfter(head: ChainLink, rows: readonly UnchainedRow[]): Array<{ seq: number; prev_hash: string; hash: string }> {
  let link = head
  return rows.map((r) => {
    const seq = link.seq + 1
    const entry = {
      seq,
      time: isoTime(r.at),
      actor: r.operator,
      action: r.action,
      detail: JSON.parse(r.detail_json) as Record<string, unknown>,
      prev_hash: link.hash
    }
    const hash = entryHash(entry)
    link = { seq, hash }
    return { seq, prev_hash: entry.prev_hash, hash }
  })
}

/** A chained row of either store, as it is read back. */
export interface ChainedRow extends UnchainedRow {
  seq: number | string
  prev_hash: string
  hash: string
}

export function entryOfRow(r: ChainedRow): ChainedEntry {
  return {
    seq: Number(r.seq),
    time: isoTime(Number(r.at)),
    actor: r.operator,
    action: r.action,
    detail: JSON.parse(r.detail_json) as Record<string, unknown>,
    prev_hash: r.prev_hash,
    hash: r.hash
  }
}

/** One line of an export or of the live copy. */
export function entryLine(e: ChainedEntry): string {
  return JSON.stringify({
    seq: e.seq,
    time: e.time,
    actor: e.actor,
    action: e.action,
    detail: e.detail,
    prev_hash: e.prev_hash,
    hash: e.hash
  })
}

const HEX64 = /^[0-9a-f]{64}$/

/** An exported line read back, or why it is not one. */
export function parseEntryLine(line: string): ChainedEntry | string {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return 'it is not JSON'
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'it is not a JSON object'
  const o = v as Record<string, unknown>
  if (!Number.isSafeInteger(o.seq) || (o.seq as number) < 1) return 'its seq is not a positive integer'
  if (typeof o.time !== 'string' || Number.isNaN(Date.parse(o.time))) return 'its time is not an ISO 8601 time'
  if (typeof o.actor !== 'string' || typeof o.action !== 'string') return 'its actor or action is not a string'
  if (o.detail === null || typeof o.detail !== 'object' || Array.isArray(o.detail)) return 'its detail is not an object'
  if (typeof o.prev_hash !== 'string' || !HEX64.test(o.prev_hash)) return 'its prev_hash is not 64 hex digits'
  if (typeof o.hash !== 'string' || !HEX64.test(o.hash)) return 'its hash is not 64 hex digits'
  return {
    seq: o.seq as number,
    time: o.time,
    actor: o.actor,
    action: o.action,
    detail: o.detail as Record<string, unknown>,
    prev_hash: o.prev_hash,
    hash: o.hash
  }
}

// Checks an audit log's hash chain (audit-chain.ts), from a store or from an exported file,
// and says where the first break is and what it looks like:
//   - edited: an entry no longer matches its hash, or its hash was recomputed and the next
//     entry still chains to the original;
//   - removed: seq numbers are missing (in the middle, or at the end when the store's head
//     says there were more);
//   - reordered: the entry that chains onto the last good one is elsewhere (another line of
//     the file, another seq in the store) and its hash holds at the place it was chained at.
// One pass reads the entries in order and stops at the first break; only then a second pass
// looks for the entry that belongs there, so a log of a million entries is checked in
// constant memory.
import { CHAIN_START, entryHash, type ChainedEntry, type ChainLink } from './audit-chain'

export type BreakKind = 'edited' | 'removed' | 'reordered' | 'unreadable'

/** One entry as a source presents it, or why it could not be read; `place` names it for people ("seq 5", "line 7"). */
export interface Presented {
  entry: ChainedEntry | string
  place: string
}

export interface VerifySource {
  /** The entries in the order presented: by seq (a store), line by line (a file). Read once, twice on a break. */
  entries(): AsyncIterable<Presented>
  /**
   * What the first entry must follow: the store's anchor (seq 0 and the zero hash, or the
   * last entry pruned). null: a file, whose first entry's predecessor is taken as it says,
   * unless it is seq 1.
   */
  start: ChainLink | null
  /** The head the store recorded with its last append (null: a file). */
  head: ChainLink | null
}

export type VerifyResult =
  { ok: true; entries: number; first: number | null; head: ChainLink } | { ok: false; kind: BreakKind; at: string; message: string }

function range(from: number, to: number): string {
  return from === to ? `seq ${from} is` : `seq ${from}-${to} are`
}

export async function verifyChain(source: VerifySource): Promise<VerifyResult> {
  let expected = source.start
  let entries = 0
  let first: number | null = null
  for await (const p of source.entries()) {
    if (typeof p.entry === 'string') return { ok: false, kind: 'unreadable', at: p.place, message: p.entry }
    const e = p.entry
    if (expected === null) expected = e.seq === 1 ? CHAIN_START : { seq: e.seq - 1, hash: e.prev_hash }
    first ??= e.seq
    const holds = entryHash(e) === e.hash
    if (holds && e.seq === expected.seq + 1 && e.prev_hash === expected.hash) {
      expected = { seq: e.seq, hash: e.hash }
      entries++
      continue
    }
    return diagnose(source, expected, p, e, holds)
  }
  const head = expected ?? CHAIN_START
  if (source.head && (source.head.seq !== head.seq || source.head.hash !== head.hash)) {
    if (source.head.seq > head.seq)
      return {
        ok: false,
        kind: 'removed',
        at: `seq ${head.seq + 1}`,
        message: `${range(head.seq + 1, source.head.seq)} missing: the log's head is seq ${source.head.seq}, its last entry seq ${head.seq}`
      }
    return {
      ok: false,
      kind: 'edited',
      at: `seq ${head.seq}`,
      message: `the last entry does not match the head the log recorded (seq ${source.head.seq}, ${source.head.hash.slice(0, 16)})`
    }
  }
  return { ok: true, entries, first, head }
}

async function diagnose(source: VerifySource, expected: ChainLink, p: Presented, e: ChainedEntry, holds: boolean): Promise<VerifyResult> {
  const want = expected.seq + 1
  // The entry chained onto the last good one, if it is elsewhere: moved, or renumbered.
  for await (const other of source.entries()) {
    const x = other.entry
    if (typeof x === 'string' || other.place === p.place || x.prev_hash !== expected.hash) continue
    if (entryHash({ ...x, seq: want }) !== x.hash) continue
    return {
      ok: false,
      kind: 'reordered',
      at: `seq ${want}`,
      message: `the entry chained after seq ${expected.seq} is at ${other.place}, not at ${p.place}`
    }
  }
  if (holds && e.seq > want)
    return {
      ok: false,
      kind: 'removed',
      at: `seq ${want}`,
      message: `${range(want, e.seq - 1)} missing: ${p.place} follows seq ${expected.seq}`
    }
  if (!holds) return { ok: false, kind: 'edited', at: p.place, message: `the entry no longer matches its hash` }
  if (e.seq === want) {
    if (expected.seq === 0 || expected === source.start)
      return {
        ok: false,
        kind: 'edited',
        at: p.place,
        message: `it does not chain onto what the log starts from (seq ${expected.seq}, ${expected.hash.slice(0, 16)})`
      }
    return {
      ok: false,
      kind: 'edited',
      at: `seq ${expected.seq}`,
      message: `its hash was recomputed after a change: ${p.place} still chains to the original`
    }
  }
  return { ok: false, kind: 'reordered', at: p.place, message: `seq ${e.seq} comes after seq ${expected.seq}` }
}

/** The line `audit verify` prints. */
export function verdictLine(r: VerifyResult): string {
  if (r.ok)
    return `audit log verified: ${r.entries} ${r.entries === 1 ? 'entry' : 'entries'}, head ${r.head.hash.slice(0, 16)} (seq ${r.head.seq})`
  return `audit log broken at ${r.at}: ${r.kind} (${r.message})`
}

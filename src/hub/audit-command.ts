// npm run hub -- audit export [--since ISO] [--format jsonl] | audit verify [--file F]: the
// audit log out of the hub's store, one JSON line per entry with its place in the hash chain
// (audit-chain.ts), and the chain checked, in the store or in a file that left it
// (audit-verify.ts). Exit codes of verify: 0 verified, 1 broken, 2 not run (usage, a file
// that cannot be read).
import { createReadStream, existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { entryLine, parseEntryLine } from './audit-chain'
import { InputError } from './cli-errors'
import { DATA_DIR_OPTION, DATABASE_OPTIONS, resolveOptions, UsageError, type OptionSpec } from './cli-options'
import { openStoreFor } from './command-store'
import type { CliIo } from './hub-paths'
import type { AuditLog } from './hub-store'
import { verdictLine, verifyChain, type Presented, type VerifySource } from './audit-verify'

const AUDIT_OPTIONS = {
  'data-dir': DATA_DIR_OPTION,
  ...DATABASE_OPTIONS,
  since: { type: 'string', help: 'export the entries from this time on (ISO 8601)' },
  format: { type: 'string', help: 'jsonl (the only format, and the default)' },
  file: { type: 'string', help: 'verify this exported file instead of the store' }
} as const satisfies Record<string, OptionSpec>

const PAGE = 1_000

export async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args
  const o = resolveOptions(rest, AUDIT_OPTIONS, { warn: (m) => io.err(`warning: ${m}`) })
  if (sub === 'export') {
    if (o.string('file') !== undefined) throw new UsageError('audit export writes to stdout: redirect it (> FILE), no --file')
    const format = o.string('format') ?? 'jsonl'
    if (format !== 'jsonl') throw new UsageError(`audit export --format must be jsonl, not ${format}`)
    const since = o.string('since')
    const sinceAt = since === undefined ? undefined : Date.parse(since)
    if (sinceAt !== undefined && Number.isNaN(sinceAt))
      throw new UsageError(`audit export --since must be an ISO 8601 time (2026-11-01 or 2026-11-01T09:00:00Z), not ${since}`)
    const store = await openStoreFor(o, io)
    try {
      for (let after = 0; ;) {
        const page = await store.audit.page(after, PAGE, sinceAt)
        for (const e of page) io.out(entryLine(e))
        if (page.length < PAGE) return 0
        after = page.at(-1)!.seq
      }
    } finally {
      await store.close()
    }
  }
  if (sub === 'verify') {
    if (o.string('since') !== undefined || o.string('format') !== undefined)
      throw new UsageError('audit verify takes no --since or --format')
    const file = o.string('file')
    if (file !== undefined) {
      if (o.string('database') !== undefined)
        throw new UsageError('audit verify checks --file or the store (--data-dir, --database), not both')
      if (!existsSync(file)) throw new InputError(`cannot read ${file}: no such file`)
      return report(await verifyChain(fileSource(file)), io)
    }
    const store = await openStoreFor(o, io)
    try {
      return report(await verifyChain(await storeSource(store.audit)), io)
    } finally {
      await store.close()
    }
  }
  throw new UsageError(`unknown audit command ${sub ?? '(none)'}: export or verify`)
}

function report(r: Awaited<ReturnType<typeof verifyChain>>, io: CliIo): number {
  if (r.ok) {
    io.out(verdictLine(r))
    return 0
  }
  io.err(verdictLine(r))
  return 1
}

/** The store's chain up to the head it had when the check began (entries appended meanwhile are left for the next check). */
export async function storeSource(audit: AuditLog): Promise<VerifySource> {
  const { start, head } = await audit.bounds()
  return {
    start,
    head,
    async *entries(): AsyncIterable<Presented> {
      for (let after = -1; ;) {
        const page = await audit.page(after, PAGE)
        for (const e of page) {
          if (e.seq > head.seq) return
          yield { entry: e, place: `seq ${e.seq}` }
        }
        if (page.length < PAGE) return
        after = page.at(-1)!.seq
      }
    }
  }
}

/** An exported file (or the live copy), line by line; blank lines are skipped. */
export function fileSource(path: string): VerifySource {
  return {
    start: null,
    head: null,
    async *entries(): AsyncIterable<Presented> {
      const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
      let n = 0
      for await (const line of lines) {
        n++
        if (line.trim() === '') continue
        const entry = parseEntryLine(line)
        yield { entry, place: typeof entry === 'string' ? `line ${n}` : `line ${n} (seq ${entry.seq})` }
      }
    }
  }
}

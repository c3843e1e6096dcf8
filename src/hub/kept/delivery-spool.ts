// Where a delivery is kept while the store cannot take it (PostgreSQL stopped, paused or out
// of reach; hub.db locked or failing): an append-only file in the hub's data directory,
// written and fdatasync'ed before the delivery is answered 2xx. Appends that arrive together
// share one write and one fdatasync. Each line carries a hash of itself, so a line a crash
// cut short (never answered 2xx, as its sync never ended) is recognised and left out.
//
// Draining moves the entries into the store in the order they came: the file being appended
// to is closed first and a new one started, so nothing is appended to a file being drained;
// a file is removed only once every entry in it is in the store. The store keeps a delivery
// once however often it is given (its content key), so a drain cut short by a crash and run
// again keeps nothing twice. The spool is bounded: past `maxBytes` an append is refused and
// the hub answers 503, so the service tries again later.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { sha256, type KeptDelivery } from './kept-delivery'

/** The spool's bound by default: about 15,000 deliveries of a typical order record (a line is about 4 KiB). */
export const SPOOL_MAX_BYTES = 64 * 1024 * 1024
const FILE = /^spool-(\d{12})\.jsonl$/

export class SpoolFullError extends Error {
  constructor(max: number) {
    super(`the webhook spool is full (${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MiB` : `${max} bytes`})`)
    this.name = 'SpoolFullError'
  }
}

interface Pending {
  line: string
  done: (e?: Error) => void
}

/** One spooled line: a short hash of the JSON, a space, the JSON. */
function lineOf(d: KeptDelivery): string {
  const json = JSON.stringify(d)
  return `${sha256(json).slice(0, 16)} ${json}\n`
}

/** The entries of a spool file's text, leaving out lines that are incomplete or damaged. */
export function readSpoolText(text: string): { entries: KeptDelivery[]; damaged: number } {
  const entries: KeptDelivery[] = []
  let damaged = 0
  for (const line of text.split('\n')) {
    if (!line) continue
    const json = line.slice(17)
    if (line[16] !== ' ' || sha256(json).slice(0, 16) !== line.slice(0, 16)) {
      damaged++
      continue
    }
    try {
      entries.push(JSON.parse(json) as KeptDelivery)
    } catch {
      damaged++
    }
  }
  return { entries, damaged }
}

export class DeliverySpool {
  private file: { seq: number; handle: FileHandle } | null = null
  private nextSeq: number
  private pending: Pending[] = []
  /** Every operation on the files, one after another: a flush never writes to a file a drain has taken. */
  private chain: Promise<void> = Promise.resolve()
  private scheduled = false
  /** Entries, and their bytes, being written now (between the queue and the count). */
  private writing = 0
  private writingBytes = 0
  private size: number
  private count: number
  /** Entries of the oldest file already in the store (a drain that failed part way). */
  private drainedOf = new Map<number, number>()

  private constructor(
    readonly dir: string,
    private readonly maxBytes: number,
    existing: { seq: number; bytes: number; entries: number }[]
  ) {
    this.nextSeq = Math.max(0, ...existing.map((f) => f.seq)) + 1
    this.size = existing.reduce((n, f) => n + f.bytes, 0)
    this.count = existing.reduce((n, f) => n + f.entries, 0)
  }

  /** Opens the spool in `dir` (created when missing), counting what an earlier run left in it. */
  static open(dir: string, maxBytes = SPOOL_MAX_BYTES): DeliverySpool {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // The new directory is durable once its parent is synced.
      const parent = openSync(dirname(dir), 'r')
      try {
        fsyncSync(parent)
      } finally {
        closeSync(parent)
      }
    }
    const existing = readdirSync(dir)
      .map((name) => FILE.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => {
        const path = join(dir, m[0])
        return { seq: Number(m[1]), bytes: statSync(path).size, entries: readSpoolText(readFileSync(path, 'utf8')).entries.length }
      })
    return new DeliverySpool(dir, maxBytes, existing)
  }

  /** Bytes and entries spooled and not yet drained. */
  get bytes(): number {
    return this.size
  }
  get entries(): number {
    return this.count
  }
  isEmpty(): boolean {
    return this.count === 0 && this.pending.length === 0 && this.writing === 0
  }

  /** Appends one delivery; resolves once it is on disk (fdatasync), rejects when the spool is full or cannot write. */
  append(d: KeptDelivery): Promise<void> {
    const line = lineOf(d)
    const bytes = Buffer.byteLength(line)
    const queued = this.pending.reduce((n, p) => n + Buffer.byteLength(p.line), 0) + this.writingBytes
    if (this.size + queued + bytes > this.maxBytes) return Promise.reject(new SpoolFullError(this.maxBytes))
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line, done: (e) => (e ? reject(e) : resolve()) })
      if (this.scheduled) return
      this.scheduled = true
      this.chain = this.chain.then(() => this.flush())
    })
  }

  private async flush(): Promise<void> {
    this.scheduled = false
    while (this.pending.length) {
      const batch = this.pending
      this.pending = []
      const text = batch.map((p) => p.line).join('')
      this.writing = batch.length
      this.writingBytes = Buffer.byteLength(text)
      try {
        const f = await this.current()
        await f.handle.write(text)
        await f.handle.datasync()
        this.size += Buffer.byteLength(text)
        this.count += batch.length
        for (const p of batch) p.done()
      } catch (e) {
        // A file that failed a write may hold part of it: start a new one for what comes next.
        await this.closeFile()
        for (const p of batch) p.done(e instanceof Error ? e : new Error(String(e)))
      } finally {
        this.writing = 0
        this.writingBytes = 0
      }
    }
  }

  private async current(): Promise<{ seq: number; handle: FileHandle }> {
    if (this.file) return this.file
    const seq = this.nextSeq++
    const handle = await open(join(this.dir, `spool-${String(seq).padStart(12, '0')}.jsonl`), 'a', 0o600)
    await syncDir(this.dir)
    this.file = { seq, handle }
    return this.file
  }

  private async closeFile(): Promise<void> {
    const f = this.file
    this.file = null
    await f?.handle.close().catch(() => undefined)
  }

  /**
   * Moves every spooled entry into the store, oldest first, in batches; a file is removed once
   * all of it is in. Stops at the first batch the store refuses (it throws) and leaves the rest
   * for the next drain. Answers how many entries went in.
   */
  async drain(keep: (batch: KeptDelivery[]) => Promise<unknown>, batchSize = 100): Promise<number> {
    if (this.count === 0) return 0
    // Appends go on in a new file while these are read: every file before it is closed.
    await (this.chain = this.chain.then(() => this.closeFile()))
    const limit = this.nextSeq
    const files = readdirSync(this.dir)
      .map((name) => FILE.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ seq: Number(m[1]), path: join(this.dir, m[0]) }))
      .filter((f) => f.seq < limit)
      .sort((a, b) => a.seq - b.seq)
    let moved = 0
    for (const f of files) {
      const text = await readFile(f.path, 'utf8')
      const { entries } = readSpoolText(text)
      let done = this.drainedOf.get(f.seq) ?? 0
      while (done < entries.length) {
        const batch = entries.slice(done, done + batchSize)
        await keep(batch)
        done += batch.length
        moved += batch.length
        this.drainedOf.set(f.seq, done)
      }
      await unlink(f.path)
      await syncDir(this.dir)
      this.drainedOf.delete(f.seq)
      this.size = Math.max(0, this.size - Buffer.byteLength(text))
      this.count = Math.max(0, this.count - entries.length)
    }
    return moved
  }

  async close(): Promise<void> {
    await (this.chain = this.chain.then(() => this.closeFile()))
  }
}

/** A new or removed file is durable once its directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const h = await open(dir, 'r')
  try {
    await h.sync()
  } finally {
    await h.close()
  }
}

// Reading a webhook request's body within its size and time limits, and what the delivery
// log keeps of it: the whole body of a verified delivery; of any other, the first 2 KiB
// with the whole body's SHA-256 and length (anyone can send a megabyte of junk).
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/**
 * What is kept of a delivery that did not verify (and of its payload header): enough to
 * recognise it, never a megabyte of junk per request. Its SHA-256 and length are kept too.
 */
export const UNVERIFIED_HEAD_BYTES = 2048

export type BodyRead =
  | { kind: 'ok'; bytes: Buffer }
  /** head: what arrived, at most UNVERIFIED_HEAD_BYTES; size: bytes seen (or declared, when refused unread). */
  | { kind: 'too_large' | 'timeout' | 'aborted'; head: Buffer; size: number }

export interface KeptBody {
  body: string
  bodyBytes: number
  bodySha256: string | null
  bodyTruncated: boolean
}

/** The whole body of a verified delivery; of any other, its first 2 KiB, with the whole body's hash and length. */
export function keptBody(verified: boolean, read: BodyRead): KeptBody {
  if (read.kind !== 'ok') {
    const head = utf8Head(read.head, UNVERIFIED_HEAD_BYTES)
    return { body: head, bodyBytes: read.size, bodySha256: null, bodyTruncated: Buffer.byteLength(head) < read.size }
  }
  const sha = createHash('sha256').update(read.bytes).digest('hex')
  const body = verified ? read.bytes.toString('utf8') : utf8Head(read.bytes, UNVERIFIED_HEAD_BYTES)
  return { body, bodyBytes: read.bytes.length, bodySha256: sha, bodyTruncated: Buffer.byteLength(body) < read.bytes.length }
}

/** A delivery that did not verify keeps only the head of its payload header: anyone can send 1.4 MB of it. */
export function keptPayload(verified: boolean, payloadHeader: string | null): string | null {
  if (verified || payloadHeader === null) return payloadHeader
  return payloadHeader.slice(0, UNVERIFIED_HEAD_BYTES)
}

/** At most `max` bytes of UTF-8, cut before a character rather than through it. */
function utf8Head(bytes: Buffer, max: number): string {
  if (bytes.length <= max) return bytes.toString('utf8')
  let end = max
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8')
}

/** Reads the body up to maxBytes; stops reading (and refuses) as soon as it is known to be larger. */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.pause()
      resolve({ kind: 'too_large', head: Buffer.alloc(0), size: declared })
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (r: BodyRead) => {
      if (done) return
      done = true
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('aborted', onAborted)
      req.off('error', onAborted)
      if (r.kind !== 'ok') req.pause()
      resolve(r)
    }
    const head = () => Buffer.concat(chunks).subarray(0, UNVERIFIED_HEAD_BYTES + 4)
    const onData = (c: Buffer) => {
      size += c.length
      if (size > maxBytes) return finish({ kind: 'too_large', head: head(), size })
      chunks.push(c)
    }
    const onEnd = () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) })
    const onAborted = () => finish({ kind: 'aborted', head: head(), size })
    const timer = setTimeout(() => finish({ kind: 'timeout', head: head(), size }), timeoutMs)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('aborted', onAborted)
    req.on('error', onAborted)
  })
}

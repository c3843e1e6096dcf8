// An HTTP request's body as text, for the servers that take a JSON body: the browser
// harness (src/web) and the team hub (src/hub), which share it rather than depend on
// each other.
import type { IncomingMessage } from 'node:http'

/**
 * The request body, refused (an error with status 413) past `max` bytes. A body that is too
 * large is still read to its end (and dropped) rather than cut off: destroying the request
 * mid-upload resets the connection, and the client would see ECONNRESET instead of the 413.
 */
export function readBody(req: IncomingMessage, max: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? NaN)
  if (Number.isFinite(declared) && declared > max) {
    // Node drains the unread body after the answer; nothing of it is buffered.
    return Promise.reject(Object.assign(new Error('request body too large'), { status: 413 }))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= max) chunks.push(c)
      else chunks.length = 0
    })
    req.on('end', () => {
      if (size > max) reject(Object.assign(new Error('request body too large'), { status: 413 }))
      else resolve(Buffer.concat(chunks).toString('utf8'))
    })
    req.on('error', reject)
  })
}

// The desktop's end of a sign-in through the system browser (RFC 8252): a listener on
// 127.0.0.1, on a port the system picks, that takes exactly one request, the browser coming
// back from the hub with the sign-in's state, and closes. It answers nothing else: another
// path, another method, another Host (a page of another site rebinding its name to
// 127.0.0.1), or a state that is not this sign-in's, and a request that carries an Origin
// header, are refused and do not end the wait. It gives up after `timeoutMs`, or when the person
// cancels the sign-in.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type LoopbackResult = { kind: 'code'; code: string } | { kind: 'error'; message: string } | { kind: 'cancelled' }

export interface LoopbackListener {
  /** The redirect URI to give the hub: http://127.0.0.1:PORT/oidc/done. */
  readonly redirectUri: string
  /** The browser's return, once. */
  readonly result: Promise<LoopbackResult>
  /** Stops waiting: the result is `cancelled` (unless the browser came back first) and the listener closes. */
  cancel(): void
  close(): void
}

const PATH = '/oidc/done'

const PAGE_HEADERS = {
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'",
  'Referrer-Policy': 'no-referrer',
  Connection: 'close'
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, PAGE_HEADERS)
  res.end(text)
}

export async function openLoopbackListener(o: { state: string; timeoutMs?: number }): Promise<LoopbackListener> {
  let settle!: (r: LoopbackResult) => void
  const result = new Promise<LoopbackResult>((resolve) => (settle = resolve))
  let done = false
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    const host = `127.0.0.1:${port}`
    if (done) return answer(res, 410, 'This sign-in is over. You can close this tab.')
    if (req.method !== 'GET' || req.headers.host !== host || req.headers.origin !== undefined) return answer(res, 403, 'Refused.')
    const url = new URL(req.url ?? '/', `http://${host}`)
    if (url.pathname !== PATH) return answer(res, 404, 'Not found.')
    if (url.searchParams.get('state') !== o.state) return answer(res, 400, 'This is not the sign-in Rampdesk started. Close this tab.')
    done = true
    const code = url.searchParams.get('code')
    const error = url.searchParams.get('error_description') ?? url.searchParams.get('error')
    if (code && !error) {
      answer(res, 200, 'Signed in. You can close this tab and go back to Rampdesk.')
      settle({ kind: 'code', code })
    } else {
      const message = error ?? 'The sign-in did not finish.'
      answer(res, 200, `${message}\n\nYou can close this tab.`)
      settle({ kind: 'error', message })
    }
    close()
  })
  server.maxConnections = 8
  server.headersTimeout = 5_000
  server.requestTimeout = 10_000
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => ok())
  })
  const port = (server.address() as AddressInfo).port
  const timer = setTimeout(
    () => {
      if (!done) settle({ kind: 'error', message: 'The sign-in took too long. Try again.' })
      close()
    },
    o.timeoutMs ?? 5 * 60_000
  )
  timer.unref()
  function close(): void {
    done = true
    clearTimeout(timer)
    server.close()
    server.closeIdleConnections()
  }
  function cancel(): void {
    if (!done) settle({ kind: 'cancelled' })
    close()
  }
  return { redirectUri: `http://127.0.0.1:${port}${PATH}`, result, cancel, close }
}

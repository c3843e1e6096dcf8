// What a desktop makes of a hub's answer to "how do you sign people in" (GET /auth/oidc):
// only a hub without the route takes tokens alone; a busy hub (429) or a proxy's error page
// cannot tell, and says so in words, so the sign-in card is not taken away on a bad minute.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { hubSignIn, SignInError } from '../../../../src/main/team/oidc-sign-in'

let server: Server | null = null
afterEach(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()))
  server = null
})

async function hubAnswering(status: number, body: unknown): Promise<string> {
  server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)))
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('hubSignIn', () => {
  it('gives the provider a hub names', async () => {
    const url = await hubAnswering(200, { ok: true, value: { provider: 'Test IdP', issuer: 'https://idp.example', sessionMinutes: 15 } })
    expect(await hubSignIn(url)).toEqual({ provider: 'Test IdP', issuer: 'https://idp.example', sessionMinutes: 15 })
  })

  it('is tokens only when the hub has no sign-in route', async () => {
    const url = await hubAnswering(404, { ok: false, error: { kind: 'not_found', message: 'no such route' } })
    expect(await hubSignIn(url)).toBeNull()
  })

  it('cannot tell when the hub is busy, and says so', async () => {
    const url = await hubAnswering(429, { ok: false, error: { kind: 'rate_limited', message: 'slow down' } })
    const e = await hubSignIn(url).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(SignInError)
    expect((e as Error).message).toBe(`The team hub at ${url} is busy just now. Try again in a minute.`)
  })

  it('cannot tell from a proxy error page', async () => {
    const url = await hubAnswering(502, '<html>Bad gateway</html>')
    await expect(hubSignIn(url)).rejects.toThrow(`The team hub at ${url} did not answer as a Rampdesk hub.`)
  })
})

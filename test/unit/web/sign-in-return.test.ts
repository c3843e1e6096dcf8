// The browser harness's end of a sign-in through a team hub's identity provider: the page comes
// back from the hub to 127.0.0.1:PORT/oidc/done (an address: the hub sends browsers to no
// name), which answers only that path, only a GET a browser follows (no Origin), and finishes
// only the sign-in whose state it is given; then the page goes on to the harness's own name.
import { request, type IncomingHttpHeaders } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWebHarness, type WebHarness } from '../../../src/web/server'
import { channelNames, type ContractHandlers } from '../../../src/shared/ipc/contract'

let harness: WebHarness
const finished: string[] = []

function send(method: string, path: string, host: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: harness.port, method, path, headers: { host, ...headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  const handlers = Object.fromEntries(channelNames.map((c) => [c, async () => ({ ok: true })])) as unknown as ContractHandlers
  harness = await startWebHarness({
    handlers,
    subscribe: () => () => undefined,
    staticDir: '/nonexistent',
    signIn: {
      async finish(q) {
        const state = q.get('state') ?? ''
        finished.push(state)
        if (state === 'good') return { kind: 'signed-in', profileId: 'team-a' }
        if (state === 'no-role') return { kind: 'refused', profileId: 'team-b' }
        return { kind: 'unknown' }
      }
    }
  })
})
afterAll(() => harness?.close())

describe('the harness taking a sign-in back from the hub', () => {
  it('offers the hub its loopback address, and sends the page on to its own name: the orders, or Settings with the refused profile', async () => {
    const loopback = `127.0.0.1:${harness.port}`
    expect(harness.signInRedirectUri).toBe(`http://${loopback}/oidc/done`)
    const own = new URL(harness.url).origin

    const ok = await send('GET', '/oidc/done?state=good&code=abc', loopback)
    expect(ok.status).toBe(303)
    expect(ok.headers.location).toBe(`${own}/oidc/back?to=orders`)
    const no = await send('GET', '/oidc/done?state=no-role&error=access_denied', loopback)
    expect(no.headers.location).toBe(`${own}/oidc/back?to=settings&profile=team-b`)

    const back = await send('GET', '/oidc/back?to=orders', new URL(harness.url).host)
    expect(back.status).toBe(200)
    expect(back.body).toContain('content="0;url=/?view=main#/orders"')
    const settings = await send('GET', '/oidc/back?to=settings&profile=team-b', new URL(harness.url).host)
    expect(settings.body).toContain('url=/?view=main&signin=team-b#/settings')
    // A profile id that is not one goes nowhere near the page.
    const odd = await send('GET', `/oidc/back?to=settings&profile=${encodeURIComponent('"><script>')}`, new URL(harness.url).host)
    expect(odd.body).toContain('url=/?view=main#/settings')
    expect(odd.body).not.toContain('<script>')
  })

  it('finishes nothing for a stranger: another state, a page of another site, another method, path or Host', async () => {
    const loopback = `127.0.0.1:${harness.port}`
    finished.length = 0
    const unknown = await send('GET', '/oidc/done?state=guess&code=abc', loopback)
    expect(unknown.status).toBe(400)
    expect(unknown.body).toContain('This sign-in was not started by this Rampdesk, or it is over.')
    expect((await send('GET', '/oidc/done?state=good&code=abc', loopback, { origin: 'https://evil.example' })).status).toBe(403)
    expect((await send('POST', '/oidc/done?state=good&code=abc', loopback)).status).toBe(403)
    // The address answers nothing else: the rest of the harness is for its own name and cookie.
    expect((await send('GET', '/', loopback)).status).toBe(403)
    expect((await send('POST', '/rpc/app:info', loopback)).status).toBe(403)
    // Under the harness's name, /oidc/done needs the session like any other path.
    expect((await send('GET', '/oidc/done?state=good&code=abc', new URL(harness.url).host)).status).toBe(401)
    expect(finished).toEqual(['guess'])
  })
})

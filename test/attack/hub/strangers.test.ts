// Attack: a stranger with no token against the hub process: memory held
// by stalled connections with huge headers, disk filled with log lines about refused
// requests, connections hogged from one address, malformed paths, slow TLS handshakes and
// weak TLS. Expected: RSS growth under 150 MB with 300 stalled 1 MB-header connections while
// /healthz answers within 2 s; under 256 KB of log for 20 requests with 1 MB paths; the
// team's address still served; 400 for a malformed path; TLS 1.2 only with forward secrecy;
// /metrics refused to 400 requests relayed by a proxy or from a page, with /readyz asked
// 400 times meanwhile, writing under 16 KB of log and adding no series beyond their statuses.
import { execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { mkdtempSync, rmSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { percentile, rawExchange, rawSocket, recordAttack, REPO_ROOT, sleep, startHubProcess, type HubProcess } from './hub-process'

let hub: HubProcess

beforeAll(async () => {
  hub = await startHubProcess()
})
afterAll(async () => {
  await hub?.stop()
})

/** GET /healthz from the team's own address (127.0.0.1): status and milliseconds. */
async function health(url = hub.url): Promise<{ status: number; ms: number }> {
  const t = performance.now()
  try {
    const r = await request(`${url}/healthz`, { headersTimeout: 5_000, bodyTimeout: 5_000 })
    await r.body.dump()
    return { status: r.statusCode, ms: performance.now() - t }
  } catch {
    return { status: 0, ms: performance.now() - t }
  }
}

describe('a stranger without a token', () => {
  it('cannot grow the hub by 150 MB with 300 stalled 1 MB-header connections, and /healthz answers within 2 s', async () => {
    await sleep(500)
    const baseline = hub.rss()
    let peak = baseline
    const polling = setInterval(() => {
      try {
        peak = Math.max(peak, hub.rss())
      } catch {
        // the process is gone: the assertions below say so
      }
    }, 50)
    const health: Array<{ status: number; ms: number }> = []
    let probing = true
    const probe = (async () => {
      while (probing) {
        health.push(await healthOnce())
        await sleep(100)
      }
    })()
    // 300 connections from ten addresses, half to /rpc (small header limit), half to /webhook
    // (large), from a process of the stranger's own.
    const attacker = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'stall-client.ts'), hub.url, '300', '10', '/rpc/app:info,/webhook'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit']
      }
    )
    const sent = await new Promise<string>((ok) => createInterface({ input: attacker.stdout }).once('line', ok))
    await sleep(1_500)
    probing = false
    await probe
    clearInterval(polling)
    attacker.kill('SIGKILL')
    const held = Number(sent.split(' ')[2])
    const growthMb = (peak - baseline) / 1024 / 1024
    const healthP95 = percentile(
      health.map((h) => h.ms),
      95
    )
    const slowest = Math.max(...health.map((h) => h.ms))
    recordAttack(
      '300 stalled connections with 1 MB of headers, from 10 addresses',
      {
        rssBaselineMb: Math.round(baseline / 1024 / 1024),
        rssPeakGrowthMb: Math.round(growthMb),
        connectionsOpened: held,
        healthProbes: health.length,
        healthP95Ms: Math.round(healthP95),
        healthSlowestMs: Math.round(slowest)
      },
      { rssPeakGrowthMb: '< 150', healthSlowestMs: '< 2000', healthStatus: 'all 200' }
    )
    expect(growthMb).toBeLessThan(150)
    expect(health.length).toBeGreaterThan(3)
    expect(health.every((h) => h.status === 200)).toBe(true)
    expect(slowest).toBeLessThan(2_000)
  })

  it('cannot fill the disk with log: 20 requests with 1 MB paths, 1,500 refused requests and 500 forged webhooks write under 256 KB', async () => {
    const before = hub.logBytes()
    const path = `/rpc/${'x'.repeat(1024 * 1024)}`
    const answers: string[] = await Promise.all(
      Array.from({ length: 20 }, () => rawExchange(hub.url, `POST ${path} HTTP/1.1\r\nHost: hub\r\n\r\n`, { from: '127.0.3.1', ms: 5_000 }))
    )
    // 1,500 with paths just under the request-line cap and a bad token, from one address:
    // logged one by one, they alone would write over 350 KB.
    const near = `/rpc/${'y'.repeat(8000)}`
    const refused: string[] = []
    for (let batch = 0; batch < 30; batch++)
      refused.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, () =>
            rawExchange(hub.url, `POST ${near} HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer nope\r\nContent-Length: 0\r\n\r\n`, {
              from: '127.0.3.2',
              ms: 5_000
            })
          )
        ))
      )
    // 500 forged webhooks (a wrong signature) from one address.
    const body = JSON.stringify({ orderId: 1, status: 5, note: 'z'.repeat(200) })
    const forged = `POST /webhook HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nx-service-payload: e30=\r\nx-service-signature: ${'ab'.repeat(64)}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
    const webhooks: string[] = []
    for (let batch = 0; batch < 10; batch++)
      webhooks.push(
        ...(await Promise.all(Array.from({ length: 50 }, () => rawExchange(hub.url, forged, { from: '127.0.3.3', ms: 5_000 }))))
      )
    await sleep(300)
    const grown = hub.logBytes() - before
    recordAttack(
      'requests with 1 MB paths, refused requests and forged webhooks from one address each',
      {
        requests: answers.length + refused.length + webhooks.length,
        logBytesWritten: grown,
        answered414: answers.filter((a) => a.startsWith('HTTP/1.1 414')).length,
        answered401: refused.filter((a) => a.startsWith('HTTP/1.1 401')).length,
        answered429: refused.filter((a) => a.startsWith('HTTP/1.1 429')).length,
        webhooksRefused: webhooks.filter((a) => /^HTTP\/1\.1 (401|429|503) /.test(a)).length
      },
      { logBytesWritten: '< 262144' }
    )
    expect(answers.every((a) => a.startsWith('HTTP/1.1 414 '))).toBe(true)
    // Past the first few failed tokens from one address the refusal is throttled (429, auth-throttle.ts).
    expect(refused.every((a) => /^HTTP\/1\.1 (401|429) /.test(a))).toBe(true)
    expect(webhooks.every((a) => /^HTTP\/1\.1 (401|429|503) /.test(a))).toBe(true)
    expect(grown).toBeLessThan(256 * 1024)
    // A refused request is logged with a clipped path, never its whole URL.
    expect(hub.output()).toMatch(/refused 401 POST \/rpc\/y{90,100}… \(8005 characters\): unknown or revoked token from 127\.0\.3\.2/)
  })

  it('cannot lock the team out by filling every connection slot from a few addresses', async () => {
    // 8 addresses × 64 connections: the pool of 512 is full of the stranger's connections.
    const sockets: Socket[] = []
    for (let a = 1; a <= 8; a++)
      for (let i = 0; i < 64; i++) {
        const s = await rawSocket(hub.url, `127.0.7.${a}`).catch(() => null)
        if (!s) continue
        s.on('error', () => undefined)
        s.write('GET /healthz HTTP/1.1\r\nHost: hub\r\n')
        sockets.push(s)
      }
    await sleep(300)
    const probes: Array<{ status: number; ms: number }> = []
    for (let i = 0; i < 10; i++) probes.push(await healthOnce())
    // And /webhook connections from 10 addresses × 16: a delivery from another address still gets in.
    const hooks: Socket[] = []
    for (let a = 1; a <= 10; a++)
      for (let i = 0; i < 16; i++) {
        const s = await rawSocket(hub.url, `127.0.8.${a}`).catch(() => null)
        if (!s) continue
        s.on('error', () => undefined)
        s.write('POST /webhook HTTP/1.1\r\nHost: hub\r\n')
        hooks.push(s)
      }
    await sleep(300)
    const delivery = await rawExchange(
      hub.url,
      `POST /webhook HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      { from: '127.0.0.1', ms: 5_000 }
    )
    for (const s of [...sockets, ...hooks]) s.destroy()
    recordAttack(
      'every connection slot taken from 8 addresses, every webhook slot from 10',
      {
        strangerConnections: sockets.length + hooks.length,
        teamProbesAnswered: probes.filter((p) => p.status === 200).length,
        teamProbes: probes.length
      },
      { teamProbesAnswered: '= all' }
    )
    expect(probes.every((p) => p.status === 200)).toBe(true)
    // Answered by the inbox itself (unsigned: 401), not refused at the door (503).
    expect(delivery).toMatch(/^HTTP\/1\.1 401 /)
  })

  it('cannot read /metrics through a proxy, nor grow the hub’s log or its series through /metrics and /readyz', async () => {
    // No metrics token: this machine only. A stranger's request relayed by a local proxy
    // comes from loopback too, with the proxy's X-Forwarded-For.
    const scrape = async () => {
      const r = await request(`${hub.url}/metrics`)
      return { status: r.statusCode, text: await r.body.text() }
    }
    const series = (text: string) => text.split('\n').filter((l) => l.startsWith('rampdesk_hub_')).length
    await rawExchange(hub.url, 'GET /readyz HTTP/1.1\r\nHost: hub\r\n\r\n', { from: '127.0.6.1' })
    const first = await rawExchange(hub.url, 'GET /metrics HTTP/1.1\r\nHost: hub\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n', {
      from: '127.0.6.1'
    })
    const before = { log: hub.logBytes(), series: series((await scrape()).text), rss: hub.rss() }
    const answers: string[] = []
    for (let i = 0; i < 400; i++) {
      const from = `127.0.6.${(i % 10) + 1}`
      const bad = [
        `X-Forwarded-For: 203.0.113.${i % 250}`,
        `Forwarded: for=198.51.100.${i % 250}`,
        'X-Real-IP: 192.0.2.1',
        'Origin: https://evil.example'
      ][i % 4]!
      const [a, b] = await Promise.all([
        rawExchange(hub.url, `GET /metrics?n=${i} HTTP/1.1\r\nHost: hub\r\n${bad}\r\n\r\n`, { from, ms: 3_000 }),
        rawExchange(hub.url, `GET /readyz?n=${i} HTTP/1.1\r\nHost: hub\r\nX-Probe: ${i}\r\n\r\n`, { from, ms: 3_000 })
      ])
      answers.push(a, b)
    }
    await sleep(300)
    const after = await scrape()
    const grown = hub.logBytes() - before.log
    recordAttack(
      '/metrics through a proxy and /readyz, 400 each from 10 addresses',
      {
        requests: 800,
        metricsRefused403: answers.filter((a, i) => i % 2 === 0 && a.startsWith('HTTP/1.1 403 ')).length,
        readyAnswered: answers.filter((a, i) => i % 2 === 1 && /^HTTP\/1\.1 (200|503) /.test(a)).length,
        logBytesWritten: grown,
        seriesAdded: series(after.text) - before.series,
        rssGrowthKiB: Math.round((hub.rss() - before.rss) / 1024)
      },
      { logBytesWritten: '< 16384', seriesAdded: '<= 2' }
    )
    expect(first).toMatch(/^HTTP\/1\.1 403 /)
    expect(answers.filter((a, i) => i % 2 === 0).every((a) => a.startsWith('HTTP/1.1 403 '))).toBe(true)
    expect(answers.filter((a, i) => i % 2 === 1).every((a) => /^HTTP\/1\.1 (200|503) /.test(a))).toBe(true)
    expect(after.status).toBe(200)
    // The refusals are counted, by kind, and summarised in the log: one line per source and minute.
    const refusals = (kind: string) =>
      Number(new RegExp(`^rampdesk_hub_refusals_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(after.text)?.[1])
    expect(refusals('metrics')).toBeGreaterThanOrEqual(301)
    expect(refusals('origin')).toBeGreaterThanOrEqual(100)
    expect(grown).toBeLessThan(16 * 1024)
    // The new series, if any, are the requests' own statuses (route and status from closed sets).
    expect(series(after.text) - before.series).toBeLessThanOrEqual(2)
  })

  it('holds no more than 64 connections from one address, and the team’s address is still served', async () => {
    const sockets: Socket[] = []
    const refusals: string[] = []
    for (let i = 0; i < 80; i++) {
      const s = await rawSocket(hub.url, '127.0.4.1')
      s.on('data', (c: Buffer) => refusals.push(c.toString('latin1')))
      s.on('error', () => undefined)
      sockets.push(s)
    }
    await sleep(500)
    const h = await healthOnce()
    for (const s of sockets) s.destroy()
    expect(refusals.filter((r) => r.startsWith('HTTP/1.1 503 ')).length).toBe(16)
    expect(h.status).toBe(200)
  })

  it('drops a request whose headers do not arrive within a few seconds', async () => {
    const t = performance.now()
    const answer = await rawExchange(hub.url, 'GET /healthz HTTP/1.1\r\nHost: hub\r\n', { from: '127.0.5.1', ms: 15_000 })
    const ms = performance.now() - t
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    expect(ms).toBeLessThan(8_000)
  })

  it('answers a malformed path 400, never 500', async () => {
    for (const path of ['/rpc/%', '/rpc/%E0%A4%A', '/rpc/%ZZ', 'http://a:99999/', '*']) {
      const a = await rawExchange(hub.url, `POST ${path} HTTP/1.1\r\nHost: hub\r\nContent-Length: 0\r\n\r\n`, { from: '127.0.5.2' })
      expect(a, path).toMatch(/^HTTP\/1\.1 400 /)
    }
  })
})

async function healthOnce(): Promise<{ status: number; ms: number }> {
  return health()
}

describe('over TLS', () => {
  let tlsHub: HubProcess
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-tls-'))
    const key = join(dir, 'key.pem')
    const cert = join(dir, 'cert.pem')
    // RSA, so that suites without forward secrecy (RSA key exchange) would be possible at all.
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
      {
        stdio: 'pipe'
      }
    )
    tlsHub = await startHubProcess({ args: ['--tls-cert', cert, '--tls-key', key] })
  })
  afterAll(async () => {
    await tlsHub?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const handshake = (o: {
    minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'
    maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'
    ciphers?: string
  }) =>
    new Promise<{ ok: boolean; protocol: string | null; cipher: string | null }>((resolve) => {
      const u = new URL(tlsHub.url)
      const s = tlsConnect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, ...o }, () => {
        resolve({ ok: true, protocol: s.getProtocol(), cipher: s.getCipher().standardName })
        s.destroy()
      })
      s.on('error', () => resolve({ ok: false, protocol: null, cipher: null }))
    })

  it('prefers TLS 1.3, allows TLS 1.2 only with forward-secret suites, refuses older versions', async () => {
    const best = await handshake({})
    expect(best).toMatchObject({ ok: true, protocol: 'TLSv1.3' })
    expect(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).toMatchObject({
      ok: true,
      protocol: 'TLSv1.2'
    })
    const noFs = ['AES128-GCM-SHA256', 'AES256-SHA256', 'AES128-SHA']
    for (const ciphers of noFs) expect((await handshake({ maxVersion: 'TLSv1.2', ciphers })).ok, ciphers).toBe(false)
    expect((await handshake({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })).ok).toBe(false)
    recordAttack('TLS', { negotiated: `${best.protocol} ${best.cipher}`, nonForwardSecretAccepted: 0 }, { nonForwardSecretAccepted: '= 0' })
  })

  it('drops a connection that never finishes its handshake within a few seconds', async () => {
    const t = performance.now()
    const s = await rawSocket(tlsHub.url, '127.0.6.1')
    await new Promise<void>((r) => {
      s.on('close', () => r())
      s.on('error', () => undefined)
    })
    expect(performance.now() - t).toBeLessThan(8_000)
  })
})

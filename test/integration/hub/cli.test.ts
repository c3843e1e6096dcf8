// npm run hub (tsx src/hub/cli.ts) as an administrator uses it: operators added, listed
// and revoked in the data directory (the token the last line of `add`), `serve` on a
// live merchant with the secret from the environment or a file (never a flag, never
// printed) answering its listening line first, over TLS too, and stopping cleanly.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Agent, request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { HubConnection } from '../../../src/main/team/hub-connection'
import { hubCliArgs } from '../../support/hub-cli'

const running = new Set<ChildProcessWithoutNullStreams>()
let sandbox: Sandbox
let dir: string

beforeAll(async () => {
  sandbox = await startSandbox({ orders: 20, autoGenerate: false, apiSecret: 'cli-test-secret-7f3e91d2c4b5a6' })
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-cli-'))
})
afterAll(async () => {
  await sandbox?.close()
  rmSync(dir, { recursive: true, force: true })
})
afterEach(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL')
  running.clear()
})

function run(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, hubCliArgs(args), {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: 'pipe'
    }).toString('utf8')
    return { code: 0, stdout, stderr: '' }
  } catch (e) {
    const x = e as { status: number; stdout: Buffer; stderr: Buffer }
    return { code: x.status, stdout: x.stdout.toString('utf8'), stderr: x.stderr.toString('utf8') }
  }
}

interface Served {
  child: ChildProcessWithoutNullStreams
  first: string
  output: () => string
}

/** Starts `serve`; with `signalAtListening`, sends it that signal the moment its first line is read. */
async function serve(args: string[], env: Record<string, string> = {}, signalAtListening?: NodeJS.Signals): Promise<Served> {
  const child = spawn(process.execPath, hubCliArgs(['serve', ...args]), {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: 'pipe'
  })
  running.add(child)
  let all = ''
  child.stderr.on('data', (c: Buffer) => (all += c.toString('utf8')))
  const rl = createInterface({ input: child.stdout })
  const first = await new Promise<string>((resolve, reject) => {
    let got = false
    rl.on('line', (l) => {
      all += l + '\n'
      if (!got) {
        got = true
        if (signalAtListening) child.kill(signalAtListening)
        resolve(l)
      }
    })
    child.once('exit', (code) => reject(new Error(`hub exited with ${code}: ${all}`)))
  })
  return { child, first, output: () => all }
}

/** Its exit code (null when a signal killed it), also when it has already exited. */
const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)))

const live = () => ['--base-url', sandbox.url, '--service-name', sandbox.serviceName, '--api-key', sandbox.apiKey]

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('npm run hub', () => {
  it('is wired to the CLI', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.hub).toBe('tsx src/hub/cli.ts')
  })

  it('adds an operator with its token as the last line, lists and revokes it', () => {
    const data = join(dir, 'ops')
    const add = run(['operator', 'add', 'ana', '--role', 'operator', '--data-dir', data])
    expect(add.code).toBe(0)
    const lines = add.stdout.trim().split('\n')
    expect(lines.at(-1)).toMatch(/^rdh_[A-Za-z0-9_-]{43}$/)
    expect(run(['operator', 'list', '--data-dir', data]).stdout).toMatch(
      /^ana\toperator\tadded .*\tlast seen never\texpires [^\t]+\tperson$/m
    )
    expect(run(['operator', 'add', 'bo', '--role', 'owner', '--data-dir', data])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/role must be one of/)
    })
    expect(run(['operator', 'revoke', 'ana', '--data-dir', data])).toMatchObject({ code: 0 })
    expect(run(['operator', 'list', '--data-dir', data]).stdout.trim()).toBe('no operators')
  })

  it('gives tokens an end, rotates one (the new token the last line), adds a service account, and refuses --expires-in never', () => {
    const data = join(dir, 'expiry')
    const add = run(['operator', 'add', 'bot', '--role', 'operator', '--service', '--expires-in', '12w', '--data-dir', data])
    expect(add.code).toBe(0)
    expect(add.stdout).toMatch(/^added service account bot \(operator\), token expires \d+ \w{3} \d{4} \d\d:\d\d UTC$/m)
    const listed = run(['operator', 'list', '--data-dir', data]).stdout
    const expires = new Date(/\texpires (\S+)\tservice account$/m.exec(listed)![1]!).getTime()
    expect(Math.abs(expires - (Date.now() + 84 * 86_400_000))).toBeLessThan(60_000)
    const old = add.stdout.trim().split('\n').at(-1)!
    const rotated = run(['operator', 'rotate', 'bot', '--data-dir', data])
    expect(rotated).toMatchObject({ code: 0, stdout: expect.stringMatching(/^rotated bot: the old token is refused from now on/) })
    const token = rotated.stdout.trim().split('\n').at(-1)!
    expect(token).toMatch(/^rdh_[A-Za-z0-9_-]{43}$/)
    expect(token).not.toBe(old)
    expect(run(['operator', 'rotate', 'nobody', '--data-dir', data])).toMatchObject({ code: 2, stderr: expect.stringMatching(/to rotate/) })
    expect(run(['operator', 'add', 'eve', '--role', 'viewer', '--expires-in', 'never', '--data-dir', data])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/every hub token ends/)
    })
  })

  it('enrols a second factor: a QR code, the otpauth URI, the secret and ten recovery codes, never for a service account', () => {
    const data = join(dir, 'totp')
    expect(run(['operator', 'add', 'ada', '--role', 'admin', '--data-dir', data]).code).toBe(0)
    const enrol = run(['operator', 'totp', 'enrol', 'ada', '--data-dir', data])
    expect(enrol.code).toBe(0)
    expect(enrol.stdout).toMatch(/^enrolled a second factor for ada/)
    expect(enrol.stdout).toMatch(/[▀▄█]/)
    expect(enrol.stdout).toMatch(/^or add it by hand: otpauth:\/\/totp\/Rampdesk%20hub:ada%40rampdesk-hub\?.*secret=[A-Z2-7]+/m)
    expect(enrol.stdout.match(/^ {2}[0-9a-f]{5}-[0-9a-f]{5}$/gm)).toHaveLength(10)
    expect(run(['operator', 'add', 'bot', '--role', 'admin', '--service', '--data-dir', data]).code).toBe(0)
    expect(run(['operator', 'totp', 'enrol', 'bot', '--data-dir', data])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/bot is a service account/)
    })
  })

  it('refuses the secret as a flag, and a live merchant without one', () => {
    const flag = run(['serve', ...live(), '--api-secret', sandbox.apiSecret, '--data-dir', join(dir, 'x')])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toMatch(/never a flag/)
    expect(flag.stderr).not.toContain(sandbox.apiSecret)
    const none = run(['serve', ...live(), '--port', '0', '--data-dir', join(dir, 'x')], { RAMPDESK_API_SECRET: '' })
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/RAMPDESK_API_SECRET/)
  })

  it('serves a live merchant with the secret from the environment, never printing it, and stops on SIGTERM', async () => {
    const data = join(dir, 'live')
    const token = run(['operator', 'add', 'ada', '--role', 'admin', '--data-dir', data]).stdout.trim().split('\n').at(-1)!
    const hub = await serve([...live(), '--port', '0', '--data-dir', data], { RAMPDESK_API_SECRET: sandbox.apiSecret })
    expect(hub.first).toMatch(/^hub listening on http:\/\/127\.0\.0\.1:\d+$/)
    const url = hub.first.slice('hub listening on '.length)
    const r = await request(`${url}/rpc/quotes:get`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 1, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '5000' })
    })
    const body = await r.body.text()
    expect(r.statusCode).toBe(200)
    expect(JSON.parse(body)).toMatchObject({ ok: true })
    expect((await request(`${url}/healthz`)).statusCode).toBe(200)
    const code = exited(hub.child)
    hub.child.kill('SIGTERM')
    expect(await code).toBe(0)
    expect(hub.output()).toMatch(/INFO ada \(admin\) quotes:get: ok/)
    expect(hub.output()).not.toContain(sandbox.apiSecret)
    expect(body).not.toContain(sandbox.apiSecret)
  })

  it('serves from RAMPDESK_HUB_* variables alone, logs JSON lines, and keeps /metrics for the token of its file', async () => {
    const data = join(dir, 'env')
    const token = run(['operator', 'add', 'eve', '--role', 'viewer', '--data-dir', data]).stdout.trim().split('\n').at(-1)!
    const files = { secret: join(dir, 'env-secret'), key: join(dir, 'env-key'), metrics: join(dir, 'env-metrics') }
    writeFileSync(files.secret, `${sandbox.apiSecret}\n`, { mode: 0o600 })
    writeFileSync(files.key, `${sandbox.apiKey}\n`, { mode: 0o600 })
    const metricsToken = 'm'.repeat(12) + '-env-metrics-token'
    writeFileSync(files.metrics, `${metricsToken}\n`, { mode: 0o600 })
    const env = {
      RAMPDESK_API_SECRET: '',
      RAMPDESK_HUB_BASE_URL: sandbox.url,
      RAMPDESK_HUB_SERVICE_NAME: sandbox.serviceName,
      RAMPDESK_HUB_API_KEY_FILE: files.key,
      RAMPDESK_HUB_API_SECRET_FILE: files.secret,
      RAMPDESK_HUB_DATA_DIR: data,
      RAMPDESK_HUB_PORT: '0',
      RAMPDESK_HUB_LOG_FORMAT: 'json',
      RAMPDESK_HUB_METRICS_TOKEN_FILE: files.metrics
    }
    const hub = await serve([], env)
    const first = JSON.parse(hub.first) as { time: string; level: string; msg: string; url: string }
    expect(first).toMatchObject({ level: 'info', msg: expect.stringMatching(/^hub listening on http:\/\/127\.0\.0\.1:\d+$/) })
    expect(Date.parse(first.time)).toBeGreaterThan(0)
    const url = first.url
    const call = await request(`${url}/rpc/team:access`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}'
    })
    expect(await call.body.json()).toMatchObject({ ok: true, value: { team: { operator: 'eve' } } })
    const refused = await request(`${url}/metrics`)
    await refused.body.dump()
    expect(refused.statusCode).toBe(401)
    const scraped = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
    expect(scraped.statusCode).toBe(200)
    expect(await scraped.body.text()).toMatch(/^rampdesk_hub_requests_total\{route="rpc",channel="team:access",status="200"\} 1$/m)
    hub.child.kill('SIGTERM')
    expect(await exited(hub.child)).toBe(0)
    const lines = hub.output().trim().split('\n')
    // Every line is one JSON object with time, level and msg; the operator's call has its fields.
    for (const l of lines)
      expect(JSON.parse(l)).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) })
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^refused 401 GET \/metrics/), source: '127.0.0.1', status: 401 })
    )
    expect(hub.output()).not.toContain(sandbox.apiSecret)

    // A flag wins over its variable: text again, and the first line as it always was. A
    // SIGTERM sent the moment that line is read stops it gracefully (exit 0), as later.
    const text = await serve(['--log-format', 'text'], env, 'SIGTERM')
    expect(text.first).toMatch(/^hub listening on http:\/\/127\.0\.0\.1:\d+$/)
    expect(await exited(text.child)).toBe(0)
    // A bad value names the variable it came from.
    expect(run(['serve'], { ...env, RAMPDESK_HUB_RATE_LIMIT: 'lots' })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/RAMPDESK_HUB_RATE_LIMIT must be an integer/)
    })
  }, 120_000)

  it('counts a request under the client X-Forwarded-For names only from a --trusted-proxy, and refuses a bad CIDR naming where it came from', async () => {
    const data = join(dir, 'proxied')
    const secret = join(dir, 'proxied-secret')
    writeFileSync(secret, `${sandbox.apiSecret}\n`, { mode: 0o600 })
    const args = [...live(), '--api-secret-file', secret, '--port', '0', '--data-dir', data]
    const hub = await serve(args, { RAMPDESK_API_SECRET: '', RAMPDESK_HUB_TRUSTED_PROXY: '127.0.0.1/32, 2001:db8::/32' })
    const url = hub.first.slice('hub listening on '.length)
    const from = (localAddress: string, xff: string) =>
      request(`${url}/rpc/app:info`, {
        method: 'POST',
        dispatcher: new Agent({ localAddress }),
        headers: { authorization: 'Bearer rdh_wrong', 'content-type': 'application/json', 'x-forwarded-for': xff },
        body: '{}'
      }).then((r) => r.body.dump().then(() => r.statusCode))
    // From the trusted proxy: the client it names. From anyone else: the peer, whatever it writes.
    expect(await from('127.0.0.1', '198.51.100.23, 203.0.113.9')).toBe(401)
    expect(await from('127.0.0.2', '198.51.100.77')).toBe(401)
    await until(() => /from 127\.0\.0\.2$/m.test(hub.output()))
    hub.child.kill('SIGTERM')
    expect(await exited(hub.child)).toBe(0)
    expect(hub.output()).toMatch(/INFO trusting X-Forwarded-For from the reverse proxies at 127\.0\.0\.1\/32, 2001:db8::\/32/)
    expect(hub.output()).toMatch(/WARN refused 401 POST \/rpc\/app:info: unknown or revoked token from 203\.0\.113\.9$/m)
    expect(hub.output()).toMatch(/WARN refused 401 POST \/rpc\/app:info: unknown or revoked token from 127\.0\.0\.2$/m)
    expect(hub.output()).not.toMatch(/198\.51\.100\.(23|77)/)

    expect(run(['serve', ...args, '--trusted-proxy', '10.0.0.0/33'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--trusted-proxy: "10\.0\.0\.0\/33": the prefix length must be 0-32/)
    })
    expect(run(['serve', ...args], { RAMPDESK_HUB_TRUSTED_PROXY: 'proxy.example' })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/RAMPDESK_HUB_TRUSTED_PROXY: "proxy\.example" is not an address or a CIDR/)
    })
  }, 60_000)

  it('serves https with --tls-cert and --tls-key, the secret read from a file', async () => {
    const cert = join(dir, 'cert.pem')
    const key = join(dir, 'key.pem')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1'
      ],
      { stdio: 'pipe' }
    )
    const secretFile = join(dir, 'secret')
    writeFileSync(secretFile, `${sandbox.apiSecret}\n`, { mode: 0o600 })
    const data = join(dir, 'tls')
    const token = run(['operator', 'add', 'vera', '--role', 'viewer', '--data-dir', data]).stdout.trim().split('\n').at(-1)!
    const hub = await serve(
      [...live(), '--port', '0', '--data-dir', data, '--api-secret-file', secretFile, '--tls-cert', cert, '--tls-key', key],
      {
        RAMPDESK_API_SECRET: ''
      }
    )
    expect(hub.first).toMatch(/^hub listening on https:\/\/127\.0\.0\.1:\d+$/)
    const url = hub.first.slice('hub listening on '.length)
    // A desktop that trusts the hub's certificate connects; one that does not is refused.
    const ca = readFileSync(cert, 'utf8')
    const desk = new HubConnection({ hubUrl: url, token: async () => token, ca, onEvent: () => undefined })
    const access = await desk.call('team:access', {})
    expect(access).toMatchObject({ ok: true, value: { team: { operator: 'vera', role: 'viewer' } } })
    await desk.close()
    const stranger = new HubConnection({ hubUrl: url, token: async () => token, onEvent: () => undefined, dispatcher: new Agent() })
    expect(await stranger.call('team:access', {})).toMatchObject({ ok: false, error: { kind: 'hub_unreachable' } })
    await stranger.close()
    hub.child.kill('SIGINT')
    expect(await exited(hub.child)).toBe(0)
    expect(hub.output()).not.toContain(sandbox.apiSecret)
  })
})

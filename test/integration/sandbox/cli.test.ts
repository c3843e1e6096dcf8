// The standalone sandbox (npm run sandbox -> tsx src/sandbox/cli.ts): the exact first
// line, the credentials it prints, flags (seed, service name, keys, faults), and a
// clean stop on SIGTERM and SIGINT.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { headerNames } from '../../../src/sandbox/routes'
import { hmacHex, payloadOf } from './sandbox-client'

const running = new Set<ChildProcessWithoutNullStreams>()

afterEach(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL')
  running.clear()
})

/** The control API's token from the printed lines. */
const tokenOf = (lines: string[]): string =>
  /^control token: (\S+)/.exec(lines.find((l) => l.startsWith('control token: ')) ?? '')?.[1] ?? ''
const control = (lines: string[]) => ({ headers: { 'x-sandbox-token': tokenOf(lines) } })

async function start(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', ...args], { cwd: process.cwd(), stdio: 'pipe' })
  running.add(child)
  const lines: string[] = []
  const rl = createInterface({ input: child.stdout })
  await new Promise<void>((resolve, reject) => {
    rl.on('line', (l) => {
      lines.push(l)
      if (l.startsWith('control token: ')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  return { child, lines }
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) => child.once('exit', (code) => resolve(code)))

/** Runs the CLI to its end; its exit code and what it wrote to stderr. */
async function fails(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', '--port', '0', '--orders', '0', ...args], {
    cwd: process.cwd(),
    stdio: 'pipe'
  })
  running.add(child)
  let stderr = ''
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const code = await exited(child)
  return { code, stderr }
}

describe('npm run sandbox', () => {
  it('is wired to the CLI', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.sandbox).toBe('tsx src/sandbox/cli.ts')
  })

  it('prints the listening line, then the key and secret, serves signed requests and stops on SIGTERM', async () => {
    const { child, lines } = await start([
      '--port',
      '0',
      '--orders',
      '30',
      '--seed',
      '4',
      '--api-key',
      'k-cli',
      '--api-secret',
      's-cli',
      '--service-name',
      'acme',
      '--no-generate'
    ])
    expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/)
    expect(lines[1]).toBe('api key: k-cli')
    expect(lines[2]).toBe('api secret: s-cli')
    expect(lines[3]).toBe('service name: acme')
    expect(lines[4]).toMatch(
      /^control token: [\w-]{32} {2}\(control API: http:\/\/127\.0\.0\.1:\d+\/__sandbox\/info with the header X-Sandbox-Token\)$/
    )
    const url = (lines[0] as string).slice('listening on '.length)
    const names = headerNames('acme')
    const body = { type: 1 }
    const payload = payloadOf(Date.now(), body)
    const res = await request(`${url}/acme/api/v2/common/transaction/limits`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [names.apiKey]: 'k-cli',
        [names.payload]: payload,
        [names.signature]: hmacHex(payload, 's-cli')
      },
      body: JSON.stringify(body)
    })
    expect(res.statusCode).toBe(200)
    expect(await res.body.json()).toMatchObject({ status: 1, data: { onramp: { 1: { min: 100, max: 200000 } } } })
    const info = await request(`${url}/__sandbox/info`, control(lines))
    expect(await info.body.json()).toMatchObject({ orders: 30, serviceName: 'acme' })
    // Without the token printed at start, the control API does not answer.
    const refused = await request(`${url}/__sandbox/info`)
    expect(refused.statusCode).toBe(401)
    await refused.body.dump()
    const done = exited(child)
    child.kill('SIGTERM')
    expect(await done).toBe(0)
  })

  it('takes fault flags and stops on SIGINT', async () => {
    const { child, lines } = await start([
      '--port',
      '0',
      '--orders',
      '0',
      '--control-token',
      'a-fixed-control-token-for-scripts',
      '--fault-endpoint',
      'bankDetails',
      '--error-rate',
      '1',
      '--error-status',
      '503'
    ])
    const url = (lines[0] as string).slice('listening on '.length)
    expect(lines[1]).toBe('api key: rampdesk-sandbox-key')
    expect(tokenOf(lines)).toBe('a-fixed-control-token-for-scripts')
    const faults = await request(`${url}/__sandbox/faults`, control(lines))
    expect(await faults.body.json()).toMatchObject({ faults: { bankDetails: { errorRate: 1, errorStatus: 503 } } })
    const r = await request(`${url}/service/api/v1/transaction/bankDetails`)
    expect(r.statusCode).toBe(503)
    expect(await r.body.json()).toMatchObject({ status: 0, code: 503 })
    const other = await request(`${url}/service/api/v1/public/allGasFee`)
    expect(other.statusCode).toBe(200)
    await other.body.dump()
    const done = exited(child)
    child.kill('SIGINT')
    expect(await done).toBe(0)
  })

  it('takes the reading flags', async () => {
    const { child, lines } = await start([
      '--port',
      '0',
      '--orders',
      '20',
      '--no-generate',
      '--since',
      'exclusive',
      '--tie-order',
      'hidden',
      '--param-types',
      'lenient,merchantHistory.fiatType=strict',
      '--type-error-text',
      'bare',
      '--unknown-limit',
      'merchantHistory=10',
      '--unknown-limit',
      'quotes=3',
      '--limiter',
      'fixed',
      '--ticker-shape',
      'buySell',
      '--limits-shape',
      'flat',
      '--coin-limits-shape',
      'B',
      '--no-date-header',
      '--no-current-timestamp',
      '--churn',
      '2',
      '--webhook-payload',
      'slashEscaped',
      // A negative value goes after "=" (node's parseArgs reads "-45000" as a flag).
      '--clock-offset=-45000'
    ])
    const url = (lines[0] as string).slice('listening on '.length)
    const res = await request(`${url}/__sandbox/readings`, control(lines))
    expect(res.headers).not.toHaveProperty('date')
    const r = (await res.body.json()) as Record<string, unknown> & { paramTypes: Record<string, string> }
    expect(r).toMatchObject({
      since: 'exclusive',
      tieOrder: 'hidden',
      typeErrorText: 'bare',
      unknownLimits: { merchantHistory: 10, quotes: 3 },
      limiter: 'fixed',
      tickerShape: 'buySell',
      limitsShape: 'flat',
      coinLimitsShape: 'B',
      dateHeader: false,
      currentTimestamp: false,
      churnPerHistoryRequest: 2,
      webhookPayloadForm: 'slashEscaped'
    })
    expect(r.paramTypes['merchantHistory.fiatType']).toBe('strict')
    expect(r.paramTypes['merchantHistory.page']).toBe('lenient')
    const info = (await (await request(`${url}/__sandbox/info`, control(lines))).body.json()) as { clockOffsetMs: number }
    expect(info.clockOffsetMs).toBe(-45000)
    const ts = await request(`${url}/service/api/v2/common/public/currentTimestamp`)
    expect(ts.statusCode).toBe(404)
    await ts.body.dump()
    const done = exited(child)
    child.kill('SIGTERM')
    expect(await done).toBe(0)
  })

  it('--help lists the reading flags', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', '--help'], { cwd: process.cwd(), stdio: 'pipe' })
    running.add(child)
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')))
    expect(await exited(child)).toBe(0)
    for (const flag of [
      '--since',
      '--tie-order',
      '--param-types',
      '--type-error-text',
      '--unknown-limit',
      '--limiter',
      '--ticker-shape',
      '--limits-shape',
      '--coin-limits-shape',
      '--no-date-header',
      '--no-current-timestamp',
      '--churn',
      '--webhook-payload',
      '--clock-offset'
    ])
      expect(out).toContain(flag)
  })

  // Fourteen CLI starts: the longer bound only turns a hang into a failure on a busy machine.
  it('refuses unknown flags and invalid values with the reason and exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--since', 'later'], /--since: since must be one of inclusive, exclusive, not "later"/],
      [['--tie-order', 'random'], /--tie-order: tieOrder must be one of orderId, hidden/],
      [['--param-types', 'loose'], /--param-types: "loose" is not strict, lenient or field=strict\|lenient/],
      [['--param-types', 'merchantHistory.currency=strict'], /--param-types: unknown field merchantHistory.currency/],
      [['--unknown-limit', 'limits=5'], /--unknown-limit: unknownLimits: limits has the documented limit of 10/],
      [['--unknown-limit', 'merchantHistory'], /--unknown-limit: "merchantHistory" is not NAME=N/],
      [['--churn', 'lots'], /--churn needs a number/],
      [['--churn=-1'], /--churn: churnPerHistoryRequest must be a whole number/],
      [['--webhook-payload', 'xml'], /--webhook-payload: webhookPayloadForm must be one of compact, spaced, slashEscaped, bodyOnly/],
      [['--coin-limits-shape', 'C'], /--coin-limits-shape: coinLimitsShape must be one of perFiat, A, B/],
      [['--fault-endpoint', 'nothing', '--storm'], /--fault-endpoint: unknown endpoint nothing/],
      [['--shuffle'], /Unknown option '--shuffle'/],
      [['--control-token', 'short'], /--control-token must be 16-256 printable ASCII characters/]
    ]
    for (const [args, reason] of cases) {
      const r = await fails(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(reason)
    }
  }, 120_000)
})

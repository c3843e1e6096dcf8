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

async function start(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts', ...args], { cwd: process.cwd(), stdio: 'pipe' })
  running.add(child)
  const lines: string[] = []
  const rl = createInterface({ input: child.stdout })
  await new Promise<void>((resolve, reject) => {
    rl.on('line', (l) => {
      lines.push(l)
      if (lines.length === 3) resolve()
    })
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  return { child, lines }
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) => child.once('exit', (code) => resolve(code)))

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
    const info = await request(`${url}/__sandbox/info`)
    expect(await info.body.json()).toMatchObject({ orders: 30, serviceName: 'acme' })
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
      '--fault-endpoint',
      'bankDetails',
      '--error-rate',
      '1',
      '--error-status',
      '503'
    ])
    const url = (lines[0] as string).slice('listening on '.length)
    expect(lines[1]).toBe('api key: rampdesk-sandbox-key')
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
})

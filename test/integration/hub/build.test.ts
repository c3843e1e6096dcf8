// npm run build:hub, deployed as docs/hub.md says: dist/hub copied into a directory of its
// own beside a node_modules holding the production dependencies only (exactly the packages
// `npm ci --omit=dev` installs: package-lock.json's entries not marked dev, copied from this
// checkout), with no tsx, no devDependency and no Electron anywhere Node could find them.
// There `node dist/hub/cli.js` adds an operator, serves the sandbox, prints its listening
// line, answers /healthz and /readyz, and answers the operator's call.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../../attack/hub/hub-process'
import { postgresUnavailable, startPostgres } from '../../support/postgres-cluster'

const deploy = mkdtempSync(join(tmpdir(), 'rampdesk-hub-build-'))
let child: ChildProcessWithoutNullStreams | null = null
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL')
  rmSync(deploy, { recursive: true, force: true })
})

/** Copies the production dependencies of package-lock.json (what `npm ci --omit=dev` installs) into `dest`/node_modules. */
function productionNodeModules(dest: string): string[] {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> }
  const copied: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    // Nested packages come with the package they are nested in; platform builds not installed here are skipped.
    if (!path || entry.dev || path.lastIndexOf('node_modules/') !== 0 || !existsSync(join(REPO_ROOT, path))) continue
    cpSync(join(REPO_ROOT, path), join(dest, path), { recursive: true, dereference: true })
    copied.push(path.slice('node_modules/'.length))
  }
  return copied
}

/** The environment of a server: nothing that would load tsx or find this checkout's node_modules. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const k of Object.keys(env))
    if (k === 'NODE_OPTIONS' || k === 'NODE_PATH' || k.startsWith('VITEST') || k.startsWith('RAMPDESK_')) delete env[k]
  return env
}

describe('npm run build:hub', () => {
  it('runs with node and the production dependencies only: operator add, serve --sandbox, /healthz, /readyz, an operator call', async () => {
    const built = execFileSync('npm', ['run', '--silent', 'build:hub'], { cwd: REPO_ROOT, stdio: 'pipe' }).toString()
    expect(built).toMatch(/^built dist\/hub\/cli\.js/m)
    cpSync(join(REPO_ROOT, 'dist', 'hub'), join(deploy, 'dist', 'hub'), { recursive: true })
    const packages = productionNodeModules(deploy)
    expect(packages).toEqual(expect.arrayContaining(['libsql', 'pg', 'pino', 'prom-client', 'undici', 'zod']))
    for (const dev of ['tsx', 'esbuild', 'electron', 'vitest', 'typescript', 'svelte']) expect(packages).not.toContain(dev)
    // Nothing above the deployment directory gives Node a node_modules to fall back on.
    for (let d = dirname(deploy); d !== dirname(d); d = dirname(d)) expect(existsSync(join(d, 'node_modules'))).toBe(false)

    const cli = join(deploy, 'dist', 'hub', 'cli.js')
    const data = join(deploy, 'data')
    const env = cleanEnv()
    const token = execFileSync(process.execPath, [cli, 'operator', 'add', 'ada', '--role', 'admin', '--data-dir', data], {
      cwd: deploy,
      env
    })
      .toString()
      .trim()
      .split('\n')
      .at(-1)!
    expect(token).toMatch(/^rdh_/)

    child = spawn(process.execPath, [cli, 'serve', '--sandbox', '--orders', '20', '--port', '0', '--data-dir', data], {
      cwd: deploy,
      env,
      stdio: 'pipe'
    })
    let output = ''
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stdout }).once('line', resolve)
      child!.once('exit', (code) => reject(new Error(`the built hub exited with ${code}: ${output}`)))
    })
    expect(first).toMatch(/^hub listening on http:\/\/127\.0\.0\.1:\d+$/)
    const url = first.slice('hub listening on '.length)

    const health = await request(`${url}/healthz`)
    expect(await health.body.json()).toEqual({ ok: true })
    const deadline = Date.now() + 20_000
    let ready = 0
    while (Date.now() < deadline && ready !== 200) {
      const r = await request(`${url}/readyz`)
      await r.body.dump()
      ready = r.statusCode
      if (ready !== 200) await new Promise((res) => setTimeout(res, 200))
    }
    expect(ready).toBe(200)
    const call = await request(`${url}/rpc/orders:query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filter: { type: 1 }, offset: 0, limit: 5 })
    })
    expect(await call.body.json()).toMatchObject({ ok: true, value: { total: expect.any(Number) } })
    const access = await request(`${url}/rpc/team:access`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}'
    })
    expect(await access.body.json()).toMatchObject({ ok: true, value: { team: { operator: 'ada', role: 'admin' } } })
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  }, 180_000)

  it.skipIf(postgresUnavailable !== null)(
    'manages operators in PostgreSQL from the built hub (pg is a production dependency)',
    async () => {
      const cluster = await startPostgres()
      try {
        const url = await cluster.createDatabase()
        const cli = join(deploy, 'dist', 'hub', 'cli.js')
        const run = (...args: string[]) => execFileSync(process.execPath, [cli, ...args], { cwd: deploy, env: cleanEnv() }).toString()
        expect(run('operator', 'add', 'bo', '--role', 'viewer', '--database', url).trim().split('\n').at(-1)).toMatch(/^rdh_/)
        expect(run('operator', 'list', '--database', url)).toMatch(/^bo\tviewer\t/m)
      } finally {
        await cluster.stop()
      }
    },
    60_000
  )
})

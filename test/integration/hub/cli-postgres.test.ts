// The hub's command line on a PostgreSQL store: operator add, list and revoke --database URL
// (the URL's password never printed, a password file honoured), the token working on a hub
// serving on that database (a process, as an administrator starts it, also from
// RAMPDESK_HUB_DATABASE), and backup --database running pg_dump into a new directory.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../../../src/hub/commands'
import { findPgDump, pgDumpCommand } from '../../../src/hub/pg/pg-backup'
import { startSandbox, type Sandbox } from '../../../src/sandbox'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { hubCliArgs } from '../../support/hub-cli'

const PASSWORD = 'never-print-this-pw-5d41'

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) })
  return { code, out, err }
}

describe.skipIf(postgresUnavailable !== null)('npm run hub on PostgreSQL', () => {
  let cluster: PgCluster
  let url: string
  let withPassword: string
  let dir: string
  let sandbox: Sandbox
  beforeAll(async () => {
    cluster = await startPostgres()
    url = await cluster.createDatabase()
    // The cluster trusts loopback: the password is accepted and ignored, and must never be shown.
    withPassword = url.replace('postgres@', `postgres:${PASSWORD}@`)
    dir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-cli-pg-'))
    sandbox = await startSandbox({ orders: 10, autoGenerate: false })
  })
  afterAll(async () => {
    await sandbox?.close()
    await cluster?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('adds, lists and revokes operators in the database, never printing the password', async () => {
    const pwFile = join(dir, 'db-password')
    writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 })
    const added = await cli(['operator', 'add', 'ada', '--role', 'admin', '--database', url, '--database-password-file', pwFile])
    expect(added.code).toBe(0)
    expect(added.out.at(-1)).toMatch(/^rdh_/)
    const listed = await cli(['operator', 'list', '--database', withPassword])
    expect(listed.code).toBe(0)
    expect(listed.out.join('\n')).toMatch(/^ada\tadmin\t/)
    expect(listed.err.join('\n')).toMatch(/carries a password/)
    const revoked = await cli(['operator', 'revoke', 'ada', '--database', url])
    expect(revoked.out).toEqual(['revoked ada: every hub on this database refuses the token within a second and closes its event streams'])
    expect((await cli(['operator', 'list', '--database', url])).out).toEqual(['no operators'])
    const bad = await cli(['operator', 'list', '--database', `http://x:${PASSWORD}@h/db`])
    expect(bad.code).toBe(2)
    for (const r of [added, listed, revoked, bad]) expect([...r.out, ...r.err].join('\n')).not.toContain(PASSWORD)
  })

  it('refuses a database it cannot reach, naming it without its password', async () => {
    const r = await cli(['operator', 'list', '--database', `postgres://postgres:${PASSWORD}@127.0.0.1:1/nope`])
    expect(r.code).toBe(1)
    expect(r.err.join('\n')).toMatch(/cannot open the database postgres:\/\/postgres@127\.0\.0\.1:1\/nope/)
    expect(r.err.join('\n')).not.toContain(PASSWORD)
  })

  it('serves from RAMPDESK_HUB_DATABASE: a token added from the command line works, and the log shows no password', async () => {
    const token = (await cli(['operator', 'add', 'otto', '--role', 'operator', '--database', url])).out.at(-1)!
    const child = spawn(process.execPath, hubCliArgs(['serve', '--sandbox', '--port', '0', '--data-dir', join(dir, 'serve')]), {
      cwd: process.cwd(),
      env: { ...process.env, RAMPDESK_HUB_DATABASE: withPassword },
      stdio: 'pipe'
    })
    let all = ''
    child.stderr.on('data', (c: Buffer) => (all += c.toString('utf8')))
    try {
      const lines = createInterface({ input: child.stdout })
      // Every stdout line is kept from the start: the lines after the first come in the same chunk.
      lines.on('line', (l) => (all += l + '\n'))
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve)
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${all}`)))
      })
      expect(first).toMatch(/^hub listening on http:\/\/127\.0\.0\.1:\d+$/)
      const base = first.slice('hub listening on '.length)
      const r = await request(`${base}/rpc/team:access`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}'
      })
      expect(r.statusCode).toBe(200)
      expect(await r.body.json()).toMatchObject({ ok: true, value: { team: { operator: 'otto', role: 'operator' } } })
      const ready = (await (await request(`${base}/readyz`)).body.json()) as { checks: { store: { kind: string } } }
      expect(ready.checks.store.kind).toBe('postgres')
      await vi.waitFor(() => expect(all).toMatch(/hub store: PostgreSQL/), { timeout: 5_000 })
      // The log drops every URL's user information, the user name too (docs/security.md).
      expect(all).toMatch(/hub store: PostgreSQL at postgres:\/\/\[redacted\]@127\.0\.0\.1:\d+\/\w+; leader/)
    } finally {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
    expect(all).not.toContain(PASSWORD)
  })

  it.skipIf(findPgDump() === null)('backs the database up with pg_dump into a new directory, or says what to run', async () => {
    const out = join(dir, 'backup')
    const r = await cli(['backup', out, '--database', withPassword])
    expect(r.code).toBe(0)
    expect(r.out[0]).toMatch(
      /^backed up the PostgreSQL database postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ with pg_dump to .*hub\.pgdump in \d+ ms/
    )
    expect(statSync(join(out, 'hub.pgdump')).mode & 0o777).toBe(0o600)
    const listing = execFileSync(findPgDump()!.replace(/pg_dump$/, 'pg_restore'), ['--list', join(out, 'hub.pgdump')]).toString()
    expect(listing).toMatch(/TABLE DATA public operators/)
    expect((await cli(['backup', out, '--database', url])).err.join('\n')).toMatch(/is not empty/)
    for (const l of [...r.out, ...r.err]) expect(l).not.toContain(PASSWORD)
    expect(pgDumpCommand({ url: withPassword }, '/b')).toBe(`pg_dump --format=custom --no-owner --file '/b/hub.pgdump' '${url}'`)
  })
})

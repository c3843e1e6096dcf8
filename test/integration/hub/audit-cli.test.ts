// npm run hub -- audit export | verify, and serve --audit-log, run as processes the way an
// administrator runs them: the log verified in hub.db and in PostgreSQL, and broken there by
// an edit; an export verified as a file, and broken by an edited, a removed and a swapped
// line; the live copy receiving each entry, including those the command line appends while
// the hub runs, and going on in a new file after logrotate's rename and SIGHUP, the two files
// together verifying as one chain.
import Database from 'libsql'
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { postgresUnavailable, startPostgres, type PgCluster } from '../../support/postgres-cluster'
import { waitUntil } from './support'
import { hubCliArgs } from '../../support/hub-cli'

const running = new Set<ChildProcessWithoutNullStreams>()
let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-audit-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(() => {
  for (const c of running) if (c.exitCode === null) c.kill('SIGKILL')
  running.clear()
})

function hub(args: string[]): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, hubCliArgs(args), { stdio: 'pipe' }).toString('utf8')
    return { code: 0, stdout, stderr: '' }
  } catch (e) {
    const x = e as { status: number; stdout: Buffer; stderr: Buffer }
    return { code: x.status, stdout: x.stdout.toString('utf8'), stderr: x.stderr.toString('utf8') }
  }
}

const VERIFIED = /^audit log verified: (\d+) entries, head ([0-9a-f]{16}) \(seq (\d+)\)\n$/

describe('audit export and verify on hub.db', { timeout: 180_000 }, () => {
  let data: string
  let exported: string

  beforeAll(() => {
    data = join(dir, 'sqlite')
    for (const name of ['ana', 'bo', 'cy', 'di'])
      expect(hub(['operator', 'add', name, '--role', 'viewer', '--data-dir', data]).code).toBe(0)
    exported = join(dir, 'export.jsonl')
  }, 180_000)

  it('verifies the log and exports it; the export verifies as a file, with the same head', () => {
    const v = hub(['audit', 'verify', '--data-dir', data])
    expect(v.code).toBe(0)
    const [, n, head, seq] = VERIFIED.exec(v.stdout)!
    expect([n, seq]).toEqual(['4', '4'])
    const out = hub(['audit', 'export', '--format', 'jsonl', '--data-dir', data])
    expect(out.code).toBe(0)
    const lines = out.stdout.trim().split('\n')
    expect(
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((e) => [e.seq, e.actor, e.action, (e.detail as { name: string }).name])
    ).toEqual([
      [1, '(command line)', 'team:addOperator', 'ana'],
      [2, '(command line)', 'team:addOperator', 'bo'],
      [3, '(command line)', 'team:addOperator', 'cy'],
      [4, '(command line)', 'team:addOperator', 'di']
    ])
    writeFileSync(exported, out.stdout)
    const f = hub(['audit', 'verify', '--file', exported])
    expect(f.code).toBe(0)
    expect(VERIFIED.exec(f.stdout)?.[2]).toBe(head)
  })

  it('exports from --since on, a part that verifies on its own', () => {
    const all = readFileSync(exported, 'utf8').trim().split('\n')
    const third = JSON.parse(all[2]!) as { time: string }
    const out = hub(['audit', 'export', '--since', third.time, '--data-dir', data])
    expect(
      out.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { seq: number }).seq)
    ).toEqual([3, 4])
    const part = join(dir, 'part.jsonl')
    writeFileSync(part, out.stdout)
    expect(hub(['audit', 'verify', '--file', part])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^audit log verified: 2 entries/)
    })
    expect(hub(['audit', 'export', '--since', 'yesterday', '--data-dir', data])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--since must be an ISO 8601 time')
    })
  })

  it('fails on an exported file with an edited, a removed or a swapped line, naming it', () => {
    const lines = readFileSync(exported, 'utf8').trim().split('\n')
    const check = (name: string, ls: string[]) => {
      const f = join(dir, name)
      writeFileSync(f, ls.join('\n') + '\n')
      return hub(['audit', 'verify', '--file', f])
    }
    expect(check('edited.jsonl', [lines[0]!, lines[1]!.replace('"bo"', '"mallory"'), lines[2]!, lines[3]!])).toMatchObject({
      code: 1,
      stderr: 'audit log broken at line 2 (seq 2): edited (the entry no longer matches its hash)\n'
    })
    expect(check('removed.jsonl', [lines[0]!, lines[2]!, lines[3]!])).toMatchObject({
      code: 1,
      stderr: 'audit log broken at seq 2: removed (seq 2 is missing: line 2 (seq 3) follows seq 1)\n'
    })
    expect(check('swapped.jsonl', [lines[0]!, lines[2]!, lines[1]!, lines[3]!])).toMatchObject({
      code: 1,
      stderr: 'audit log broken at seq 2: reordered (the entry chained after seq 1 is at line 3 (seq 2), not at line 2 (seq 3))\n'
    })
    expect(hub(['audit', 'verify', '--file', join(dir, 'none.jsonl')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no such file')
    })
  })

  it('fails on hub.db with an entry edited in the database', () => {
    const db = new Database(join(data, 'hub.db'))
    db.exec(`UPDATE audit SET operator = 'someone else' WHERE seq = 3`)
    db.close()
    expect(hub(['audit', 'verify', '--data-dir', data])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'audit log broken at seq 3: edited (the entry no longer matches its hash)\n'
    })
  })
})

describe.skipIf(postgresUnavailable !== null)('audit verify on PostgreSQL', { timeout: 180_000 }, () => {
  let cluster: PgCluster
  beforeAll(async () => {
    cluster = await startPostgres()
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('verifies the log several writers appended, and fails on a removed entry', async () => {
    const url = await cluster.createDatabase()
    for (const name of ['ana', 'bo', 'cy']) expect(hub(['operator', 'add', name, '--role', 'viewer', '--database', url]).code).toBe(0)
    expect(hub(['audit', 'verify', '--database', url])).toMatchObject({ code: 0, stdout: expect.stringMatching(VERIFIED) })
    const pg = (await import('pg')).default
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    await c.query('DELETE FROM audit WHERE seq = 2')
    await c.end()
    expect(hub(['audit', 'verify', '--database', url])).toMatchObject({
      code: 1,
      stderr: 'audit log broken at seq 2: removed (seq 2 is missing: seq 3 follows seq 1)\n'
    })
  })
})

describe('serve --audit-log PATH', () => {
  it('copies every entry to the file, goes on in a new file after a rename and SIGHUP, and both files verify as one chain', async () => {
    const data = join(dir, 'live')
    const copy = join(dir, 'live-copy', 'audit.jsonl')
    rmSync(join(dir, 'live-copy'), { recursive: true, force: true })
    execFileSync('mkdir', ['-p', join(dir, 'live-copy')])
    const child = spawn(process.execPath, hubCliArgs(['serve', '--sandbox', '--port', '0', '--data-dir', data]), {
      env: { ...process.env, RAMPDESK_HUB_AUDIT_LOG: copy },
      stdio: 'pipe'
    })
    running.add(child)
    let log = ''
    child.stderr.on('data', (b: Buffer) => (log += b.toString('utf8')))
    createInterface({ input: child.stdout }).on('line', (l) => (log += l + '\n'))
    await waitUntil(() => log.includes('hub listening on'), 60_000, 'the hub listening')
    const lines = () => (existsSync(copy) ? readFileSync(copy, 'utf8').trim().split('\n').filter(Boolean) : [])
    expect(hub(['operator', 'add', 'ana', '--role', 'admin', '--data-dir', data]).code).toBe(0)
    await waitUntil(() => lines().length === 1, 10_000, 'the first entry copied')
    expect(JSON.parse(lines()[0]!)).toMatchObject({ seq: 1, actor: '(command line)', action: 'team:addOperator', detail: { name: 'ana' } })
    expect(statSync(copy).mode & 0o777).toBe(0o600)

    renameSync(copy, copy + '.1')
    child.kill('SIGHUP')
    await waitUntil(() => log.includes('the audit log copy reopened'), 10_000, 'the copy reopened')
    expect(hub(['operator', 'add', 'bo', '--role', 'viewer', '--data-dir', data]).code).toBe(0)
    expect(hub(['operator', 'revoke', 'bo', '--data-dir', data]).code).toBe(0)
    await waitUntil(() => lines().length === 2, 10_000, 'the next entries in the new file')
    expect(lines().map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([2, 3])
    expect(
      readFileSync(copy + '.1', 'utf8')
        .trim()
        .split('\n')
    ).toHaveLength(1)

    const both = join(dir, 'both.jsonl')
    writeFileSync(both, readFileSync(copy + '.1', 'utf8') + readFileSync(copy, 'utf8'))
    const v = hub(['audit', 'verify', '--file', both])
    expect(v).toMatchObject({ code: 0, stdout: expect.stringMatching(/^audit log verified: 3 entries/) })
    expect(hub(['audit', 'verify', '--data-dir', data]).stdout).toBe(v.stdout)
    expect(log).toContain(`copying the audit log to ${copy}`)
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }, 180_000)
})

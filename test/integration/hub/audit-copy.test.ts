// The live copy of the audit log (audit-copy.ts) in process: a copy that cannot be written
// loses nothing (the entries stay in the database, the failure is said once in the hub's log
// and counted in the metrics) and catches up once it can be written; a restarted hub goes
// on after the last entry its file holds; syslog gets one RFC 5424 datagram per entry.
import { createSocket } from 'node:dgram'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { entryHash, parseEntryLine } from '../../../src/hub/audit-chain'
import { startAuditCopy } from '../../../src/hub/audit-copy'
import { parseAuditLogTarget } from '../../../src/hub/audit-sinks'
import { createHubLog } from '../../../src/hub/hub-log'
import { HubMetrics } from '../../../src/hub/hub-metrics'
import { openSqliteHubStore, type SqliteHubStore } from '../../../src/hub/sqlite-hub-store'

let dir: string
let store: SqliteHubStore
let logged: string[]
const log = () => createHubLog({ write: (l) => void logged.push(l) })

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-audit-copy-'))
  store = openSqliteHubStore(join(dir, 'data'))
  logged = []
})
afterEach(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const fileLines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').filter(Boolean)

describe('the live copy of the audit log', () => {
  it('keeps the entries it cannot write in the database, says so once, counts each failure, and catches up', async () => {
    const path = join(dir, 'not-yet', 'audit.jsonl')
    const metrics = new HubMetrics({ version: 'test', store: 'sqlite' })
    const copy = await startAuditCopy({
      audit: store.audit,
      target: { kind: 'file', path },
      log: log(),
      onFailure: () => metrics.auditCopyFailed(),
      pollMs: 60_000
    })
    store.audit.append('ada', 'team:addOperator', { name: 'bo' })
    await copy.pass()
    store.audit.append('ada', 'team:revokeOperator', { name: 'bo' })
    await copy.pass()
    expect(copy.state()).toMatchObject({ kind: 'failing', failures: 2 })
    expect(logged.filter((l) => l.includes('cannot write the audit log copy'))).toHaveLength(1)
    expect(logged.join('\n')).toMatch(
      /cannot write the audit log copy to .*audit\.jsonl: .*ENOENT.*; the entries from seq 1 on are kept in the database/
    )
    expect(await metrics.render()).toMatch(/^rampdesk_hub_audit_copy_failures_total 2$/m)
    expect((await store.audit.page(0, 10)).map((e) => e.seq)).toEqual([1, 2])

    mkdirSync(join(dir, 'not-yet'))
    await copy.pass()
    expect(copy.state()).toEqual({ kind: 'copying' })
    expect(fileLines(path).map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2])
    expect(logged.join('\n')).toMatch(/the audit log copy to .* is written again \(2 failed attempts/)
    await copy.close()
  })

  it('goes on after the last entry its file holds when the hub starts again', async () => {
    const path = join(dir, 'audit.jsonl')
    const first = await startAuditCopy({
      audit: store.audit,
      target: { kind: 'file', path },
      log: log(),
      onFailure: () => undefined,
      pollMs: 60_000
    })
    store.audit.append('ada', 'one')
    await first.close()
    // Appended while no hub ran (the command line):
    store.audit.append('(command line)', 'two')
    store.audit.append('(command line)', 'three')
    const second = await startAuditCopy({
      audit: store.audit,
      target: { kind: 'file', path },
      log: log(),
      onFailure: () => undefined,
      pollMs: 60_000
    })
    await second.pass()
    expect(fileLines(path).map((l) => (JSON.parse(l) as { action: string }).action)).toEqual(['one', 'two', 'three'])
    await second.close()
  })

  it('starts a new file with the entries from now on, not the history (audit export gives that)', async () => {
    store.audit.append('ada', 'before')
    const path = join(dir, 'fresh.jsonl')
    writeFileSync(path, '', { mode: 0o600 })
    const copy = await startAuditCopy({
      audit: store.audit,
      target: { kind: 'file', path },
      log: log(),
      onFailure: () => undefined,
      pollMs: 60_000
    })
    store.audit.append('ada', 'after')
    await copy.close()
    expect(fileLines(path).map((l) => (JSON.parse(l) as { action: string }).action)).toEqual(['after'])
  })

  it('sends each entry to syslog as one RFC 5424 datagram whose message is the entry line', async () => {
    const server = createSocket('udp4')
    const got: string[] = []
    server.on('message', (m) => got.push(m.toString('utf8')))
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', r))
    const target = parseAuditLogTarget(`syslog://127.0.0.1:${server.address().port}`)
    expect(target).toMatchObject({ kind: 'syslog', host: '127.0.0.1' })
    const copy = await startAuditCopy({
      audit: store.audit,
      target: target as Exclude<typeof target, string>,
      log: log(),
      onFailure: () => undefined,
      pollMs: 60_000
    })
    store.audit.append('ada', 'team:addOperator', { name: 'bo' })
    store.audit.append('ada', 'team:revokeOperator', { name: 'bo' })
    await copy.pass()
    const deadline = Date.now() + 5_000
    while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    await copy.close()
    server.close()
    expect(got).toHaveLength(2)
    for (const [i, m] of got.entries()) {
      const match = /^<110>1 (\S+) (\S+) rampdesk-hub (\d+) audit - (.*)$/.exec(m)
      expect(match, m).not.toBeNull()
      const e = parseEntryLine(match![4]!)
      if (typeof e === 'string') throw new Error(e)
      expect(e.seq).toBe(i + 1)
      expect(match![1]).toBe(e.time)
      expect(entryHash(e)).toBe(e.hash)
    }
  })

  it('takes syslog, syslog://HOST:PORT or a path, and refuses what is neither', () => {
    expect(parseAuditLogTarget('syslog')).toEqual({ kind: 'syslog', host: '127.0.0.1', port: 514 })
    expect(parseAuditLogTarget('syslog://[::1]:5514')).toEqual({ kind: 'syslog', host: '::1', port: 5514 })
    expect(parseAuditLogTarget('/var/log/rampdesk/audit.jsonl')).toEqual({ kind: 'file', path: '/var/log/rampdesk/audit.jsonl' })
    expect(parseAuditLogTarget('syslog://')).toMatch(/must name a host and a port/)
    expect(parseAuditLogTarget(' ')).toMatch(/empty/)
  })
})

// npm run hub -- backup DIR / restore DIR --data-dir D, as an administrator uses them: a
// hub process runs and writes (orders synced from the service, operators added, orders watched
// and their audit entries) while the backup is taken; the backup is restored into a new data
// directory and a hub started on it, in front of a service that holds no orders at all,
// finds the operators (their tokens work), the audit log, the watched orders and every order the
// backup counted. Nothing is written over: a used backup directory or data directory is
// refused.
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT, startHubProcess, type HubProcess } from '../../attack/hub/hub-process'
import type { BackupManifest } from '../../../src/hub/backup-command'
import { hubCliArgs } from '../../support/hub-cli'

const run = promisify(execFile)
const cli = (args: string[]) => run(process.execPath, hubCliArgs(args), { cwd: REPO_ROOT })
const cliSync = (args: string[]): { code: number; out: string } => {
  try {
    return {
      code: 0,
      out: execFileSync(process.execPath, hubCliArgs(args), { cwd: REPO_ROOT, stdio: 'pipe' }).toString()
    }
  } catch (e) {
    const x = e as { status: number; stderr: Buffer }
    return { code: x.status, out: x.stderr.toString() }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rampdesk-hub-backup-'))
const hubs: HubProcess[] = []
afterAll(async () => {
  for (const h of hubs) await h.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface Row {
  type: 1 | 2
  orderId: number
  watched: boolean
}

async function total(hub: HubProcess, token: string, type: 1 | 2): Promise<number> {
  const r = await hub.call<{ total: number }>(token, 'orders:query', { filter: { type }, offset: 0, limit: 1 })
  if (!r.ok) throw new Error(`orders:query: ${r.error?.message}`)
  return r.value!.total
}

describe('backup and restore of a running hub', () => {
  it('restores operators, audit, watches and orders from a backup taken under writes', async () => {
    const a = await startHubProcess({ sandbox: { orders: 150, seed: 11 } })
    hubs.push(a)
    const admin = await a.addOperator('ada', 'admin')
    // Wait for the first sync, then watch a few orders.
    const deadline = Date.now() + 30_000
    while ((await total(a, admin, 1)) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    const page = await a.call<{ rows: Row[] }>(admin, 'orders:query', { filter: { type: 1 }, offset: 0, limit: 5 })
    const toWatch = page.value!.rows.map((r) => ({ type: r.type, orderId: r.orderId }))
    for (const p of toWatch) expect((await a.call(admin, 'orders:watch', { ...p, watch: true })).ok).toBe(true)

    // Writes while the backup runs: new orders at the service synced in, operators added.
    const before: Array<{ name: string; token: string }> = []
    let writing = true
    let n = 0
    const writer = (async () => {
      while (writing) {
        a.sandbox.control.createOrder({ type: 1, fiatType: 1 })
        await a.call(admin, 'sync:now')
        const added = await a.call<{ token: string }>(admin, 'team:addOperator', { name: `op${n}`, role: 'viewer' })
        if (added.ok) before.push({ name: `op${n}`, token: added.value!.token })
        n++
      }
    })().catch(() => undefined) // a failed test stops its hubs under the writer
    while (n < 5) await new Promise((r) => setTimeout(r, 50))
    const addedBeforeBackup = before.slice()
    const backupDir = join(dir, 'backup')
    const backup = await cli(['backup', backupDir, '--data-dir', a.dataDir])
    const writesDuringBackup = n - addedBeforeBackup.length
    writing = false
    await writer
    expect(backup.stdout).toMatch(/^backed up .* to .*: \d+ operators, \d+ audit entries, 5 pins, [\d,]+ orders/m)
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as BackupManifest
    expect(manifest).toMatchObject({ format: 'rampdesk-hub-backup', store: 'sqlite', counts: { pins: 5 } })
    expect(manifest.counts.orders).toBeGreaterThanOrEqual(150)
    expect(manifest.counts.operators).toBeGreaterThanOrEqual(1 + addedBeforeBackup.length)
    for (const f of ['hub.db', 'store/rampdesk.db', 'manifest.json']) expect(statSync(join(backupDir, f)).mode & 0o077).toBe(0)

    // Restore into a new data directory; a used one is refused.
    const restored = join(dir, 'restored')
    const r = await cli(['restore', backupDir, '--data-dir', restored])
    expect(r.stdout).toMatch(/^restored .* into .*: \d+ operators, \d+ audit entries, 5 pins, [\d,]+ orders/m)
    expect(cliSync(['restore', backupDir, '--data-dir', a.dataDir])).toMatchObject({
      code: 2,
      out: expect.stringMatching(/already holds a hub/)
    })
    expect(cliSync(['backup', backupDir, '--data-dir', a.dataDir])).toMatchObject({ code: 2, out: expect.stringMatching(/is not empty/) })

    // A hub on the restored directory, in front of a service with no orders: all it has is the backup's.
    const b = await startHubProcess({ sandbox: { orders: 0, seed: 12 }, dataDir: restored })
    hubs.push(b)
    expect((await total(b, admin, 1)) + (await total(b, admin, 2))).toBe(manifest.counts.orders)
    for (const op of [{ name: 'ada', token: admin }, ...addedBeforeBackup]) {
      const access = await b.call<{ team: { operator: string } }>(op.token, 'team:access')
      expect(access.value?.team.operator).toBe(op.name)
    }
    const ops = (await b.call<{ operators: unknown[] }>(admin, 'team:operators')).value!.operators
    expect(ops).toHaveLength(manifest.counts.operators)
    const audit = (
      await b.call<{ rows: Array<{ operator: string; action: string; detail: Record<string, unknown> }> }>(admin, 'audit:list', {
        limit: 500
      })
    ).value!.rows
    for (const p of toWatch)
      expect(audit).toContainEqual(
        expect.objectContaining({
          operator: 'ada',
          action: 'orders:watch',
          detail: expect.objectContaining({ input: { ...p, watch: true } })
        })
      )
    for (const op of addedBeforeBackup)
      expect(audit.some((e) => e.action === 'team:addOperator' && JSON.stringify(e.detail).includes(`"${op.name}"`))).toBe(true)
    const watched = (await b.call<{ rows: Row[] }>(admin, 'orders:watched')).value!.rows
    for (const p of toWatch) expect(watched).toContainEqual(expect.objectContaining({ ...p, watched: true }))
    expect(writesDuringBackup).toBeGreaterThan(0)
  }, 240_000)
})

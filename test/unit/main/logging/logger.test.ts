// The support log file: JSON lines with level and time, redacted, levels honoured,
// rotated at a size with the oldest files deleted, and quiet after close.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { logLevelFrom, openLogFile, silentLog } from '../../../../src/main/logging/logger'

const dirs: string[] = []
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rampdesk-log-'))
  dirs.push(d)
  return join(d, 'logs')
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const files = (dir: string) => readdirSync(dir).filter((f) => /^rampdesk\.\d+\.log$/.test(f))
const lines = (dir: string) =>
  files(dir)
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l) as Record<string, unknown>)

describe('openLogFile', () => {
  it('writes one JSON line per call with level, ISO time, message and fields, in a folder it creates', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir })
    log.info('api call', { endpoint: 'priceTicker', status: 200 })
    log.child({ profile: 'live' }).warn('sync run', { outcome: 'network' })
    await log.close()
    expect(files(dir)).toEqual(['rampdesk.1.log'])
    const [a, b] = lines(dir)
    expect(a).toMatchObject({ level: 'info', msg: 'api call', endpoint: 'priceTicker', status: 200, pid: process.pid })
    expect(Date.parse(String(a!.time))).not.toBeNaN()
    expect(b).toMatchObject({ level: 'warn', msg: 'sync run', profile: 'live', outcome: 'network' })
    expect(a).not.toHaveProperty('hostname')
  })

  it('redacts fields, messages and child bindings before they reach the file', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir })
    log.error('refused secret=hunter2hunter2 for 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', {
      apiSecret: 'hunter2hunter2',
      payload: 'eyJib2R5Ijp7fX0=',
      walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
    })
    log.child({ token: 'tok-123' }).info('x')
    await log.close()
    const text = readFileSync(join(dir, 'rampdesk.1.log'), 'utf8')
    for (const leak of [
      'hunter2hunter2',
      'eyJib2R5Ijp7fX0',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      'tok-123'
    ])
      expect(text).not.toContain(leak)
    expect(lines(dir)[0]).toMatchObject({ msg: 'refused secret=[redacted] for [address]', apiSecret: '[redacted]' })
  })

  it('writes only lines at or above its level', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir, level: 'warn' })
    log.debug('d')
    log.info('i')
    log.warn('w')
    log.error('e')
    await log.close()
    expect(lines(dir).map((l) => l.msg)).toEqual(['w', 'e'])
  })

  it('starts a new file at the size limit and keeps a bounded number, the newest lines always there', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir, maxFileBytes: 2048, keepFiles: 2 })
    // Lines arrive a few at a time, as API calls do; a roll happens between them.
    for (let i = 0; i < 200; i++) {
      log.info('api call', { n: i, endpoint: 'merchantHistory', latencyMs: 120 })
      if (i % 5 === 4) await new Promise((r) => setTimeout(r, 1))
    }
    // Deleting old files runs in the background after each roll.
    await new Promise((r) => setTimeout(r, 200))
    await log.close()
    const now = files(dir)
    expect(now.length).toBeGreaterThan(1)
    expect(now.length).toBeLessThanOrEqual(3)
    const kept = lines(dir).map((l) => l.n)
    expect(kept.at(-1)).toBe(199)
    expect(kept).not.toContain(0)
  })

  it('carries on in the newest file after a restart instead of starting over at 1', async () => {
    const dir = tempDir()
    const first = await openLogFile({ dir, maxFileBytes: 1024 })
    for (let i = 0; i < 40; i++) {
      first.info('line', { i })
      await new Promise((r) => setTimeout(r, 1))
    }
    await first.close()
    const before = files(dir).length
    const second = await openLogFile({ dir, maxFileBytes: 1024 })
    second.info('after restart')
    await second.close()
    expect(before).toBeGreaterThan(1)
    expect(files(dir).length).toBe(before)
    expect(lines(dir).at(-1)).toMatchObject({ msg: 'after restart' })
  })

  it('drops lines after close, and a vanished folder does not throw', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir })
    log.info('kept')
    await log.close()
    log.info('dropped')
    await log.close()
    expect(lines(dir).map((l) => l.msg)).toEqual(['kept'])

    const gone = tempDir()
    const orphan = await openLogFile({ dir: gone })
    rmSync(gone, { recursive: true, force: true })
    expect(() => orphan.info('nowhere to go')).not.toThrow()
    await orphan.close()
  })

  it('leaves other files in the folder alone', async () => {
    const dir = tempDir()
    const log = await openLogFile({ dir, maxFileBytes: 1024, keepFiles: 1 })
    writeFileSync(join(dir, 'notes.txt'), 'support ticket 42')
    for (let i = 0; i < 100; i++) {
      log.info('line', { i })
      await new Promise((r) => setTimeout(r, 1))
    }
    await new Promise((r) => setTimeout(r, 200))
    await log.close()
    expect(readdirSync(dir)).toContain('notes.txt')
    expect(files(dir).length).toBeLessThanOrEqual(2)
  })
})

describe('logLevelFrom', () => {
  it('reads a level name in any case and falls back to info', () => {
    expect(logLevelFrom('DEBUG')).toBe('debug')
    expect(logLevelFrom(' warn ')).toBe('warn')
    expect(logLevelFrom('verbose')).toBe('info')
    expect(logLevelFrom(undefined)).toBe('info')
  })
})

describe('silentLog', () => {
  it('accepts every call and its children do too', () => {
    expect(() => silentLog.child({ a: 1 }).error('x', { secret: 'y' })).not.toThrow()
  })
})

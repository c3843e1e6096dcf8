// The settings file: a patch naming some of the inbox's fields keeps the others, and a
// file written before the delivery log's retention existed loads with its defaults.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AppSettings, DEFAULT_SETTINGS } from '../../../src/main/app-settings'
import { DELIVERY_LOG_DEFAULTS, SettingsPatch } from '../../../src/shared/ipc/contract'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-settings-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('AppSettings, the inbox', () => {
  it('merges an inbox patch field by field: the retention survives an address change and the reverse', () => {
    const s = new AppSettings(dir)
    s.update({ inbox: { enabled: true, host: '127.0.0.1', port: 4040 } })
    expect(s.get().inbox).toEqual({ enabled: true, host: '127.0.0.1', port: 4040, ...DELIVERY_LOG_DEFAULTS })
    s.update(SettingsPatch.parse({ inbox: { keepDays: 7 } }))
    expect(s.get().inbox).toEqual({ enabled: true, host: '127.0.0.1', port: 4040, keepDays: 7, keepDeliveries: 10_000 })
    s.update({ inbox: { port: 0 } })
    expect(s.get().inbox).toMatchObject({ port: 0, keepDays: 7 })
    // Written to disk as merged, and read back the same.
    expect(new AppSettings(dir).get().inbox).toEqual(s.get().inbox)
  })

  it('refuses a retention out of range and keeps what was there', () => {
    const s = new AppSettings(dir)
    expect(SettingsPatch.safeParse({ inbox: { keepDeliveries: 5 } }).success).toBe(false)
    expect(() => s.update({ inbox: { keepDays: 0 } })).toThrow()
    expect(s.get().inbox).toEqual(DEFAULT_SETTINGS.inbox)
  })

  it('loads a file from before the retention existed with the default retention', () => {
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, inbox: { enabled: true, host: '::1', port: 9000 } }))
    expect(new AppSettings(dir).get().inbox).toEqual({ enabled: true, host: '::1', port: 9000, ...DELIVERY_LOG_DEFAULTS })
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).inbox.keepDays).toBeUndefined()
  })
})

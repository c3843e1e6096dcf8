// Every serve option from its RAMPDESK_HUB_* variable: the command line wins, a variable
// whose option conflicts with a flag given is ignored, booleans are read strictly, and a
// credential may come from a *_FILE (its first line).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SERVE_OPTIONS, UsageError, resolveOptions } from '../../../src/hub/cli-options'

const dir = mkdtempSync(join(tmpdir(), 'rampdesk-cli-options-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const resolve = (args: string[], env: Record<string, string>, warn?: (m: string) => void) =>
  resolveOptions(args, SERVE_OPTIONS, { env, warn })

describe('serve options from the environment', () => {
  it('fills what the command line leaves out, and the command line wins', () => {
    const o = resolve(['--port', '9000'], { RAMPDESK_HUB_PORT: '9100', RAMPDESK_HUB_HOST: '0.0.0.0', RAMPDESK_HUB_LOG_FORMAT: 'json' })
    expect(o.values).toMatchObject({ port: '9000', host: '0.0.0.0', 'log-format': 'json' })
    expect(o.from('port')).toBe('--port')
    expect(o.from('host')).toBe('RAMPDESK_HUB_HOST')
  })

  it('reads the older names after the new ones', () => {
    expect(resolve([], { RAMPDESK_HUB_DATA: '/old' }).string('data-dir')).toBe('/old')
    expect(resolve([], { RAMPDESK_HUB_DATA: '/old', RAMPDESK_HUB_DATA_DIR: '/new' }).string('data-dir')).toBe('/new')
    expect(resolve([], { RAMPDESK_API_SECRET_FILE: '/s' }).string('api-secret-file')).toBe('/s')
  })

  it('reads booleans strictly', () => {
    expect(resolve([], { RAMPDESK_HUB_SANDBOX: 'true' }).flag('sandbox')).toBe(true)
    expect(resolve([], { RAMPDESK_HUB_SANDBOX: '1' }).flag('sandbox')).toBe(true)
    expect(resolve([], { RAMPDESK_HUB_SANDBOX: '0' }).flag('sandbox')).toBe(false)
    expect(() => resolve([], { RAMPDESK_HUB_SANDBOX: 'maybe' })).toThrow(/RAMPDESK_HUB_SANDBOX must be 1, true, 0 or false/)
  })

  it('ignores a variable whose option conflicts with a flag on the command line', () => {
    const env = { RAMPDESK_HUB_SANDBOX: '1', RAMPDESK_HUB_API_SECRET_FD: '0', RAMPDESK_HUB_BASE_URL: 'https://from-env' }
    const o = resolve(['--base-url', 'https://x', '--api-secret-file', '/f'], env)
    expect(o.flag('sandbox')).toBe(false)
    expect(o.string('api-secret-fd')).toBeUndefined()
    expect(o.string('base-url')).toBe('https://x')
    // The other way round: --sandbox on the command line drops the merchant's variables.
    expect(resolve(['--sandbox'], env).string('base-url')).toBeUndefined()
  })

  it('reads a credential from a *_FILE, warns when others can read it, and refuses both ways at once', () => {
    const key = join(dir, 'api-key')
    writeFileSync(key, 'key-from-file\nignored\n', { mode: 0o644 })
    const warnings: string[] = []
    const o = resolve([], { RAMPDESK_HUB_API_KEY_FILE: key, RAMPDESK_HUB_FORWARD_TO_FILE: key }, (m) => void warnings.push(m))
    expect(o.string('api-key')).toBe('key-from-file')
    expect(o.from('api-key')).toBe('RAMPDESK_HUB_API_KEY_FILE')
    expect(warnings.join('\n')).toMatch(/can be read by other users/)
    expect(() => resolve([], { RAMPDESK_HUB_API_KEY: 'k', RAMPDESK_HUB_API_KEY_FILE: key })).toThrow(UsageError)
    // Only credentials have a _FILE form.
    expect(resolve([], { RAMPDESK_HUB_PORT_FILE: key }).string('port')).toBeUndefined()
  })

  it('still refuses an unknown flag', () => {
    expect(() => resolve(['--nope'], {})).toThrow(/Unknown option/)
  })
})

// npm run hub -- alerts ...: what an admin is refused before anything is kept (a URL that is
// not http(s), a json hook without its secret, a slack hook with one), and a hook URL's
// secret part never printed, from the command line or from its file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../../../src/hub/commands'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampdesk-alerts-cli-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function cli(...args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = []
  const code = await runCli([...args, '--data-dir', join(dir, 'hub')], { out: (l) => void lines.push(l), err: (l) => void lines.push(l) })
  return { code, text: lines.join('\n') }
}

describe('npm run hub -- alerts', () => {
  it('refuses a URL that is not http(s), a json hook without a secret and a slack hook with one, keeping nothing', async () => {
    writeFileSync(join(dir, 'secret'), 'whsec\n', { mode: 0o600 })
    for (const url of ['ftp://example.com/in', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const r = await cli('alerts', 'add-hook', url, '--format', 'slack')
      expect(r.code, url).toBe(2)
      expect(r.text).toMatch(/^error: the hook URL (must be http:\/\/ or https:\/\/|is not a URL)/)
    }
    expect((await cli('alerts', 'add-hook', 'https://example.com/in', '--format', 'json')).text).toMatch(
      /^error: a json hook is signed: --secret-file F/
    )
    expect(
      (await cli('alerts', 'add-hook', 'https://example.com/in', '--format', 'slack', '--secret-file', join(dir, 'secret'))).text
    ).toMatch(/^error: a slack hook is not signed/)
    expect((await cli('alerts', 'add-hook', 'https://example.com/in', '--format', 'xml')).code).toBe(2)
    expect((await cli('alerts', 'list-hooks')).text).toBe('no alert hooks')
  })

  it('never prints the secret part of a hook URL, given on the command line or in a file', async () => {
    const url = 'https://hooks.slack.com/services/T0001/B0002/s3cr3tT0ken'
    const onLine = await cli('alerts', 'add-hook', url, '--format', 'slack')
    expect(onLine.code).toBe(0)
    expect(onLine.text).toContain('added alert hook 1: slack to https://hooks.slack.com/services/…')
    expect(onLine.text).toContain('prefer --url-file')
    writeFileSync(join(dir, 'url'), url + '\n', { mode: 0o600 })
    const fromFile = await cli('alerts', 'add-hook', '--url-file', join(dir, 'url'), '--format', 'slack')
    expect(fromFile.code).toBe(0)
    expect(fromFile.text).not.toContain('prefer --url-file')
    const listed = await cli('alerts', 'list-hooks')
    expect(listed.text.split('\n')).toHaveLength(2)
    for (const r of [onLine, fromFile, listed, await cli('alerts', 'log')]) expect(r.text).not.toMatch(/s3cr3t|B0002|T0001/)
    expect((await cli('alerts', 'remove-hook', '1')).code).toBe(0)
    expect((await cli('alerts', 'remove-hook', '1')).text).toMatch(/^error: there is no alert hook 1/)
  })
})

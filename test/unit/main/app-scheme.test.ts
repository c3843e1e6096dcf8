// The app:// handler's decisions under plain Node, on a real folder: what it serves (the
// renderer's files, the right MIME type, the CSP header on every answer) and what it
// refuses (every traversal form, a symlink out of the folder, foreign hosts and origins,
// other methods).
import { mkdtempSync, realpathSync } from 'node:fs'
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerAppRequest, appPageUrl, isAppOriginUrl, mimeType, type AppResponse } from '../../../src/main/app-scheme'

const CSP = "default-src 'none'; script-src 'self'"
const SECRET = 'operator secret: never served'

// base/renderer is served; base/secret.txt, base/renderer-evil/ and base/outside/ must never be.
const base = realpathSync(mkdtempSync(join(tmpdir(), 'rd-app-scheme-')))
const root = join(base, 'renderer')

beforeAll(async () => {
  await mkdir(join(root, 'assets', 'nested'), { recursive: true })
  await writeFile(join(root, 'index.html'), '<!doctype html><title>Rampdesk</title>')
  await writeFile(join(root, 'assets', 'index-abc.js'), 'export const x = 1')
  await writeFile(join(root, 'assets', 'index-abc.css'), 'body{}')
  await writeFile(join(root, 'assets', 'nested', 'font.woff2'), 'w')
  await writeFile(join(root, 'favicon.svg'), '<svg/>')
  await writeFile(join(root, 'data.bin'), 'bytes')
  await writeFile(join(base, 'secret.txt'), SECRET)
  await mkdir(join(base, 'renderer-evil'))
  await writeFile(join(base, 'renderer-evil', 'secret.txt'), SECRET)
  await mkdir(join(base, 'outside'))
  await writeFile(join(base, 'outside', 'secret.txt'), SECRET)
  // Links inside the folder: one to a file outside, one to a folder outside, one that stays inside.
  await symlink(join(base, 'secret.txt'), join(root, 'escape.txt'))
  await symlink(join(base, 'outside'), join(root, 'outside-dir'))
  await symlink(join(root, 'favicon.svg'), join(root, 'alias.svg'))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const get = (url: string, extra: { method?: string; initiatorOrigin?: string } = {}) => answerAppRequest(root, { url, ...extra }, CSP)
const text = (r: AppResponse) => new TextDecoder().decode(r.body)

describe('serving the renderer folder', () => {
  it.each([
    ['app://rampdesk/index.html?view=main', 'index.html', 'text/html; charset=utf-8'],
    ['app://rampdesk/', 'index.html', 'text/html; charset=utf-8'],
    ['app://rampdesk/assets/index-abc.js', 'assets/index-abc.js', 'text/javascript; charset=utf-8'],
    ['app://rampdesk/assets/index-abc.css', 'assets/index-abc.css', 'text/css; charset=utf-8'],
    ['app://rampdesk/favicon.svg', 'favicon.svg', 'image/svg+xml'],
    ['app://rampdesk/assets/nested/font.woff2', 'assets/nested/font.woff2', 'font/woff2'],
    ['app://rampdesk/data.bin', 'data.bin', 'application/octet-stream'],
    ['app://rampdesk/alias.svg', 'favicon.svg', 'image/svg+xml']
  ])('%s is %s as %s', async (url, file, type) => {
    const r = await get(url)
    expect(r.status).toBe(200)
    expect(r.headers['Content-Type']).toBe(type)
    expect(r.file).toBe(join(root, file))
    expect(Buffer.from(r.body).equals(await readFile(join(root, file)))).toBe(true)
  })

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('app://rampdesk/index.html', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const r = await get('app://rampdesk/index.html', { method })
      expect(r.status, method).toBe(405)
      expect(r.headers.Allow).toBe('GET, HEAD')
    }
  })

  it('answers 404 for what is not a file of the folder', async () => {
    for (const url of [
      'app://rampdesk/missing.js',
      'app://rampdesk/assets',
      'app://rampdesk/assets/',
      'app://rampdesk/%252e%252e%252fsecret.txt'
    ])
      expect((await get(url)).status, url).toBe(404)
  })

  it('every answer carries the CSP, nosniff and same-origin resource policy headers, errors included', async () => {
    const answers = await Promise.all([
      get('app://rampdesk/index.html'),
      get('app://rampdesk/assets/index-abc.js'),
      get('app://rampdesk/assets/index-abc.css'),
      get('app://rampdesk/missing.js'),
      get('app://rampdesk/..%2Fsecret.txt'),
      get('app://rampdesk/%C0%AE'),
      get('app://rampdesk/index.html', { method: 'POST' }),
      get('app://evil/index.html'),
      get('app://rampdesk/index.html', { initiatorOrigin: 'https://evil.example' })
    ])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 403, 400, 405, 404, 403])
    for (const a of answers) {
      expect(a.headers['Content-Security-Policy']).toBe(CSP)
      expect(a.headers['X-Content-Type-Options']).toBe('nosniff')
      expect(a.headers['Cross-Origin-Resource-Policy']).toBe('same-origin')
      expect(a.headers['Content-Type']).toBeTruthy()
    }
  })

  it('mimeType ignores the case of the extension', () => {
    expect(mimeType('/x/INDEX.HTML')).toBe('text/html; charset=utf-8')
    expect(mimeType('/x/noext')).toBe('application/octet-stream')
  })
})

describe('path containment', () => {
  it.each([
    ['an encoded slash after ..', 'app://rampdesk/..%2Fsecret.txt'],
    ['an encoded slash, lower case', 'app://rampdesk/..%2f..%2fsecret.txt'],
    ['encoded dots and slash inside a folder', 'app://rampdesk/assets/%2e%2e%2f%2e%2e%2fsecret.txt'],
    ['a sibling folder sharing the prefix', 'app://rampdesk/..%2Frenderer-evil%2Fsecret.txt'],
    ['a raw backslash', 'app://rampdesk/..\\secret.txt'],
    ['an encoded backslash', 'app://rampdesk/..%5Csecret.txt'],
    ['encoded dots with a backslash', 'app://rampdesk/%2e%2e%5c%2e%2e%5csecret.txt'],
    ['a Windows drive path', 'app://rampdesk/C:/Windows/win.ini'],
    ['an encoded Windows drive path', 'app://rampdesk/C%3A%5CWindows%5Cwin.ini'],
    ['a NUL byte', 'app://rampdesk/index.html%00.js'],
    ['a NUL byte before traversal', 'app://rampdesk/%00/..%2Fsecret.txt'],
    ['a symlink to a file outside', 'app://rampdesk/escape.txt'],
    ['a symlink to a folder outside', 'app://rampdesk/outside-dir/secret.txt']
  ])('refuses %s (403)', async (_what, url) => {
    const r = await get(url)
    expect(r.status).toBe(403)
    expect(text(r)).not.toContain(SECRET)
    expect(r.file).toBeUndefined()
  })

  it.each([
    // The URL parser resolves these before the handler sees them: they land inside the folder, where no such file is.
    ['dot segments', 'app://rampdesk/../../secret.txt'],
    ['encoded dot segments', 'app://rampdesk/%2e%2e/%2e%2e/secret.txt'],
    ['mixed dot segments', 'app://rampdesk/.%2e/secret.txt'],
    // A leading slash never makes the path absolute: it is taken relative to the folder.
    ['an absolute path', `app://rampdesk/${encodeURIComponent(join(base, 'secret.txt'))}`],
    ['a double slash', `app://rampdesk/${join(base, 'secret.txt')}`],
    ['double encoding', 'app://rampdesk/%252e%252e%252fsecret.txt']
  ])('keeps %s inside the folder (404, nothing served)', async (_what, url) => {
    const r = await get(url)
    expect(r.status).toBe(404)
    expect(text(r)).not.toContain(SECRET)
  })

  it('malformed percent-encoding is refused (400)', async () => {
    expect((await get('app://rampdesk/%E0%A4%A')).status).toBe(400)
  })

  it('whatever the path, a 200 is a file inside the folder and never the secret (fast-check)', async () => {
    const segment = fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '.%2e',
      '..%2f',
      '..%2F',
      '%2e%2e%2f',
      '..%5c',
      '..\\',
      '%00',
      '',
      'assets',
      'index.html',
      'secret.txt',
      'escape.txt',
      'outside-dir',
      'renderer',
      'renderer-evil',
      'alias.svg'
    )
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (segments) => {
        const r = await get(`app://rampdesk/${segments.join('/')}`)
        expect(text(r)).not.toContain(SECRET)
        if (r.status === 200) {
          expect(r.file!.startsWith(root + '/')).toBe(true)
          expect(Buffer.from(r.body).equals(await readFile(r.file!))).toBe(true)
        } else {
          expect([400, 403, 404]).toContain(r.status)
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe('who may ask', () => {
  it.each([
    ['another host', 'app://evil/index.html'],
    ['a host that extends ours', 'app://rampdesk.evil/index.html'],
    ['user info', 'app://user@rampdesk/index.html'],
    ['another scheme', 'file:///index.html'],
    ['a port', 'app://rampdesk:8080/index.html']
  ])('%s is not served', async (_what, url) => {
    expect((await get(url)).status).toBe(404)
  })

  it('a request issued by another origin is refused; ours and the app itself are answered', async () => {
    for (const origin of ['https://evil.example', 'null', 'app://evil', 'file://'])
      expect((await get('app://rampdesk/index.html', { initiatorOrigin: origin })).status, origin).toBe(403)
    expect((await get('app://rampdesk/assets/index-abc.js', { initiatorOrigin: 'app://rampdesk' })).status).toBe(200)
    expect((await get('app://rampdesk/index.html')).status).toBe(200)
  })

  it('appPageUrl names a page of the app origin, isAppOriginUrl recognises exactly that origin', () => {
    expect(appPageUrl('main')).toBe('app://rampdesk/index.html?view=main')
    expect(appPageUrl('tray')).toBe('app://rampdesk/index.html?view=tray')
    expect(isAppOriginUrl(appPageUrl('tray'))).toBe(true)
    for (const url of ['app://rampdesk@evil/', 'app://rampdesk:1/', 'app://evil/', 'file:///x', '::'])
      expect(isAppOriginUrl(url), url).toBe(false)
  })
})

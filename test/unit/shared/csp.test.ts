// One CSP for every page: the Electron session header, the browser harness header and
// index.html's meta tag must say the same thing.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy } from '../../../src/shared/csp'
import { metaContentSecurityPolicy } from '../../support/meta-csp'

const META_CONTENT_SECURITY_POLICY = metaContentSecurityPolicy(CONTENT_SECURITY_POLICY)

describe('content security policy', () => {
  it('index.html carries the shared policy in its meta tag', () => {
    const html = readFileSync('src/renderer/index.html', 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1]
    expect(meta).toBe(META_CONTENT_SECURITY_POLICY)
  })

  it('the header policy is the meta policy plus frame-ancestors (which a meta tag cannot carry)', () => {
    const directives = (p: string) => new Set(p.split('; '))
    const header = directives(CONTENT_SECURITY_POLICY)
    const meta = directives(META_CONTENT_SECURITY_POLICY)
    expect([...header].filter((d) => !meta.has(d))).toEqual(["frame-ancestors 'none'"])
    expect([...meta].every((d) => header.has(d))).toBe(true)
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe/)
  })

  it('only the dev server variant allows inline styles and the HMR socket', () => {
    const dev = devContentSecurityPolicy('http://localhost:5173')
    expect(dev).toContain("style-src 'self' 'unsafe-inline'")
    expect(dev).toContain("connect-src 'self' ws://localhost:5173 http://localhost:5173")
    expect(dev).toContain("script-src 'self'")
    expect(dev).not.toContain('unsafe-eval')
  })
})

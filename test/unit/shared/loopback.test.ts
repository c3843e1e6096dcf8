// Which hosts are loopback by definition, and which base URLs a live profile may use:
// https anywhere, http only to this computer, and no look-alike passes.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { isLoopbackHost, liveBaseUrlProblem, originOf } from '../../../src/shared/loopback'

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LocalHost', '127.0.0.1', '127.255.255.254', '127.0.0.0', '::1', '[::1]', '0:0:0:0:0:0:0:1', '0::1', '::0001'])(
    '%s is loopback',
    (h) => expect(isLoopbackHost(h)).toBe(true)
  )

  it.each([
    '',
    'localhost.',
    'sub.localhost',
    'localhost.evil.test',
    '127.0.0.1.evil.test',
    '127.0.0.256',
    '127.0.0',
    '127.1',
    '0x7f.0.0.1',
    '128.0.0.1',
    '0.0.0.0',
    '::',
    '::2',
    '::ffff:127.0.0.1',
    '1::1',
    '0:0:0:0:0:0:0:0:1',
    '[::1',
    'example.test'
  ])('%s is not loopback', (h) => expect(isLoopbackHost(h)).toBe(false))

  it('no host outside 127.0.0.0/8 passes (fast-check over IPv4)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isLoopbackHost(ip)).toBe(ip.startsWith('127.'))
      })
    )
  })
})

describe('liveBaseUrlProblem', () => {
  it('allows https anywhere and http to loopback only', () => {
    for (const ok of [
      'https://api.example.test',
      'https://10.0.0.5:8443/gw',
      'http://127.0.0.1:8787',
      'http://[::1]:1',
      'http://localhost'
    ])
      expect(liveBaseUrlProblem(ok), ok).toBeNull()
    for (const bad of ['http://api.example.test', 'http://127.0.0.1.nip.io', 'http://[::ffff:7f00:1]', 'ftp://127.0.0.1', 'nonsense'])
      expect(liveBaseUrlProblem(bad), bad).not.toBeNull()
  })

  it('judges the host a URL parser sees, not the text: userinfo and fragments cannot smuggle a loopback name', () => {
    expect(liveBaseUrlProblem('http://127.0.0.1@evil.test')).toMatch(/must use https/)
    expect(liveBaseUrlProblem('http://evil.test#@127.0.0.1')).toMatch(/must use https/)
    expect(liveBaseUrlProblem('http://evil.test\\@127.0.0.1')).toMatch(/must use https/)
    // Short and hex IPv4 forms are normalised by the URL parser to 127.0.0.1, which is loopback.
    expect(liveBaseUrlProblem('http://0x7f000001:1')).toBeNull()
  })

  it('originOf compares scheme, host and port', () => {
    expect(originOf('https://a.test/x')).toBe(originOf('https://a.test:443/y'))
    expect(originOf('https://a.test')).not.toBe(originOf('http://a.test'))
    expect(originOf('https://a.test')).not.toBe(originOf('https://a.test:8443'))
    expect(originOf('not a url')).toBeNull()
  })
})

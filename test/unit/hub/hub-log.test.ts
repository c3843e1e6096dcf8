// The hub's log in its two formats: text lines exactly as before (fields left out), json
// lines with time, level, msg and the fields, and the secret scrubbed from both.
import { describe, expect, it } from 'vitest'
import { createHubLog } from '../../../src/hub/hub-log'

const at = Date.parse('2026-01-02T03:04:05.678Z')

describe('hub log', () => {
  it('writes text lines as it always did, without the fields', () => {
    const lines: string[] = []
    const log = createHubLog({ write: (l) => void lines.push(l), now: () => at })
    log.info('hub started\nsecond line', { operator: 'ana' })
    log.warn('careful')
    expect(lines).toEqual(['2026-01-02T03:04:05.678Z INFO hub started second line', '2026-01-02T03:04:05.678Z WARN careful'])
  })

  it('writes one JSON object per line in the json format: time, level, msg and the fields', () => {
    const lines: string[] = []
    const log = createHubLog({ write: (l) => void lines.push(l), now: () => at, format: 'json' })
    log.info('ana (operator) quotes:get: ok', { operator: 'ana', ok: true })
    log.error('two\nlines', { time: 'shadow', nested: { n: 1 } })
    expect(lines).toHaveLength(2)
    expect(lines.every((l) => !l.includes('\n'))).toBe(true)
    expect(JSON.parse(lines[0]!)).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      level: 'info',
      msg: 'ana (operator) quotes:get: ok',
      operator: 'ana',
      ok: true
    })
    // A field named like one of the line's own keys does not shadow it.
    expect(JSON.parse(lines[1]!)).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      level: 'error',
      msg: 'two\nlines',
      _time: 'shadow',
      nested: { n: 1 }
    })
  })

  it('scrubs the secret from the message and from every field, in both formats', () => {
    const secret = 'super-secret-value-1234'
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = []
      const log = createHubLog({ write: (l) => void lines.push(l), format, redact: () => [secret] })
      log.warn(`the service said ${secret}`, { error: `quoted ${secret}`, deep: { list: [secret] } })
      expect(lines.join('\n')).not.toContain(secret)
      expect(lines.join('\n')).toContain('[redacted]')
    }
  })

  it('drops the user information of every URL from the message and the fields, in both formats', () => {
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = []
      const log = createHubLog({ write: (l) => void lines.push(l), format })
      log.info('ada (admin) webhooks:setUrl: failed: cannot reach https://hookuser:hunter22@hooks.example/in', {
        url: 'https://hookuser:hunter22@hooks.example/in'
      })
      expect(lines.join('\n')).not.toContain('hunter22')
      expect(lines.join('\n')).not.toContain('hookuser')
      expect(lines.join('\n')).toContain('https://[redacted]@hooks.example/in')
    }
  })
})

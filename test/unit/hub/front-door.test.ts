// The front door's pure parts: which server a request line goes to, and the path a log line may show.
import { describe, expect, it } from 'vitest'
import { clipPath, routeOf } from '../../../src/hub/front-door'

describe('routeOf', () => {
  it('sends /webhook (with or without a query) to the webhook server, everything else to the main one', () => {
    expect(routeOf('/webhook')).toBe('webhook')
    expect(routeOf('/webhook?x=1')).toBe('webhook')
    for (const t of ['/webhook/', '/webhooks', '/rpc/app:info', '/events', '//webhook', '*', 'http://x/webhook'])
      expect(routeOf(t), t).toBe('main')
  })
})

describe('clipPath', () => {
  it('drops the query, replaces what is not printable ASCII, and keeps at most 100 characters with the length', () => {
    expect(clipPath('/rpc/app:info?token=secret')).toBe('/rpc/app:info')
    expect(clipPath('/a\u001b[31mb c\u00e9')).toBe('/a?[31mb?c?')
    const long = `/rpc/${'x'.repeat(2000)}`
    expect(clipPath(long)).toBe(`${long.slice(0, 100)}… (${long.length} characters)`)
  })
})

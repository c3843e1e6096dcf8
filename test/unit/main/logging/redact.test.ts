// The support log's redaction: credentials, signatures, payloads and wallet addresses
// never pass, under a telling key or inside free text; what support needs stays readable.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { auditDetail, AUDIT_DETAIL_CHARS, redactForLog, redactText, redactUrlCredentials } from '../../../../src/main/logging/redact'
import { sampleAddress, sampleTxHash } from '../../../../src/sandbox/sample-addresses'
import { mulberry32 } from '../../../../src/sandbox/rng'
import { REFERENCE_CHAIN_DETAILS } from '../../../../src/sandbox/reference-chains'
import { encodePayload, signPayload } from '../../../../src/shared/api/signature'

const SECRET = 'sk_live_4f9a0c1e2b3d4f5a6b7c8d9e0f1a2b3c'

describe('redactForLog: keys', () => {
  it('hides the value of every key that names a credential, whatever its case or separators', () => {
    const out = redactForLog({
      apiSecret: SECRET,
      api_key: 'key-1',
      'X-SERVICE-APIKEY': 'key-2',
      'x-service-signature': 'abc',
      Authorization: 'Bearer t',
      password: 'p',
      token: 't',
      cookie: 'rampdesk=1',
      privateKey: 'k'
    }) as Record<string, unknown>
    expect(Object.values(out)).toEqual(Array(9).fill('[redacted]'))
  })

  it('hides payloads, bodies, records and headers whole, never a field of them', () => {
    const out = redactForLog({ payload: 'eyJ0aW1lc3RhbXAi', body: { orderId: 1 }, record: { walletAddress: 'x' }, headers: {}, data: [1] })
    expect(out).toEqual({
      payload: '[redacted payload]',
      body: '[redacted payload]',
      record: '[redacted payload]',
      headers: '[redacted payload]',
      data: '[redacted payload]'
    })
  })

  it('hides wallet addresses and memos by key, also the ones no pattern could tell (an EOS account name)', () => {
    expect(redactForLog({ walletAddress: 'merchantacct', depositAddress: 'x', address: 'y', memo: '123456' })).toEqual({
      walletAddress: '[address]',
      depositAddress: '[address]',
      address: '[address]',
      memo: '[address]'
    })
  })

  it('keeps what support needs: endpoints, statuses, timings, ids, kinds, and null as null', () => {
    const line = {
      endpoint: 'merchantHistory',
      status: 429,
      latencyMs: 312,
      budgetWaitMs: 0,
      retry: true,
      orderId: 100042,
      outcome: 'rate_limited',
      error: 'Too many requests for merchantHistory, try again at 12:00:05',
      walletAddress: null
    }
    expect(redactForLog(line)).toEqual(line)
  })

  it('walks arrays and nested objects, keeps errors as name and message, and survives cycles and depth', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    let deep: Record<string, unknown> = { secret: SECRET }
    for (let i = 0; i < 20; i++) deep = { next: deep }
    const err = new Error(`refused signature=${'ab'.repeat(64)}`)
    expect(redactForLog([{ token: 'x' }, err, cyclic])).toEqual([
      { token: '[redacted]' },
      { name: 'Error', message: 'refused signature=[redacted]' },
      { a: 1, self: '[circular]' }
    ])
    expect(JSON.stringify(redactForLog(deep))).not.toContain(SECRET)
  })

  it('does not change its input', () => {
    const input = { apiSecret: SECRET, nested: { walletAddress: 'x' } }
    const copy = structuredClone(input)
    redactForLog(input)
    expect(input).toEqual(copy)
  })
})

describe('redactText: free text', () => {
  it('hides a Solana address with no digit in it (found by the property below)', () => {
    const text = 'order 100042 paid to DTFZiPsTyrjzyaexcHVPcWQcPKacebJDWjBCEmVWuxmn, status 4'
    expect(redactText(text)).not.toContain('DTFZiPsTyrjzyaexcHVPcWQcPKacebJDWjBCEmVWuxmn')
    expect(redactText(text)).toContain('order 100042 paid to')
  })

  it('hides the value after a telling word', () => {
    expect(redactText(`secret=${SECRET} next`)).toBe('secret=[redacted] next')
    expect(redactText('apiKey: live-key-7, then')).toBe('apiKey: [redacted], then')
    expect(redactText(`{"apiSecret":"${SECRET}","n":1}`)).toBe('{"apiSecret":"[redacted]","n":1}')
    expect(redactText('X-SERVICE-SIGNATURE=deadbeef')).toBe('X-SERVICE-SIGNATURE=[redacted]')
  })

  it('keeps ordinary sentences about those things readable', () => {
    for (const s of [
      'the signature does not verify over the payload header',
      'no API secret is stored for profile "Live"',
      'Request expired: timestamp 1718000000000 is older than 60 s',
      'MaxListenersExceededWarning: Possible EventTarget memory leak detected',
      'the inbox could not listen on 127.0.0.1:8080: EADDRINUSE'
    ])
      expect(redactText(s)).toBe(s)
  })

  it('hides a signature and a signed payload header as the service and the sandbox make them', () => {
    const payload = encodePayload(1718000000000, { orderId: 100042, walletAddress: '0xabc' })
    const signature = signPayload(payload, SECRET)
    const text = redactText(`delivery refused: payload ${payload} signed ${signature}`)
    expect(text).not.toContain(payload)
    expect(text).not.toContain(signature)
    expect(text).not.toContain(signature.slice(0, 32))
  })

  it('hides every sample wallet address and transaction hash of every chain the sandbox serves, inside a sentence', () => {
    const symbols = [...Object.values(REFERENCE_CHAIN_DETAILS).map((c) => c.chainSymbol), 'btc'].filter((s) => s !== 'eos')
    fc.assert(
      fc.property(fc.constantFrom(...symbols), fc.integer(), (symbol, seed) => {
        const rng = mulberry32(seed)
        const { address } = sampleAddress(symbol, rng)
        const hash = sampleTxHash(symbol, rng)
        const text = redactText(`order 100042 paid to ${address} (tx ${hash}), status 4`)
        expect(text).not.toContain(address)
        expect(text).not.toContain(hash)
        expect(text).toContain('order 100042')
        expect(text).toContain('status 4')
      }),
      { numRuns: 300 }
    )
  })

  it('is idempotent: redacting twice changes nothing more', () => {
    const once = redactText(`to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed with token=abc`)
    expect(redactText(once)).toBe(once)
    expect(once).toBe('to [address] with token=[redacted]')
  })
})

describe('auditDetail: what an audit log keeps of an action', () => {
  const wallet = '0x52908400098527886E0F7030069857D2E4169EE7'
  it('redacts with the support log’s rules: credentials, payloads and wallet addresses', () => {
    const d = auditDetail({ input: { walletAddress: wallet, note: `to ${wallet}`, payload: 'eyJ0', signature: 'ab'.repeat(64) }, ok: true })
    expect(d).toEqual({
      input: { walletAddress: '[address]', note: 'to [address]', payload: '[redacted payload]', signature: '[redacted]' },
      ok: true
    })
  })

  it('redacts before it clips: an address or secret in a long input never survives as a clipped string', () => {
    // Values only their key marks as an address or a secret: a clipped string would have lost the key.
    const long = { input: { walletAddress: 'TAq7 memo 42', passphrase: 'horse staple', note: 'x'.repeat(AUDIT_DETAIL_CHARS * 2) } }
    const d = auditDetail(long)
    const text = JSON.stringify(d)
    expect(text).toMatch(/… \(\d+ characters\)/)
    expect(text).not.toContain('TAq7 memo 42')
    expect(text).not.toContain('horse staple')
    expect(text.length).toBeLessThan(AUDIT_DETAIL_CHARS + 100)
  })

  it('keeps booleans under any key, and the paths of files the app wrote', () => {
    const path = '/tmp/rampdesk-services-zCKvAB/exports/rampdesk-onramp-2026-11-24T19-03-14-783Z.csv'
    expect(auditDetail({ credentialDeleted: true, secretSet: false, path, file: path })).toEqual({
      credentialDeleted: true,
      secretSet: false,
      path,
      file: path
    })
    // Under a path's key, only an absolute path is kept as written.
    expect(auditDetail({ file: 'apiSecret=hunter2hunter2', path: '0x52908400098527886E0F7030069857D2E4169EE7' })).toEqual({
      file: 'apiSecret=[redacted]',
      path: '[address]'
    })
    // Not a boolean: still redacted.
    expect(auditDetail({ credential: 'abc', token: 1234 })).toEqual({ credential: '[redacted]', token: '[redacted]' })
  })

  it('keeps a short detail whole', () => {
    expect(auditDetail({ name: 'ada', role: 'admin' })).toEqual({ name: 'ada', role: 'admin' })
  })
})

describe('credentials in URLs', () => {
  it('drops the user information of every URL, in free text and in an audit detail, and keeps the rest', () => {
    expect(redactText('set to https://hookuser:hunter2@hooks.example.com/in?x=1 at noon')).toBe(
      'set to https://[redacted]@hooks.example.com/in?x=1 at noon'
    )
    expect(redactText('postgres://hub:pw@db.internal:5432/rampdesk and http://tok3n@h/')).toBe(
      'postgres://[redacted]@db.internal:5432/rampdesk and http://[redacted]@h/'
    )
    // A password holding '@' or '"' goes whole: nothing of it is left after the host.
    expect(redactText('to https://u:p@ss@host.example/x and postgres://u:p"w@db/x')).toBe(
      'to https://[redacted]@host.example/x and postgres://[redacted]@db/x'
    )
    // An "@" after the host is no credential: the URL stays as it is.
    expect(redactText('https://hooks.example.com/a@b?to=x@y')).toBe('https://hooks.example.com/a@b?to=x@y')
    expect(auditDetail({ input: { url: 'https://ops:s3cr3t-pass@merchant.example/hook' }, ok: true })).toEqual({
      input: { url: 'https://[redacted]@merchant.example/hook' },
      ok: true
    })
    expect(redactUrlCredentials('no URL here, user:pass@host')).toBe('no URL here, user:pass@host')
  })

  it('leaves no user or password of any URL a parser accepts, and the host and path as they were', () => {
    const part = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=%-]{1,24}$/)
    fc.assert(
      fc.property(
        part,
        part,
        fc.constantFrom('https', 'http', 'postgres', 'amqp'),
        fc.stringMatching(/^[a-z0-9-]{1,20}$/),
        (user, password, scheme, path) => {
          const u = new URL(`${scheme}://host.example:8443/${path}`)
          u.username = `Q${user}`
          u.password = `Z${password}`
          const out = redactUrlCredentials(`see ${u.href}.`)
          expect(out).toBe(`see ${scheme}://[redacted]@host.example:8443/${path}.`)
          expect(redactText(u.href)).not.toContain(`${u.username}:${u.password}`)
        }
      ),
      { numRuns: 300 }
    )
  })
})

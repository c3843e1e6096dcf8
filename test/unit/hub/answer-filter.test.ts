// What each role is shown of an answer or event: admins all of it, operators every URL without
// its user information, viewers that and no trace of the service's address.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerFilter, SERVICE_PLACEHOLDER } from '../../../src/hub/answer-filter'

const answer = {
  url: 'https://hookuser:hunter22@hooks.example/in',
  nested: [{ message: 'connect ECONNREFUSED api.ramp.example:8443 (https://api.ramp.example:8443/service/api/x)' }],
  dns: 'getaddrinfo ENOTFOUND api.ramp.example',
  hub: 'http://127.0.0.1:8790/webhook',
  n: 3,
  none: null
}

describe('answer filter', () => {
  it('gives an admin the answer as it is (the same object)', () => {
    expect(answerFilter('admin', 'https://api.ramp.example:8443/')(answer)).toBe(answer)
  })

  it('gives an operator every URL without its user information, and the service as it is', () => {
    const out = answerFilter('operator', 'https://api.ramp.example:8443/')(answer)
    expect(out.url).toBe('https://[redacted]@hooks.example/in')
    expect(out.nested).toBe(answer.nested)
    expect(out.dns).toBe(answer.dns)
    expect(answer.url).toContain('hunter22')
  })

  it('gives a viewer no base URL, host or host name of the service, and leaves the hub’s own address alone', () => {
    const out = answerFilter('viewer', 'https://api.ramp.example:8443/')(answer)
    expect(JSON.stringify(out)).not.toMatch(/hunter22|hookuser|api\.ramp\.example/)
    expect(out.nested[0]!.message).toBe(`connect ECONNREFUSED ${SERVICE_PLACEHOLDER} (${SERVICE_PLACEHOLDER}/service/api/x)`)
    expect(out.dns).toBe(`getaddrinfo ENOTFOUND ${SERVICE_PLACEHOLDER}`)
    expect(out.hub).toBe(answer.hub)
    expect(out).toMatchObject({ n: 3, none: null })
    // A service on this machine: its address and port go, another port of the same address stays.
    const local = answerFilter('viewer', 'http://127.0.0.1:9555')({ a: 'connect ECONNREFUSED 127.0.0.1:9555', b: answer.hub })
    expect(local).toEqual({ a: `connect ECONNREFUSED ${SERVICE_PLACEHOLDER}`, b: answer.hub })
  })

  it('copies nothing when nothing changes', () => {
    const rows = { rows: [{ orderId: 1, status: 'ok', tags: ['a', 'b'] }] }
    expect(answerFilter('viewer', 'https://api.ramp.example')(rows)).toBe(rows)
  })

  it('leaves no password of any URL anywhere in an answer to a viewer or an operator', () => {
    const secretish = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=-]{6,20}$/)
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 })
      )
    })).value
    fc.assert(
      fc.property(json, secretish, fc.constantFrom('viewer', 'operator') as fc.Arbitrary<'viewer' | 'operator'>, (shape, pw, role) => {
        const planted = { shape, deep: [{ at: `failed: https://u:Zq${pw}@receiver.example/x` }] }
        const out = answerFilter(role, 'https://api.ramp.example')(planted)
        expect(JSON.stringify(out)).not.toContain(`Zq${pw}@`)
      }),
      { numRuns: 200 }
    )
  })
})

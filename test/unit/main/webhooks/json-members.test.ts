import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hasDuplicateMembers } from '../../../../src/main/webhooks/json-members'

describe('hasDuplicateMembers', () => {
  it('finds a member named twice at any depth, also when one name is escaped', () => {
    expect(hasDuplicateMembers('{"status":-1,"orderId":1,"status":5}')).toBe(true)
    expect(hasDuplicateMembers('{"a":{"b":1,"b":2}}')).toBe(true)
    expect(hasDuplicateMembers('{"a":[{"x":1},{"y":2,"y":3}]}')).toBe(true)
    expect(hasDuplicateMembers('{"st\\u0061tus":-1,"status":5}')).toBe(true)
  })

  it('does not confuse values, array items, strings holding quotes or sibling objects with members', () => {
    expect(hasDuplicateMembers('{"a":"a","b":"a"}')).toBe(false)
    expect(hasDuplicateMembers('{"a":{"x":1},"b":{"x":1}}')).toBe(false)
    expect(hasDuplicateMembers('{"a":["a","a"],"s":"\\"a\\":1,\\"a\\":2"}')).toBe(false)
    expect(hasDuplicateMembers('[{"a":1},{"a":1}]')).toBe(false)
  })

  it('never flags what JSON.stringify writes', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => !hasDuplicateMembers(JSON.stringify(v))))
  })
})

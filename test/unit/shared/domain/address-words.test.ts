// Address and memo rules in words, from the patterns the configuration gives (the live
// service's samples and the simulator's), and null where a pattern is not a simple shape.
import { describe, expect, it } from 'vitest'
import { describePattern, rulesInWords } from '../../../../src/shared/domain/address-words'

const B58 = '1-9A-HJ-NP-Za-km-z'

describe('describePattern', () => {
  it.each([
    ['^(0x)[0-9A-Fa-f]{40}$', '"0x" followed by 40 hexadecimal characters (0-9, a-f, either case)'],
    [`^T[${B58}]{33}$`, '"T" followed by 33 base58 characters (letters and digits but 0, O, I and l)'],
    [`^[${B58}]{32,44}$`, '32 to 44 base58 characters (letters and digits but 0, O, I and l)'],
    ['^(bnb1)[0-9a-z]{38}$', '"bnb1" followed by 38 lowercase letters or digits'],
    ['^(EQ|UQ)[A-Za-z0-9_-]{46}$', '"EQ" or "UQ" followed by 46 letters, digits, _ or -'],
    ['^[1-5a-z\\.]{1,12}$', '1 to 12 lowercase letters, 1-5 or .'],
    ['^.{0,120}$', 'up to 120 characters of any kind'],
    ['^[0-9A-Za-z\\-_]{1,120}$', '1 to 120 letters, digits, - or _'],
    ['^\\d{1,10}$', '1 to 10 digits'],
    // The /body/flags form the configuration may use.
    ['/^(0x)[0-9A-Fa-f]{40}$/', '"0x" followed by 40 hexadecimal characters (0-9, a-f, either case)']
  ])('%s', (pattern, words) => {
    expect(describePattern(pattern)).toBe(words)
  })

  it('reads a choice of whole patterns as "one of"', () => {
    expect(describePattern(`^(bc1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{11,71}|[13][${B58}]{25,34})$`)).toBe(
      'one of: "bc1" followed by 11 to 71 bech32 characters (lowercase letters and digits but 1, b, i and o); "1" or "3" followed by 25 to 34 base58 characters (letters and digits but 0, O, I and l)'
    )
  })

  it('gives up (null) on what it does not read: no anchors, lookarounds, negated classes, back references', () => {
    for (const p of ['[0-9]{4}', '^a(?=b)$', '^[^0]{3}$', '^(a)\\1$', '^a{2,$', '^((a)$'] as const) expect(describePattern(p)).toBeNull()
  })
})

describe('rulesInWords', () => {
  it('says the address, its checksum and the memo', () => {
    expect(rulesInWords({ addressRegex: '^(0x)[0-9A-Fa-f]{40}$', startingWith: ['0x'], memoRegex: '', scheme: 'eip55' })).toEqual({
      address: '"0x" followed by 40 hexadecimal characters (0-9, a-f, either case)',
      checksum: 'its mixed capital and small letters are a checksum (EIP-55)',
      memo: 'no memo on this network'
    })
    expect(rulesInWords({ startingWith: ['T'], scheme: 'none' })).toEqual({ address: 'starts with "T"', checksum: null, memo: null })
    expect(rulesInWords({ addressRegex: '^(?=T).{34}$', startingWith: ['T'], memoRegex: '^.{1,20}$', scheme: 'tron' }).address).toBe(
      'starts with "T"; see its pattern in the details'
    )
  })
})

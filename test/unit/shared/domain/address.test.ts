import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { bech32, bech32m, base58, base64url, hex } from '@scure/base'
import {
  CHECK_NAMES,
  checkAddress,
  checksumOk,
  checksumSchemeFor,
  compileConfigRegex,
  crc16Xmodem,
  explorerAddressUrl,
  explorerTxUrl,
  toEip55,
  type AddressCheckResult,
  type ChainRules
} from '../../../../src/shared/domain/address'
import type { ChainDetail } from '../../../../src/shared/api/schemas'
import { BTC_CHAIN_DETAIL, REFERENCE_CHAIN_DETAILS } from '../../../../src/sandbox/reference-chains'
import { breakChecksum } from '../../../support/break-checksum'
// The sandbox's sample generators: every sample must pass these checks.
import { sampleAddress, sampleTxHash } from '../../../../src/sandbox/sample-addresses'
// The sandbox's seeded PRNG, so property runs shrink and replay.
import { mulberry32 } from '../../../../src/sandbox/rng'

const chain = (symbol: string): ChainDetail => {
  if (symbol === 'btc') return BTC_CHAIN_DETAIL
  const found = Object.values(REFERENCE_CHAIN_DETAILS).find((c) => c.chainSymbol === symbol)
  if (!found) throw new Error(`no reference chain ${symbol}`)
  return found
}

const failed = (r: AddressCheckResult): string[] => r.checks.filter((c) => !c.ok).map((c) => c.name)
const checksumCheck = (r: AddressCheckResult) => r.checks.find((c) => c.kind === 'checksum')

describe('EIP-55 (vectors from the EIP)', () => {
  const mixed = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'
  ]
  it.each(mixed)('accepts %s and recomputes its checksum', (a) => {
    expect(toEip55(a.slice(2).toLowerCase())).toBe(a)
    const r = checkAddress(chain('erc20'), a)
    expect(r.ok).toBe(true)
    expect(checksumCheck(r)).toMatchObject({ name: CHECK_NAMES.eip55, ok: true })
  })

  it.each([
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50516A8A1E',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26'
  ])('accepts single-case %s but says it is not checksummed', (a) => {
    const r = checkAddress(chain('bep20'), a)
    expect(r.ok).toBe(true)
    expect(checksumCheck(r)?.detail).toMatch(/not checksummed/)
  })

  it('refuses a mixed-case address with one letter case flipped, naming the EIP-55 check', () => {
    const r = checkAddress(chain('erc20'), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')
    expect(r.ok).toBe(false)
    expect(failed(r)).toEqual([CHECK_NAMES.eip55])
    expect(r.explorerUrl).toBeUndefined()
  })

  it('applies to every EVM chain symbol and alias', () => {
    for (const s of [
      'erc20',
      'eth',
      'bep20',
      'bsc',
      'matic20',
      'matic',
      'matic20-test',
      'okc',
      'wemix 3.0',
      'arbitrum',
      'klay',
      'energi'
    ]) {
      expect(checksumSchemeFor(s)).toBe('eip55')
      expect(checksumOk(s, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false)
    }
  })
})

describe('TRON base58check', () => {
  it('accepts the USDT contract TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', () => {
    const r = checkAddress(chain('trc20'), 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
    expect(r.ok).toBe(true)
    expect(checksumCheck(r)?.name).toBe(CHECK_NAMES.tron)
    expect(r.explorerUrl).toBe('https://tronscan.org/#/address/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
  })
  it('refuses a one-character typo on the checksum alone', () => {
    const r = checkAddress(chain('trc20'), 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')
    expect(failed(r)).toEqual([CHECK_NAMES.tron])
    expect(checksumCheck(r)?.detail).toMatch(/checksum/)
  })
  it('refuses a valid base58check payload with the wrong version byte', () => {
    // A NEO address is valid base58check with version 0x17, not TRON's 0x41.
    expect(checkAddress({ chainSymbol: 'trx' }, 'AK2nJJpJr6o664CWJKi1QRXjqeic2zRp8y').checks[0]?.detail).toMatch(/version byte 0x17/)
  })
})

describe('NEO (nep5) base58check', () => {
  it('accepts AK2nJJpJr6o664CWJKi1QRXjqeic2zRp8y and refuses a typo', () => {
    expect(checkAddress(chain('nep5'), 'AK2nJJpJr6o664CWJKi1QRXjqeic2zRp8y').ok).toBe(true)
    expect(failed(checkAddress(chain('nep5'), 'AK2nJJpJr6o664CWJKi1QRXjqeic2zRp8z'))).toEqual([CHECK_NAMES.neo])
  })
})

describe('Bitcoin', () => {
  it.each([
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', /bech32 .*P2WPKH/],
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', /bech32 .*P2WPKH/],
    ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', /P2WSH/],
    ['bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', /bech32m .*taproot/],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', /P2PKH/],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', /P2SH/]
  ])('accepts %s', (a, detail) => {
    const r = checkAddress(BTC_CHAIN_DETAIL, a)
    expect(r.ok).toBe(true)
    expect(checksumCheck(r)?.detail).toMatch(detail)
  })

  it('refuses typos in bech32 and legacy addresses on the checksum alone', () => {
    expect(failed(checkAddress(BTC_CHAIN_DETAIL, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp'))).toEqual([CHECK_NAMES.btc])
    expect(failed(checkAddress(BTC_CHAIN_DETAIL, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'))).toEqual([CHECK_NAMES.btc])
  })

  it('refuses the wrong bech32 variant for the witness version (BIP-350)', () => {
    const program20 = hex.decode('751e76e8199196d454941c45d1b3a323f1433bd6')
    const v0m = bech32m.encode('bc', [0, ...bech32m.toWords(program20)])
    expect(checksumCheck(checkAddress(BTC_CHAIN_DETAIL, v0m))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/version 0 must use bech32/)
    })
    expect(checksumCheck(checkAddress(BTC_CHAIN_DETAIL, 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd'))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/version 1 must use bech32m/)
    })
  })

  it('refuses mixed case and testnet prefixes', () => {
    expect(checksumCheck(checkAddress(BTC_CHAIN_DETAIL, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ'))?.ok).toBe(false)
    const tb = bech32.encode('tb', [0, ...bech32.toWords(new Uint8Array(20).fill(7))])
    expect(checksumCheck(checkAddress({ chainSymbol: 'btc' }, tb))?.ok).toBe(false)
  })
})

describe('BNB Beacon Chain (bep2)', () => {
  it('accepts bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2 with a memo, refuses a typo', () => {
    expect(checkAddress(chain('bep2'), 'bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2', '104528941').ok).toBe(true)
    expect(failed(checkAddress(chain('bep2'), 'bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h3'))).toEqual([CHECK_NAMES.bep2])
    expect(checksumSchemeFor('bnb')).toBe('bep2')
  })
})

describe('Solana', () => {
  it.each([
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    '11111111111111111111111111111111'
  ])('accepts %s', (a) => {
    expect(checkAddress(chain('spl'), a).ok).toBe(true)
  })
  it('refuses base58 that does not decode to 32 bytes', () => {
    const short = base58.encode(new Uint8Array(31).fill(9))
    const r = checkAddress({ chainSymbol: 'sol' }, short)
    expect(r.checks).toEqual([expect.objectContaining({ name: CHECK_NAMES.solana, ok: false, detail: expect.stringMatching(/31 bytes/) })])
    expect(checksumCheck(checkAddress({ chainSymbol: 'sol' }, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D0'))?.detail).toMatch(/base58/)
  })
})

describe('TON', () => {
  it('accepts EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N and its non-bounceable UQ form', () => {
    expect(checkAddress(chain('ton'), 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N').ok).toBe(true)
    const r = checkAddress(chain('ton'), 'UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI')
    expect(r.ok).toBe(true)
    expect(checksumCheck(r)?.detail).toMatch(/non-bounceable/)
  })
  it('refuses a typo on the CRC16 alone', () => {
    expect(failed(checkAddress(chain('ton'), 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M'))).toEqual([CHECK_NAMES.ton])
  })
  it('computes CRC16-XMODEM (check value of "123456789" is 0x31C3)', () => {
    expect(crc16Xmodem(new TextEncoder().encode('123456789'))).toBe(0x31c3)
  })
  it('accepts the standard base64 alphabet and the raw form, refuses mixed alphabets', () => {
    const bytes = base64url.decode('EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N')
    const std = btoa(String.fromCharCode(...bytes))
    expect(checksumOk('ton', std)).toBe(true)
    expect(checksumOk('ton', '0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8')).toBe(true)
    expect(checksumOk('ton', 'EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB+_')).toBe(false)
  })
})

describe('config rules', () => {
  const evm: ChainRules = {
    chainSymbol: 'erc20',
    addressRegex: '^(0x)[0-9A-Fa-f]{40}$',
    memoRegex: '',
    startingWith: ['0x'],
    hashLink: 'https://etherscan.io/tx/'
  }
  const good = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

  it('names every check that ran, in order', () => {
    expect(checkAddress(evm, good).checks.map((c) => c.name)).toEqual([
      CHECK_NAMES.format,
      CHECK_NAMES.prefix,
      CHECK_NAMES.memo,
      CHECK_NAMES.eip55
    ])
  })

  it('reports an invalid addressRegex in the config instead of throwing', () => {
    const r = checkAddress({ ...evm, addressRegex: '^(0x[0-9' }, good)
    expect(r.ok).toBe(false)
    expect(r.checks.find((c) => c.name === CHECK_NAMES.format)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/not a valid regular expression/)
    })
    // The other checks still ran.
    expect(checksumCheck(r)?.ok).toBe(true)
  })

  it('accepts /body/flags regexes and ignores the stateful g flag', () => {
    const c = compileConfigRegex('/^0X[0-9a-f]{40}$/gi')
    expect(c.ok && c.re.flags).toBe('i')
    const r = checkAddress({ ...evm, addressRegex: '/^0X[0-9a-f]{40}$/gi' }, good)
    expect(r.checks[0]?.ok).toBe(true)
    // Twice: with g kept, the second test() would start at lastIndex and fail.
    expect(checkAddress({ ...evm, addressRegex: '/^0X[0-9a-f]{40}$/gi' }, good).checks[0]?.ok).toBe(true)
  })

  it('fails the format check saying in words what the network takes', () => {
    const r = checkAddress(evm, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe')
    expect(r.checks[0]).toMatchObject({
      name: CHECK_NAMES.format,
      ok: false,
      detail: 'does not match: "0x" followed by 40 hexadecimal characters (0-9, a-f, either case)'
    })
    expect(r.checks[0]!.detail).not.toContain('[0-9A-Fa-f]')
  })

  it('treats an empty string in startingWith as any prefix', () => {
    expect(checkAddress({ chainSymbol: 'eos', startingWith: ['abc', ''] }, 'zzz').checks[0]).toMatchObject({
      name: CHECK_NAMES.prefix,
      ok: true
    })
    expect(checkAddress({ chainSymbol: 'eos', startingWith: ['abc', 'x'] }, 'zzz').checks[0]).toMatchObject({
      ok: false,
      detail: 'must start with abc or x'
    })
  })

  it('flags a memo given for a chain that uses none', () => {
    const r = checkAddress(evm, good, '12345')
    expect(failed(r)).toEqual([CHECK_NAMES.memo])
  })

  it('checks the memo against memoRegex where the chain takes one; no memo is fine', () => {
    const bep2 = chain('bep2')
    const a = 'bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2'
    expect(checkAddress(bep2, a).checks.find((c) => c.kind === 'memo')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/no memo given/)
    })
    expect(failed(checkAddress(bep2, a, 'bad memo!'))).toEqual([CHECK_NAMES.memo])
    expect(failed(checkAddress({ ...bep2, memoRegex: '[' }, a, '1'))).toEqual([CHECK_NAMES.memo])
    // An empty memo counts as none.
    expect(checkAddress(evm, good, '  ').ok).toBe(true)
  })

  it('skips rules the config does not give', () => {
    const r = checkAddress({ chainSymbol: 'yota' }, 'anything')
    expect(r).toMatchObject({ ok: true, checks: [], scheme: 'none' })
  })

  it('refuses empty input, stray whitespace and absurd lengths', () => {
    expect(checkAddress(evm, '  ').checks).toEqual([expect.objectContaining({ kind: 'input', ok: false })])
    expect(failed(checkAddress(evm, good + ' '))).toContain(CHECK_NAMES.whitespace)
    expect(checkAddress({ ...evm, addressRegex: '^(a+)+$' }, 'a'.repeat(5000) + 'b').checks).toEqual([
      expect.objectContaining({ kind: 'input', ok: false })
    ])
  })
})

describe('explorer links', () => {
  it('builds tx and address links from http(s) hashLinks only', () => {
    const c = { hashLink: 'https://etherscan.io/tx/' }
    expect(explorerTxUrl(c, '0xabc')).toBe('https://etherscan.io/tx/0xabc')
    expect(explorerAddressUrl(c, '0xdef')).toBe('https://etherscan.io/address/0xdef')
    expect(explorerTxUrl({ hashLink: 'javascript:alert(1)//' }, '0xabc')).toBeUndefined()
    expect(explorerTxUrl({ hashLink: 'file:///etc/' }, '0xabc')).toBeUndefined()
    expect(explorerTxUrl({ hashLink: 'not a url' }, '0xabc')).toBeUndefined()
    expect(explorerTxUrl({}, '0xabc')).toBeUndefined()
    expect(explorerTxUrl(c, '')).toBeUndefined()
  })
  it('encodes the hash and gives no address link when the tx link has no tx segment', () => {
    expect(explorerTxUrl({ hashLink: 'https://x.example/?tx=' }, 'a/b?c')).toBe('https://x.example/?tx=a%2Fb%3Fc')
    expect(explorerAddressUrl({ hashLink: 'https://x.example/?tx=' }, 'abc')).toBeUndefined()
  })
})

const ALL_CHAINS: ChainDetail[] = [...Object.values(REFERENCE_CHAIN_DETAILS), BTC_CHAIN_DETAIL]
const CHECKSUM_CHAINS = ALL_CHAINS.filter((c) => checksumSchemeFor(c.chainSymbol) !== 'none')

describe('sampleAddress', () => {
  it('always produces an address that passes every check for its chain', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_CHAINS), fc.integer(), (c, seed) => {
        const s = sampleAddress(c.chainSymbol, mulberry32(seed))
        const r = checkAddress(c, s.address, s.memo)
        expect(r.checks.filter((x) => !x.ok)).toEqual([])
        expect(r.ok).toBe(true)
      }),
      { numRuns: 600 }
    )
  })

  it('is deterministic for a seed and uses the chain form', () => {
    expect(sampleAddress('bsc', mulberry32(7))).toEqual(sampleAddress('bsc', mulberry32(7)))
    expect(sampleAddress('trx', mulberry32(7)).address).toMatch(/^T/)
    expect(sampleAddress('nep5', mulberry32(7)).address).toMatch(/^A/)
    expect(sampleAddress('bnb', mulberry32(7)).address).toMatch(/^bnb1/)
    expect(sampleAddress('ton', mulberry32(7)).address).toMatch(/^[EU]Q/)
  })

  it('makes transaction hashes in each chain form that link to the explorer', () => {
    const rng = mulberry32(3)
    expect(sampleTxHash('erc20', rng)).toMatch(/^0x[0-9a-f]{64}$/)
    expect(sampleTxHash('trc20', rng)).toMatch(/^[0-9a-f]{64}$/)
    expect(sampleTxHash('bep2', rng)).toMatch(/^[0-9A-F]{64}$/)
    expect(base58.decode(sampleTxHash('spl', rng))).toHaveLength(64)
    expect(base64url.decode(sampleTxHash('ton', rng) + '=')).toHaveLength(32)
    const h = sampleTxHash('bep20', rng)
    expect(explorerTxUrl(chain('bep20'), h)).toBe(`https://bscscan.com/tx/${h}`)
  })
})

describe('breakChecksum', () => {
  it('always fails the checksum and nothing else', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHECKSUM_CHAINS), fc.integer(), fc.boolean(), (c, seed, byGuess) => {
        const s = sampleAddress(c.chainSymbol, mulberry32(seed))
        const broken = byGuess ? breakChecksum(s.address) : breakChecksum(s.address, c.chainSymbol)
        expect(broken).toHaveLength(s.address.length)
        expect([...broken].filter((ch, i) => ch !== s.address[i])).toHaveLength(1)
        const r = checkAddress(c, broken, s.memo)
        expect(r.ok).toBe(false)
        expect(r.checks.filter((x) => !x.ok).map((x) => x.name)).toEqual([
          CHECK_NAMES[checksumSchemeFor(c.chainSymbol) as keyof typeof CHECK_NAMES]
        ])
      }),
      { numRuns: 600 }
    )
  })

  it('breaks the real vectors too', () => {
    expect(checksumOk('erc20', breakChecksum('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'))).toBe(false)
    expect(checksumOk('trc20', breakChecksum('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'))).toBe(false)
    expect(checksumOk('btc', breakChecksum('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'))).toBe(false)
    expect(checksumOk('spl', breakChecksum('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'spl'))).toBe(false)
    expect(checksumOk('ton', breakChecksum('EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N'))).toBe(false)
    // An all-lowercase EVM address has no checksum yet: one upper-case letter gives it a wrong one.
    expect(checksumOk('erc20', breakChecksum('0xde709f2102306220921060314715629080e2fb77'))).toBe(false)
  })

  it('refuses chains without a checksum', () => {
    expect(() => breakChecksum('eosaccount12', 'eos')).toThrow(/no checksum/)
  })
})

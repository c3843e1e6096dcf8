// The address check's guidance over real addresses of each family (the sandbox's sample
// generators and published vectors) and the sandbox's own coins and networks: an address
// is named for its family by that family's rules, never by a loose pattern; a network of
// the same coin that takes it is offered; a space inside is offered out; each failure is
// said once; and the article before a network reads as it is said.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CHECK_NAMES, checkAddress, checksumSchemeFor } from '../../../../src/shared/domain/address'
import {
  addressFamily,
  checksToShow,
  guideAddress,
  withArticle,
  type AddressFamily,
  type NetworkRules
} from '../../../../src/shared/domain/address-guide'
import { BTC_CHAIN_DETAIL, REFERENCE_CHAIN_DETAILS } from '../../../../src/sandbox/reference-chains'
import { BTC_CHAIN_ID, COINS } from '../../../../src/sandbox/catalogue'
import { sampleAddress } from '../../../../src/sandbox/sample-addresses'
import { mulberry32 } from '../../../../src/sandbox/rng'
import { breakChecksum } from '../../../support/break-checksum'

const DETAILS = { ...REFERENCE_CHAIN_DETAILS, [BTC_CHAIN_ID]: BTC_CHAIN_DETAIL }
const NETWORKS: NetworkRules[] = Object.entries(DETAILS).map(([id, d]) => ({
  id: Number(id),
  label: d.chainSymbol.toUpperCase(),
  rules: d
}))
const net = (symbol: string): NetworkRules => {
  const n = NETWORKS.find((x) => x.rules.chainSymbol === symbol)
  if (!n) throw new Error(`no network ${symbol}`)
  return n
}
/** A coin of the sandbox's catalogue, with its networks' rules. */
const coin = (code: string): NetworkRules[] => {
  const c = COINS.find((x) => x.code === code)
  if (!c) throw new Error(`no coin ${code}`)
  return c.networks.map((id) => NETWORKS.find((n) => n.id === id)!)
}
const guide = (address: string, on: string, networks: NetworkRules[]) => {
  const network = net(on)
  return guideAddress({ address, network, networks, result: checkAddress(network.rules, address.trim()) })
}
const sample = (symbol: string, seed = 1): string => sampleAddress(symbol, mulberry32(seed)).address

const FAMILY_OF_SCHEME: Record<string, AddressFamily> = {
  eip55: 'evm',
  btc: 'bitcoin',
  tron: 'tron',
  solana: 'solana',
  ton: 'ton',
  bep2: 'bnb-beacon',
  neo: 'neo'
}
const WITH_FAMILY = NETWORKS.filter((n) => checksumSchemeFor(n.rules.chainSymbol) !== 'none')

describe('an address named for its family, by the family’s own rules', () => {
  it.each([
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'bitcoin', 'a Bitcoin address'],
    ['bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', 'bitcoin', 'a Bitcoin address'],
    ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'tron', 'a TRON address'],
    ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'solana', 'a Solana address'],
    ['EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N', 'ton', 'a TON address'],
    ['bnb1grpf0955h0ykzq3ar5nmum7y6gdfl6lxfn46h2', 'bnb-beacon', 'a BNB Beacon Chain address'],
    ['AK2nJJpJr6o664CWJKi1QRXjqeic2zRp8y', 'neo', 'a NEO address'],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'evm', expect.stringMatching(/^an EVM address/)]
  ])('%s is %s', (a, family, name) => {
    expect(addressFamily(a)).toMatchObject({ family, name })
  })

  it('names every sample of every network with a checksum by that network’s family, and a broken one by none', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WITH_FAMILY), fc.integer(), (n, seed) => {
        const a = sampleAddress(n.rules.chainSymbol, mulberry32(seed)).address
        expect(addressFamily(a)?.family).toBe(FAMILY_OF_SCHEME[checksumSchemeFor(n.rules.chainSymbol)])
        expect(addressFamily(breakChecksum(a, n.rules.chainSymbol))).toBeNull()
      }),
      { numRuns: 400 }
    )
  })

  it('names nothing a loose pattern alone would take: an EOS account, words, a hash', () => {
    for (const a of ['abcdefghij12', 'hello world', 'payment', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'])
      expect(addressFamily(a)).toBeNull()
  })
})

describe('guidance on a refused address', () => {
  it('names a Bitcoin address checked on ERC20 for USDT, and suggests no network (no network of USDT takes it)', () => {
    const g = guide(sample('btc'), 'erc20', coin('usdt'))
    expect(g).toMatchObject({ kind: 'foreign', family: { family: 'bitcoin', name: 'a Bitcoin address' } })
  })

  it('suggests TRC20 for a TRON address checked on ERC20 for USDT', () => {
    const g = guide(sample('trc20'), 'erc20', coin('usdt'))
    expect(g).toMatchObject({ kind: 'other-network', family: { family: 'tron' } })
    expect(g.kind === 'other-network' && g.networks.map((n) => n.label)).toEqual(['TRC20'])
  })

  it('suggests every EVM network of USDT for an EVM address checked on TRC20', () => {
    const g = guide(sample('erc20'), 'trc20', coin('usdt'))
    expect(g.kind === 'other-network' && g.networks.map((n) => n.label).sort()).toEqual(['BEP20', 'ERC20', 'MATIC20'])
  })

  it('suggests BEP2 for a Beacon Chain address checked on BEP20 for BNB, and nothing for USDT, which BEP2 does not carry', () => {
    const a = sample('bep2')
    const bnb = guide(a, 'bep20', coin('bnb'))
    expect(bnb.kind === 'other-network' && bnb.networks.map((n) => n.label)).toEqual(['BEP2'])
    expect(guide(a, 'bep20', coin('usdt'))).toMatchObject({ kind: 'foreign', family: { family: 'bnb-beacon' } })
  })

  it('names a TRON address checked on BEP2 for BNB, with no network suggested', () => {
    expect(guide(sample('trc20'), 'bep2', coin('bnb'))).toMatchObject({ kind: 'foreign', family: { family: 'tron' } })
  })

  it('never suggests a network with no rules of its own (YOTA takes anything by pattern)', () => {
    const withYota = [...coin('usdt'), net('yota'), net('eos')]
    for (const symbol of ['btc', 'trc20', 'bep2', 'spl', 'ton', 'nep5', 'erc20']) {
      const g = guide(sample(symbol), symbol === 'erc20' ? 'trc20' : 'erc20', withYota)
      const suggested = g.kind === 'other-network' ? g.networks.map((n) => n.label) : []
      expect(suggested).not.toContain('YOTA')
      expect(suggested).not.toContain('EOS')
    }
  })

  it('says nothing more of a typo in the network’s own form', () => {
    const a = sample('erc20')
    expect(guide(breakChecksum(a, 'erc20'), 'erc20', coin('usdt'))).toEqual({ kind: 'none' })
    expect(guide(a, 'erc20', coin('usdt'))).toEqual({ kind: 'none' })
  })

  it('offers to take out a space inside the address first, whatever else is wrong', () => {
    const a = sample('trc20')
    expect(guide(`${a.slice(0, 10)} ${a.slice(10)}`, 'trc20', coin('usdt'))).toEqual({ kind: 'whitespace', fixed: a, spaces: 1 })
    expect(guide(`${a.slice(0, 5)}\n${a.slice(5, 20)}  ${a.slice(20)}`, 'erc20', coin('usdt'))).toEqual({
      kind: 'whitespace',
      fixed: a,
      spaces: 2
    })
  })
})

describe('properties', () => {
  const inner = (a: string) =>
    fc.array(fc.tuple(fc.integer({ min: 1, max: a.length - 1 }), fc.constantFrom(' ', '  ', '\t', '\n', '\r\n')), {
      minLength: 1,
      maxLength: 3
    })
  const withSpaces = (a: string, at: Array<[number, string]>): string => {
    let out = a
    for (const [i, ws] of [...at].sort((x, y) => y[0] - x[0])) out = out.slice(0, i) + ws + out.slice(i)
    return out
  }

  it('any address with whitespace inside is offered its fix, and only the whitespace fails on its own network', () => {
    const cases = fc
      .tuple(fc.constantFrom(...WITH_FAMILY), fc.integer())
      .map(([n, seed]) => ({ n, a: sampleAddress(n.rules.chainSymbol, mulberry32(seed)).address }))
      .chain(({ n, a }) => fc.record({ n: fc.constant(n), a: fc.constant(a), at: inner(a), on: fc.constantFrom(...NETWORKS) }))
    fc.assert(
      fc.property(cases, ({ n, a, at, on }) => {
        const spaced = withSpaces(a, at)
        const g = guideAddress({ address: spaced, network: on, networks: NETWORKS, result: checkAddress(on.rules, spaced) })
        expect(g).toMatchObject({ kind: 'whitespace', fixed: a })
        const own = checkAddress(n.rules, spaced)
        expect(own.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([CHECK_NAMES.whitespace])
      }),
      { numRuns: 500 }
    )
  })

  it('a valid address of one network is never suggested as a network that refuses it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NETWORKS),
        fc.integer(),
        fc.subarray(NETWORKS, { minLength: 1 }),
        fc.constantFrom(...NETWORKS),
        (from, seed, coinNetworks, on) => {
          const a = sampleAddress(from.rules.chainSymbol, mulberry32(seed)).address
          const g = guideAddress({ address: a, network: on, networks: coinNetworks, result: checkAddress(on.rules, a) })
          if (g.kind !== 'other-network') return
          for (const n of g.networks) {
            expect(checkAddress(n.rules, a).ok).toBe(true)
            expect(checksumSchemeFor(n.rules.chainSymbol)).toBe(g.family.scheme)
            expect(coinNetworks).toContain(n)
            expect(n.id).not.toBe(on.id)
          }
        }
      ),
      { numRuns: 600 }
    )
  })
})

describe('each failure said once', () => {
  const failures = (address: string, on: string) =>
    checksToShow(checkAddress(net(on).rules, address))
      .filter((c) => !c.ok)
      .map((c) => c.name)

  it('a Bitcoin address on ERC20 fails the format alone (the prefix and the checksum said the same)', () => {
    const r = checkAddress(net('erc20').rules, sample('btc'))
    expect(r.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([CHECK_NAMES.format, CHECK_NAMES.prefix, CHECK_NAMES.eip55])
    expect(failures(sample('btc'), 'erc20')).toEqual([CHECK_NAMES.format])
    expect(failures('hello', 'erc20')).toEqual([CHECK_NAMES.format])
    expect(failures(sample('erc20'), 'trc20')).toEqual([CHECK_NAMES.format])
  })

  it('keeps a checksum failure that says something else (mixed case, a typo), and a prefix the pattern could not put in words', () => {
    expect(failures('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ', 'btc')).toEqual([CHECK_NAMES.format, CHECK_NAMES.btc])
    expect(failures(breakChecksum(sample('trc20'), 'trc20'), 'trc20')).toEqual([CHECK_NAMES.tron])
    const odd = checkAddress({ chainSymbol: 'erc20', addressRegex: '^(?=0x)0x[0-9a-f]{40}$', startingWith: ['0x'] }, 'T123')
    expect(
      checksToShow(odd)
        .filter((c) => !c.ok)
        .map((c) => c.name)
    ).toEqual([CHECK_NAMES.format, CHECK_NAMES.prefix])
  })

  it('says a space inside once, and checks the rest without it', () => {
    const a = sample('erc20')
    expect(failures(`${a.slice(0, 12)} ${a.slice(12)}`, 'erc20')).toEqual([CHECK_NAMES.whitespace])
  })
})

describe('the article before a network', () => {
  it.each([
    ['ERC20', 'an ERC20'],
    ['BEP20', 'a BEP20'],
    ['TRC20', 'a TRC20'],
    ['MATIC20', 'a MATIC20'],
    ['SPL', 'an SPL'],
    ['BEP2', 'a BEP2'],
    ['NEP5', 'an NEP5'],
    ['EOS', 'an EOS'],
    ['KLAY', 'a KLAY'],
    ['OKC', 'an OKC'],
    ['WEMIX 3.0', 'a WEMIX 3.0'],
    ['ARBITRUM', 'an ARBITRUM'],
    ['YOTA', 'a YOTA'],
    ['TON', 'a TON'],
    ['ENERGI', 'an ENERGI'],
    ['BTC', 'a BTC'],
    ['USDT', 'a USDT']
  ])('%s', (symbol, said) => {
    expect(withArticle(symbol)).toBe(said)
  })
})

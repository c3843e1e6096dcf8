// A chain's rules for the address check, out of the config snapshot's open record.
import { describe, expect, it } from 'vitest'
import { chainRules } from '../../../../src/renderer/src/lib/chain-rules'
import { checkAddress } from '../../../../src/shared/domain/address'

const ERC20 = {
  chainName: 'Ethereum',
  addressRegex: '^(0x)[0-9A-Fa-f]{40}$',
  memoRegex: '',
  startingWith: ['0x'],
  networkId: 1,
  hashLink: 'https://etherscan.io/tx/',
  confirmations: 12
}

describe('chainRules', () => {
  it('takes the rule fields the address check reads, and nothing else', () => {
    expect(chainRules('erc20', ERC20)).toEqual({
      chainSymbol: 'erc20',
      addressRegex: '^(0x)[0-9A-Fa-f]{40}$',
      memoRegex: '',
      startingWith: ['0x'],
      hashLink: 'https://etherscan.io/tx/',
      memoUsed: false
    })
  })

  it('says a memo is used only when the chain has a memo rule', () => {
    expect(chainRules('bep2', { ...ERC20, memoRegex: '^[0-9A-Za-z]{1,120}$' }).memoUsed).toBe(true)
    expect(chainRules('erc20', { addressRegex: '^0x' }).memoUsed).toBe(false)
  })

  it("names the chain as its detail does (the service's own symbol), else by the mapping's symbol", () => {
    // The checksum is chosen by symbol: 'eth' (an alias in the mapping) and 'erc20' pick the same one.
    expect(chainRules('eth', { ...ERC20, chainSymbol: 'erc20' }).chainSymbol).toBe('erc20')
    expect(chainRules('eth', { addressRegex: '^0x' }).chainSymbol).toBe('eth')
  })

  it('leaves out rules the detail does not have, so the check skips them', () => {
    expect(chainRules('eos', {})).toEqual({ chainSymbol: 'eos', memoUsed: false })
  })

  it('keeps the rules when a field the check does not read arrives malformed', () => {
    const rules = chainRules('erc20', { ...ERC20, networkId: 'mainnet', confirmations: null })
    expect(rules.addressRegex).toBe(ERC20.addressRegex)
    expect(checkAddress(rules, '0x123').ok).toBe(false)
  })

  it('drops rules of the wrong type rather than checking against them', () => {
    expect(chainRules('erc20', { addressRegex: 5, startingWith: '0x' })).toEqual({ chainSymbol: 'erc20', memoUsed: false })
  })

  it('gives rules the shared address check runs: a good address passes, a typo fails', () => {
    const rules = chainRules('erc20', ERC20)
    expect(checkAddress(rules, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed').ok).toBe(true)
    expect(checkAddress(rules, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD').ok).toBe(false)
  })
})

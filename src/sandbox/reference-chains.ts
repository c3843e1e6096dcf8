// The simulator's chain config: chain details shaped like the live service's
// networkConfig (regexes, prefixes, explorer links) for the chains the sandbox serves.
import { BECH32_ALPHABET } from './spec-tables'

/**
 * The fields of a spec 2.3 chain detail the simulator takes from here (the catalogue
 * adds nativeToken and node). A type alias, not an interface, so a test can pass one
 * where the client's schema type (with its index signature) is expected.
 */
export type ReferenceChain = {
  chainSymbol: string
  chainName: string
  addressRegex?: string
  memoRegex?: string
  startingWith?: string[]
  networkId: number
  hashLink: string
  confirmations?: number
}

const EVM = { addressRegex: '^(0x)[0-9A-Fa-f]{40}$', memoRegex: '', startingWith: ['0x'] }
const B58 = '1-9A-HJ-NP-Za-km-z'

/**
 * Chain details shaped like the live service's networkConfig, with rules that the
 * address checks enforce. The sandbox serves them; tests check samples against them.
 */
export const REFERENCE_CHAIN_DETAILS: Readonly<Record<number, ReferenceChain>> = {
  0: { chainSymbol: 'erc20', chainName: 'Ethereum', ...EVM, networkId: 1, hashLink: 'https://etherscan.io/tx/', confirmations: 12 },
  1: { chainSymbol: 'bep20', chainName: 'BNB Smart Chain', ...EVM, networkId: 56, hashLink: 'https://bscscan.com/tx/', confirmations: 15 },
  2: {
    chainSymbol: 'trc20',
    chainName: 'Tron',
    addressRegex: `^T[${B58}]{33}$`,
    memoRegex: '',
    startingWith: ['T'],
    networkId: -1,
    hashLink: 'https://tronscan.org/#/transaction/',
    confirmations: 20
  },
  3: { chainSymbol: 'matic20', chainName: 'Polygon', ...EVM, networkId: 137, hashLink: 'https://polygonscan.com/tx/', confirmations: 128 },
  4: {
    chainSymbol: 'spl',
    chainName: 'Solana',
    addressRegex: `^[${B58}]{32,44}$`,
    memoRegex: '',
    startingWith: [''],
    networkId: -1,
    hashLink: 'https://solscan.io/tx/',
    confirmations: 1
  },
  5: {
    chainSymbol: 'bep2',
    chainName: 'BNB Beacon Chain',
    addressRegex: '^(bnb1)[0-9a-z]{38}$',
    memoRegex: '^[0-9A-Za-z\\-_]{1,120}$',
    startingWith: ['bnb1'],
    networkId: -1,
    hashLink: 'https://explorer.bnbchain.org/tx/',
    confirmations: 1
  },
  7: {
    chainSymbol: 'nep5',
    chainName: 'Neo Legacy',
    addressRegex: '^(A)[A-Za-z0-9]{33}$',
    memoRegex: '',
    startingWith: ['A'],
    networkId: -1,
    hashLink: 'https://neotube.io/transaction/',
    confirmations: 1
  },
  8: {
    chainSymbol: 'eos',
    chainName: 'EOS',
    addressRegex: '^[1-5a-z\\.]{1,12}$',
    memoRegex: '^[0-9A-Za-z\\-_,]{1,120}$',
    startingWith: [''],
    networkId: -1,
    hashLink: 'https://bloks.io/transaction/',
    confirmations: 1
  },
  9: { chainSymbol: 'klay', chainName: 'Klaytn', ...EVM, networkId: 8217, hashLink: 'https://klaytnscope.com/tx/', confirmations: 1 },
  10: {
    chainSymbol: 'matic20-test',
    chainName: 'Polygon testnet',
    ...EVM,
    networkId: 80001,
    hashLink: 'https://mumbai.polygonscan.com/tx/',
    confirmations: 5
  },
  11: { chainSymbol: 'okc', chainName: 'OKX Chain', ...EVM, networkId: 66, hashLink: 'https://www.oklink.com/okc/tx/', confirmations: 5 },
  12: {
    chainSymbol: 'wemix 3.0',
    chainName: 'WEMIX 3.0',
    ...EVM,
    networkId: 1111,
    hashLink: 'https://explorer.wemix.com/tx/',
    confirmations: 5
  },
  13: {
    chainSymbol: 'arbitrum',
    chainName: 'Arbitrum One',
    ...EVM,
    networkId: 42161,
    hashLink: 'https://arbiscan.io/tx/',
    confirmations: 20
  },
  14: { chainSymbol: 'yota', chainName: 'Yota', networkId: -1, hashLink: '' },
  15: {
    chainSymbol: 'ton',
    chainName: 'TON',
    addressRegex: '^[A-Za-z0-9_\\-+/]{48}$',
    memoRegex: '^[0-9A-Za-z\\-_ ]{1,120}$',
    startingWith: ['EQ', 'UQ'],
    networkId: -1,
    hashLink: 'https://tonviewer.com/transaction/',
    confirmations: 1
  },
  21: {
    chainSymbol: 'energi',
    chainName: 'Energi',
    ...EVM,
    networkId: 39797,
    hashLink: 'https://explorer.energi.network/tx/',
    confirmations: 5
  }
}

/** Bitcoin is a coin the service lists without a chain id of its own; its rules, for checks by symbol. */
export const BTC_CHAIN_DETAIL: ReferenceChain = {
  chainSymbol: 'btc',
  chainName: 'Bitcoin',
  addressRegex: `^(bc1[${BECH32_ALPHABET}]{11,71}|BC1[${BECH32_ALPHABET.toUpperCase()}]{11,71}|[13][${B58}]{25,34})$`,
  memoRegex: '',
  startingWith: ['bc1', 'BC1', '1', '3'],
  networkId: -1,
  hashLink: 'https://mempool.space/tx/',
  confirmations: 2
}

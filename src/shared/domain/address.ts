// Address checks for the address-check view. A check first applies the chain's own rules from the config (addressRegex,
// startingWith, memoRegex), then the checksum where the chain has one, so an operator
// sees which rule failed and why before a customer's funds go to a typo.
// The checksum scheme is picked by chain symbol (aliases included), not by chain id,
// because the live service sends chain ids beyond its own mapping table.
import { bech32, bech32m, base58, base64, base64url, createBase58check } from '@scure/base'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import type { ChainDetail } from '../api/schemas'
import { describePattern } from './address-words'

export type ChecksumScheme = 'eip55' | 'tron' | 'neo' | 'btc' | 'bep2' | 'solana' | 'ton' | 'none'

/** What a check looked at: the input itself, the config's rules, or the checksum. */
export type AddressCheckKind = 'input' | 'format' | 'prefix' | 'memo' | 'checksum'

export interface AddressCheck {
  name: string
  kind: AddressCheckKind
  ok: boolean
  detail: string
  /**
   * A checksum check that failed because the address is not in this network's form at all
   * (its length, alphabet, prefix or version), which a failed format check already says:
   * the view says such a failure once (address-guide.ts).
   */
  form?: true
}

export interface AddressCheckResult {
  ok: boolean
  checks: AddressCheck[]
  explorerUrl?: string
  scheme: ChecksumScheme
}

/** The minimum of a chain detail the checks read. */
export type ChainRules = Pick<ChainDetail, 'chainSymbol' | 'addressRegex' | 'memoRegex' | 'startingWith' | 'hashLink'>

/** Names of the checks, stable for views and tests. */
export const CHECK_NAMES = {
  input: 'address given',
  whitespace: 'no stray whitespace',
  format: "the network's address format",
  prefix: 'how the address starts',
  memo: 'memo or tag',
  eip55: 'EIP-55 checksum',
  tron: 'TRON base58check',
  neo: 'NEO base58check',
  btc: 'Bitcoin address checksum',
  bep2: 'BNB Beacon Chain bech32 checksum',
  solana: 'Solana public key (32 bytes)',
  ton: 'TON address checksum (CRC16)'
} as const

const SCHEME_BY_SYMBOL: Readonly<Record<string, ChecksumScheme>> = {
  erc20: 'eip55',
  eth: 'eip55',
  bep20: 'eip55',
  bsc: 'eip55',
  matic20: 'eip55',
  matic: 'eip55',
  'matic20-test': 'eip55',
  okc: 'eip55',
  'wemix 3.0': 'eip55',
  wemix: 'eip55',
  arbitrum: 'eip55',
  klay: 'eip55',
  energi: 'eip55',
  trc20: 'tron',
  trx: 'tron',
  nep5: 'neo',
  btc: 'btc',
  bep2: 'bep2',
  bnb: 'bep2',
  spl: 'solana',
  sol: 'solana',
  ton: 'ton'
}

/** Which checksum applies to a chain symbol or alias ('none' for chains without one, e.g. eos). */
export function checksumSchemeFor(chainSymbol: string): ChecksumScheme {
  return SCHEME_BY_SYMBOL[chainSymbol.trim().toLowerCase()] ?? 'none'
}

// Addresses and memos longer than this are refused before any config regex runs on
// them: a pathological pattern in the config must not freeze the window.
const MAX_ADDRESS_LENGTH = 256
const MAX_MEMO_LENGTH = 512

const b58check = createBase58check(sha256)

// ---------------------------------------------------------------- regex from config

export type CompiledRegex = { ok: true; re: RegExp } | { ok: false; error: string }

/** Compiles a config regex without throwing; accepts "/body/flags" too (drops g and y, which make test() stateful). */
export function compileConfigRegex(source: string): CompiledRegex {
  let body = source
  let flags = ''
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(source)
  if (slashed) {
    body = slashed[1] ?? ''
    flags = (slashed[2] ?? '').replace(/[gy]/g, '')
  }
  try {
    return { ok: true, re: new RegExp(body, flags) }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  }
}

// ---------------------------------------------------------------- checksum schemes

type Verdict = { ok: boolean; detail: string; form?: true }

/** A failure because the address is not in the scheme's form at all (see AddressCheck.form). */
const notThisForm = (detail: string): Verdict => ({ ok: false, detail, form: true })

/** EIP-55 mixed-case form of 40 hex digits (without 0x). */
export function toEip55(hex40: string): string {
  const lower = hex40.toLowerCase()
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)))
  let out = '0x'
  for (let i = 0; i < lower.length; i++) {
    const c = lower[i] ?? ''
    out += parseInt(hash[i] ?? '0', 16) >= 8 ? c.toUpperCase() : c
  }
  return out
}

function checkEip55(address: string): Verdict {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return notThisForm('not 0x followed by 40 hex digits')
  const body = address.slice(2)
  if (!/[a-f]/.test(body)) {
    return {
      ok: true,
      detail: /[A-F]/.test(body)
        ? 'valid but not checksummed (all uppercase): a typo would go unnoticed'
        : 'no letters, nothing to checksum'
    }
  }
  if (!/[A-F]/.test(body)) return { ok: true, detail: 'valid but not checksummed (all lowercase): a typo would go unnoticed' }
  return toEip55(body) === address
    ? { ok: true, detail: 'mixed-case EIP-55 checksum matches' }
    : { ok: false, detail: 'the mixed-case letters do not match the EIP-55 checksum: likely a typo' }
}

function decodeBase58(address: string): Uint8Array | undefined {
  try {
    return base58.decode(address)
  } catch {
    return undefined
  }
}

function checkBase58Check(address: string, versions: Record<number, string>, payloadLength: number, what: string): Verdict {
  const raw = decodeBase58(address)
  if (!raw) return notThisForm('contains characters outside base58 (0, O, I and l are not used)')
  if (raw.length !== payloadLength + 4) return notThisForm(`decodes to ${raw.length} bytes; a ${what} address has ${payloadLength + 4}`)
  let payload: Uint8Array
  try {
    payload = b58check.decode(address)
  } catch {
    return { ok: false, detail: 'base58check checksum (double SHA-256) does not match: likely a typo' }
  }
  const version = payload[0] ?? -1
  const kind = versions[version]
  if (kind === undefined) {
    const want = Object.keys(versions)
      .map((v) => '0x' + Number(v).toString(16).padStart(2, '0'))
      .join(' or ')
    return notThisForm(`version byte 0x${version.toString(16).padStart(2, '0')} is not ${want}`)
  }
  return { ok: true, detail: `base58check checksum matches${kind ? ` (${kind})` : ''}` }
}

/** The bech32 data alphabet (BIP-173), for BTC segwit and BNB Beacon Chain addresses. */
export const BECH32_CHARS = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

function checkBtc(address: string): Verdict {
  const lower = address.toLowerCase()
  if (lower.startsWith('bc1')) {
    if (address !== lower && address !== address.toUpperCase())
      return { ok: false, detail: 'bech32 addresses must not mix upper and lower case' }
    const data = lower.slice(3)
    if ([...data].some((c) => !BECH32_CHARS.includes(c)))
      return notThisForm('contains characters outside bech32 (1, b, i and o are not used after bc1)')
    const v0 = bech32.decodeUnsafe(lower, 90)
    const v1 = v0 ? undefined : bech32m.decodeUnsafe(lower, 90)
    const decoded = v0 ?? v1
    if (!decoded || decoded.prefix !== 'bc') return { ok: false, detail: 'bech32/bech32m checksum does not match: likely a typo' }
    const [version, ...words] = decoded.words
    const program = bech32.fromWordsUnsafe(words)
    if (version === undefined || !program) return { ok: false, detail: 'malformed witness program' }
    if (version === 0) {
      if (!v0) return { ok: false, detail: 'witness version 0 must use bech32, not bech32m' }
      if (program.length !== 20 && program.length !== 32)
        return { ok: false, detail: `a version 0 witness program has 20 or 32 bytes, not ${program.length}` }
      return { ok: true, detail: `bech32 checksum matches (${program.length === 20 ? 'P2WPKH' : 'P2WSH'})` }
    }
    if (version > 16) return { ok: false, detail: `witness version ${version} does not exist` }
    if (!v1) return { ok: false, detail: `witness version ${version} must use bech32m, not bech32` }
    if (program.length < 2 || program.length > 40)
      return { ok: false, detail: `witness program of ${program.length} bytes is out of range` }
    return { ok: true, detail: `bech32m checksum matches${version === 1 && program.length === 32 ? ' (taproot)' : ''}` }
  }
  if (/^[13]/.test(address)) return checkBase58Check(address, { 0x00: 'P2PKH', 0x05: 'P2SH' }, 21, 'legacy Bitcoin')
  return notThisForm('neither a bc1 (bech32) nor a legacy 1/3 (base58check) Bitcoin address')
}

function checkBep2(address: string): Verdict {
  const lower = address.toLowerCase()
  if (address !== lower && address !== address.toUpperCase())
    return { ok: false, detail: 'bech32 addresses must not mix upper and lower case' }
  if (!lower.startsWith('bnb1')) return notThisForm('a BNB Beacon Chain address starts with bnb1')
  if ([...lower.slice(4)].some((c) => !BECH32_CHARS.includes(c)))
    return notThisForm('contains characters outside bech32 (1, b, i and o are not used after bnb1)')
  const decoded = bech32.decodeUnsafe(lower, 90)
  if (!decoded) return { ok: false, detail: 'bech32 checksum does not match: likely a typo' }
  const bytes = bech32.fromWordsUnsafe(decoded.words)
  if (!bytes || bytes.length !== 20)
    return { ok: false, detail: `carries ${bytes ? bytes.length : 'malformed'} bytes; a bnb1 address carries 20` }
  return { ok: true, detail: 'bech32 checksum matches' }
}

function checkSolana(address: string): Verdict {
  const raw = decodeBase58(address)
  if (!raw) return notThisForm('contains characters outside base58 (0, O, I and l are not used)')
  if (raw.length !== 32)
    return notThisForm(
      `decodes to ${raw.length} bytes; a Solana public key has exactly 32 (Solana addresses carry no checksum, the length is all there is to check)`
    )
  return { ok: true, detail: 'base58 decodes to a 32-byte public key (Solana addresses carry no checksum)' }
}

/** CRC16-XMODEM (poly 0x1021, init 0), as TON uses for user-friendly addresses. */
export function crc16Xmodem(data: Uint8Array): number {
  let crc = 0
  for (const byte of data) {
    crc ^= byte << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

function checkTon(address: string): Verdict {
  if (/^-?\d+:[0-9a-fA-F]{64}$/.test(address)) return { ok: true, detail: 'raw form (workchain:hash) carries no checksum' }
  if (address.length !== 48) return notThisForm(`a user-friendly TON address has 48 characters, not ${address.length}`)
  const url = /[-_]/.test(address)
  if (url && /[+/]/.test(address)) return notThisForm('mixes base64 (+ /) and base64url (- _) characters')
  let raw: Uint8Array
  try {
    raw = (url ? base64url : base64).decode(address)
  } catch {
    return notThisForm('not valid base64/base64url')
  }
  if (raw.length !== 36) return notThisForm(`decodes to ${raw.length} bytes, not 36`)
  const crc = crc16Xmodem(raw.subarray(0, 34))
  if ((((raw[34] ?? 0) << 8) | (raw[35] ?? 0)) !== crc) return { ok: false, detail: 'CRC16 checksum does not match: likely a typo' }
  const tag = raw[0] ?? 0
  const flavour = tag & 0x7f
  if (flavour !== 0x11 && flavour !== 0x51) return { ok: false, detail: `unknown address tag 0x${tag.toString(16)}` }
  if (tag & 0x80) return { ok: false, detail: 'testnet-only address' }
  const wc = raw[1]
  if (wc !== 0x00 && wc !== 0xff) return { ok: false, detail: `unknown workchain ${wc ?? '?'}` }
  return {
    ok: true,
    detail: `CRC16 checksum matches (${flavour === 0x11 ? 'bounceable' : 'non-bounceable'}, ${wc === 0 ? 'basechain' : 'masterchain'})`
  }
}

/** The scheme's own verdict on an address, undefined for 'none' (address-guide.ts names address families by it). */
export function schemeVerdict(scheme: ChecksumScheme, address: string): Verdict | undefined {
  switch (scheme) {
    case 'eip55':
      return checkEip55(address)
    case 'tron':
      return checkBase58Check(address, { 0x41: '' }, 21, 'TRON')
    case 'neo':
      return checkBase58Check(address, { 0x17: '' }, 21, 'NEO')
    case 'btc':
      return checkBtc(address)
    case 'bep2':
      return checkBep2(address)
    case 'solana':
      return checkSolana(address)
    case 'ton':
      return checkTon(address)
    case 'none':
      return undefined
  }
}

/** Whether the scheme's checksum accepts the address (true for chains without one). */
export function checksumOk(chainSymbol: string, address: string): boolean {
  return schemeVerdict(checksumSchemeFor(chainSymbol), address)?.ok ?? true
}

// ---------------------------------------------------------------- the check

/**
 * Checks an address (and optional memo) against a chain's config and checksum.
 * Never throws: a broken rule in the config is reported as a failed check.
 */
export function checkAddress(chain: ChainRules, address: string, memo?: string): AddressCheckResult {
  const scheme = checksumSchemeFor(chain.chainSymbol)
  const checks: AddressCheck[] = []
  const finish = (): AddressCheckResult => {
    const ok = checks.every((c) => c.ok)
    const explorerUrl = ok ? explorerAddressUrl(chain, address) : undefined
    return explorerUrl ? { ok, checks, explorerUrl, scheme } : { ok, checks, scheme }
  }

  if (address.trim() === '') {
    checks.push({ name: CHECK_NAMES.input, kind: 'input', ok: false, detail: 'no address given' })
    return finish()
  }
  if (address.length > MAX_ADDRESS_LENGTH) {
    checks.push({ name: CHECK_NAMES.input, kind: 'input', ok: false, detail: `${address.length} characters is longer than any address` })
    return finish()
  }
  if (/\s/.test(address)) {
    // Said once, here: the checks below read the address without it, so they say whether
    // taking the space out is all it needs (the view offers to).
    checks.push({
      name: CHECK_NAMES.whitespace,
      kind: 'input',
      ok: false,
      detail: 'contains a space or line break, most likely from pasting; the checks below read it without'
    })
    address = address.replace(/\s+/g, '')
  }

  if (chain.addressRegex !== undefined && chain.addressRegex !== '') {
    const c = compileConfigRegex(chain.addressRegex)
    checks.push(
      c.ok
        ? c.re.test(address)
          ? { name: CHECK_NAMES.format, kind: 'format', ok: true, detail: 'matches' }
          : {
              name: CHECK_NAMES.format,
              kind: 'format',
              ok: false,
              detail: `does not match: ${describePattern(chain.addressRegex) ?? 'see the pattern in the details'}`
            }
        : {
            name: CHECK_NAMES.format,
            kind: 'format',
            ok: false,
            detail: `the configuration's pattern for this network is not a valid regular expression (${c.error}); cannot check`
          }
    )
  }

  if (chain.startingWith !== undefined) {
    const prefixes = chain.startingWith
    if (prefixes.length === 0 || prefixes.includes('')) {
      checks.push({ name: CHECK_NAMES.prefix, kind: 'prefix', ok: true, detail: 'any prefix allowed' })
    } else {
      const hit = prefixes.find((p) => address.startsWith(p))
      checks.push(
        hit !== undefined
          ? { name: CHECK_NAMES.prefix, kind: 'prefix', ok: true, detail: `starts with ${hit}` }
          : { name: CHECK_NAMES.prefix, kind: 'prefix', ok: false, detail: `must start with ${prefixes.join(' or ')}` }
      )
    }
  }

  const memoCheck = checkMemo(chain.memoRegex, memo)
  if (memoCheck) checks.push(memoCheck)

  const verdict = schemeVerdict(scheme, address)
  if (verdict) checks.push({ name: CHECK_NAMES[scheme as Exclude<ChecksumScheme, 'none'>], kind: 'checksum', ...verdict })

  return finish()
}

function checkMemo(memoRegex: string | undefined, memo: string | undefined): AddressCheck | undefined {
  const given = memo !== undefined && memo.trim() !== ''
  const name = CHECK_NAMES.memo
  if (memoRegex === undefined) {
    return given
      ? { name, kind: 'memo', ok: true, detail: 'the configuration gives no memo rule for this network; memo not checked' }
      : undefined
  }
  if (memoRegex === '') {
    return given
      ? {
          name,
          kind: 'memo',
          ok: false,
          detail: 'this network uses no memo: remove it (a memo here means the address was probably meant for another network)'
        }
      : { name, kind: 'memo', ok: true, detail: 'this network uses no memo' }
  }
  const c = compileConfigRegex(memoRegex)
  if (!c.ok)
    return {
      name,
      kind: 'memo',
      ok: false,
      detail: `the configuration's memo pattern is not a valid regular expression (${c.error}); cannot check`
    }
  if (!given)
    return { name, kind: 'memo', ok: true, detail: 'no memo given; this network accepts one (exchange deposit addresses require it)' }
  if (memo.length > MAX_MEMO_LENGTH) return { name, kind: 'memo', ok: false, detail: `${memo.length} characters is longer than any memo` }
  return c.re.test(memo)
    ? { name, kind: 'memo', ok: true, detail: 'matches' }
    : { name, kind: 'memo', ok: false, detail: `does not match: ${describePattern(memoRegex) ?? 'see the pattern in the details'}` }
}

// ---------------------------------------------------------------- explorer links

function httpPrefix(hashLink: string | undefined): string | undefined {
  if (!hashLink) return undefined
  try {
    const u = new URL(hashLink)
    return u.protocol === 'http:' || u.protocol === 'https:' ? hashLink : undefined
  } catch {
    return undefined
  }
}

/** Explorer page of a transaction: hashLink + hash, only for http(s) hashLinks. */
export function explorerTxUrl(chain: Pick<ChainDetail, 'hashLink'>, hash: string): string | undefined {
  const prefix = httpPrefix(chain.hashLink)
  const h = hash.trim()
  if (!prefix || h === '') return undefined
  return prefix + encodeURIComponent(h)
}

/**
 * Explorer page of an address, derived from the transaction link by swapping its
 * last /tx/ or /transaction/ segment for /address/. None when hashLink has neither.
 */
export function explorerAddressUrl(chain: Pick<ChainDetail, 'hashLink'>, address: string): string | undefined {
  const prefix = httpPrefix(chain.hashLink)
  const a = address.trim()
  if (!prefix || a === '') return undefined
  const m = /^(.*\/)(tx|transaction|transactions)\/$/.exec(prefix)
  if (!m) return undefined
  return `${m[1] ?? ''}address/${encodeURIComponent(a)}`
}

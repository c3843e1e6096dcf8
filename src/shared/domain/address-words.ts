// A chain's address and memo rules in words for an operator ("T followed by 33 base58
// characters"), read from the regular expressions the configuration gives. Only the simple
// shapes such rules take are read (anchors, literal prefixes, alternatives, character
// classes with counts); anything else comes back null, and the view shows the pattern
// itself behind its "details" toggle.

type Node =
  | { t: 'lit'; text: string }
  | { t: 'class'; chars: Set<string>; any?: boolean }
  | { t: 'alt'; options: Node[][] }
  | { t: 'rep'; node: Node; min: number; max: number | null }

const HEX = new Set('0123456789abcdefABCDEF')
const BASE58 = new Set('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const range = (a: string, b: string): string[] => {
  const out: string[] = []
  for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) out.push(String.fromCharCode(c))
  return out
}
const DIGITS = range('0', '9')
const LOWER = range('a', 'z')
const UPPER = range('A', 'Z')

class Parser {
  i = 0
  constructor(readonly s: string) {}

  peek(): string | undefined {
    return this.s[this.i]
  }

  alternatives(): Node[][] {
    const options: Node[][] = [this.sequence()]
    while (this.peek() === '|') {
      this.i++
      options.push(this.sequence())
    }
    return options
  }

  sequence(): Node[] {
    const out: Node[] = []
    for (;;) {
      const c = this.peek()
      if (c === undefined || c === '|' || c === ')') return out
      const atom = this.atom()
      const q = this.quantifier()
      if (!q) {
        // Adjacent literal characters read as one text.
        const last = out[out.length - 1]
        if (atom.t === 'lit' && last?.t === 'lit') last.text += atom.text
        else out.push(atom)
      } else out.push({ t: 'rep', node: atom, ...q })
    }
  }

  atom(): Node {
    const c = this.s[this.i++]!
    if (c === '(') {
      if (this.s.startsWith('?:', this.i)) this.i += 2
      else if (this.peek() === '?') throw new Error('lookaround')
      const options = this.alternatives()
      if (this.s[this.i++] !== ')') throw new Error('unclosed group')
      return options.length === 1 && options[0]!.length === 1 ? options[0]![0]! : { t: 'alt', options }
    }
    if (c === '[') return this.charClass()
    if (c === '.') return { t: 'class', chars: new Set(), any: true }
    if (c === '\\') return this.escape(false) as Node
    if ('^$*+?{}'.includes(c)) throw new Error(`unexpected ${c}`)
    return { t: 'lit', text: c }
  }

  escape(inClass: boolean): Node | string[] {
    const e = this.s[this.i++]
    if (e === undefined) throw new Error('dangling escape')
    const set = e === 'd' ? DIGITS : e === 'w' ? [...DIGITS, ...LOWER, ...UPPER, '_'] : null
    if (set) return inClass ? set : { t: 'class', chars: new Set(set) }
    if (/[a-zA-Z0-9]/.test(e)) throw new Error(`escape \\${e}`)
    return inClass ? [e] : { t: 'lit', text: e }
  }

  charClass(): Node {
    if (this.peek() === '^') throw new Error('negated class')
    const chars = new Set<string>()
    let first = true
    for (;;) {
      const c = this.s[this.i++]
      if (c === undefined) throw new Error('unclosed class')
      if (c === ']' && !first) break
      first = false
      let from: string[] = c === '\\' ? (this.escape(true) as string[]) : [c]
      if (from.length === 1 && this.peek() === '-' && this.s[this.i + 1] !== ']' && this.s[this.i + 1] !== undefined) {
        this.i++
        const to = this.s[this.i++]!
        from = range(from[0]!, to === '\\' ? this.s[this.i++]! : to)
      }
      for (const x of from) chars.add(x)
    }
    return { t: 'class', chars }
  }

  quantifier(): { min: number; max: number | null } | null {
    const c = this.peek()
    if (c === '*' || c === '+' || c === '?') {
      this.i++
      return c === '*' ? { min: 0, max: null } : c === '+' ? { min: 1, max: null } : { min: 0, max: 1 }
    }
    if (c !== '{') return null
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i))
    if (!m) throw new Error('bad count')
    this.i += m[0].length
    const min = Number(m[1])
    return { min, max: m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]) }
  }
}

function sameSet(a: Set<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x))
}

/** The characters a class allows, in words. */
function classWords(chars: Set<string>, any = false): string {
  if (any) return 'characters of any kind'
  if (sameSet(chars, HEX)) return 'hexadecimal characters (0-9, a-f, either case)'
  if (sameSet(chars, BASE58)) return 'base58 characters (letters and digits but 0, O, I and l)'
  if (sameSet(chars, new Set(BECH32))) return 'bech32 characters (lowercase letters and digits but 1, b, i and o)'
  if (sameSet(chars, new Set(BECH32.toUpperCase()))) return 'bech32 characters in capitals (capital letters and digits but 1, B, I and O)'
  const parts: string[] = []
  const rest = new Set(chars)
  const take = (set: string[], whole: string) => {
    const inSet = set.filter((c) => rest.has(c))
    if (!inSet.length) return
    for (const c of inSet) rest.delete(c)
    if (inSet.length === set.length) parts.push(whole)
    else parts.push(runs(inSet))
  }
  const lettersBoth = LOWER.every((c) => rest.has(c)) && UPPER.every((c) => rest.has(c))
  if (lettersBoth) {
    for (const c of [...LOWER, ...UPPER]) rest.delete(c)
    parts.push('letters')
  } else {
    take(LOWER, 'lowercase letters')
    take(UPPER, 'capital letters')
  }
  take(DIGITS, 'digits')
  const others = [...rest].map((c) => (c === ' ' ? 'space' : c))
  const list = [...parts, ...others]
  if (list.length === 1) return parts.length ? list[0]! : `"${list[0]}" characters`
  return `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`
}

/** "a-f, x" from a list of characters. */
function runs(chars: string[]): string {
  const codes = chars.map((c) => c.charCodeAt(0)).sort((a, b) => a - b)
  const out: string[] = []
  for (let i = 0; i < codes.length;) {
    let j = i
    while (j + 1 < codes.length && codes[j + 1] === codes[j]! + 1) j++
    out.push(
      j - i >= 2
        ? `${String.fromCharCode(codes[i]!)}-${String.fromCharCode(codes[j]!)}`
        : codes
            .slice(i, j + 1)
            .map((c) => String.fromCharCode(c))
            .join(', ')
    )
    i = j + 1
  }
  return out.join(', ')
}

function count(min: number, max: number | null): string {
  if (max === null) return min === 0 ? 'any number of' : min === 1 ? 'one or more' : `${min} or more`
  if (min === max) return String(min)
  return min === 0 ? `up to ${max}` : `${min} to ${max}`
}

function nodeWords(n: Node): string {
  switch (n.t) {
    case 'lit':
      return `"${n.text}"`
    case 'class':
      return `one of ${classWords(n.chars, n.any)}`
    case 'alt':
      return n.options.map(seqWords).join(' or ')
    case 'rep':
      if (n.node.t === 'class') return `${count(n.min, n.max)} ${classWords(n.node.chars, n.node.any)}`
      if (n.min === 0 && n.max === 1) return `optionally ${nodeWords(n.node)}`
      return `${nodeWords(n.node)}, ${count(n.min, n.max)} times`
  }
}

/** A literal or a choice of literals at the start reads as "starts with". */
function prefixOf(n: Node): string | null {
  if (n.t === 'lit') return `"${n.text}"`
  if (n.t === 'alt' && n.options.every((o) => o.length === 1 && o[0]!.t === 'lit'))
    return n.options.map((o) => `"${(o[0] as { text: string }).text}"`).join(' or ')
  if (n.t === 'class' && !n.any && n.chars.size <= 4) return [...n.chars].map((c) => `"${c}"`).join(' or ')
  return null
}

function seqWords(seq: Node[]): string {
  if (!seq.length) return 'nothing'
  const head = prefixOf(seq[0]!)
  if (head && seq.length > 1) return `${head} followed by ${seq.slice(1).map(nodeWords).join(', then ')}`
  return seq.map(nodeWords).join(', then ')
}

/** The pattern in words, or null when it is not one of the simple shapes read here. */
export function describePattern(pattern: string): string | null {
  const body = pattern.replace(/^\/(.*)\/[a-z]*$/s, '$1')
  if (!body.startsWith('^') || !body.endsWith('$') || body.endsWith('\\$')) return null
  try {
    const p = new Parser(body.slice(1, -1))
    let options = p.alternatives()
    if (p.i !== p.s.length) return null
    // ^(a|b|c)$: the choices are the pattern's own.
    const only = options.length === 1 && options[0]!.length === 1 ? options[0]![0]! : null
    if (only?.t === 'alt' && only.options.length > 1 && !prefixOf(only)) options = only.options
    if (options.length === 1) return seqWords(options[0]!)
    return `one of: ${options.map(seqWords).join('; ')}`
  } catch {
    return null
  }
}

/** What a network's checksum scheme checks, in words (null: none Rampdesk can verify). */
const CHECKSUM_WORDS: Record<string, string> = {
  eip55: 'its mixed capital and small letters are a checksum (EIP-55)',
  tron: 'its last characters are a checksum (base58check)',
  neo: 'its last characters are a checksum (base58check)',
  btc: 'it carries a checksum (base58check or bech32)',
  bep2: 'it carries a bech32 checksum',
  solana: 'it is a 32-byte public key',
  ton: 'its last two bytes are a checksum (CRC16)'
}

export interface RulesInWords {
  /** The address: "0x followed by 40 hexadecimal characters", or how it starts when the pattern cannot be read. */
  address: string
  checksum: string | null
  /** "no memo on this network", the memo's format, or null when the configuration says nothing. */
  memo: string | null
}

/** A network's rules as an operator reads them. */
export function rulesInWords(rules: {
  addressRegex?: string
  startingWith?: readonly string[]
  memoRegex?: string
  scheme: string
}): RulesInWords {
  const prefixes = (rules.startingWith ?? []).filter((p) => p !== '')
  const starts = prefixes.length ? `starts with ${prefixes.map((p) => `"${p}"`).join(' or ')}` : null
  const pattern = rules.addressRegex ? describePattern(rules.addressRegex) : null
  const address =
    pattern ?? (rules.addressRegex ? `${starts ? `${starts}; ` : ''}see its pattern in the details` : (starts ?? 'no format rule'))
  const memo =
    rules.memoRegex === undefined
      ? null
      : rules.memoRegex === ''
        ? 'no memo on this network'
        : `a memo of ${describePattern(rules.memoRegex) ?? 'the format in the details'}`
  return { address, checksum: CHECKSUM_WORDS[rules.scheme] ?? null, memo }
}

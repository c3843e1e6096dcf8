// JSON values as their text writes them, and where two of them differ. JSON.parse turns
// every number into a float, so 1000.00000000000001 reads as 1000 and 1e400 as Infinity:
// two texts whose numbers differ would compare equal, and a body could carry an amount
// other than the one a signature covers. Here each number keeps its decimal value from its
// source text, normalised (sign, significant digits, exponent) so that every spelling of
// one decimal is one string: 1e3, 1000 and 1000.0 are equal, 1000.00000000000001 is not,
// and 1e400 stays 1e400 without 400 digits being written out. -0 and 0 are the same decimal
// (JSON.stringify writes -0 as 0). Strings are compared by their decoded value ("\u0041" is
// "A", "\/" is "/"), members whatever their order. A member named twice keeps its last value,
// as JSON.parse does. Everything is linear in the text, with no recursion, so neither a deep
// nesting nor a huge exponent costs more than reading it.

export type ExactValue =
  /** `decimal` is canonical: "0", or [-]digits 'e' exponent with no leading or trailing zero digit. */
  | { kind: 'number'; decimal: string; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'literal'; value: true | false | null }
  | { kind: 'array'; items: ExactValue[] }
  | { kind: 'object'; members: Map<string, ExactValue> }

export type ExactObject = Extract<ExactValue, { kind: 'object' }>

type Container = { node: Extract<ExactValue, { kind: 'array' }>; key: null } | { node: ExactObject; key: string }

/** Reads a JSON text; throws a SyntaxError where JSON.parse would. */
export function readExact(text: string): ExactValue {
  const n = text.length
  let i = 0
  const stack: Container[] = []

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i} of the JSON text`)
  }
  const skipSpace = () => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return
    }
  }
  const readString = (): string => {
    // At the opening quote.
    const start = i
    let escaped = false
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c === 0x22 /* " */) break
      if (c === 0x5c /* \ */) {
        escaped = true
        i++
      } else if (c < 0x20) fail('a control character in a string')
    }
    if (i >= n) fail('an unterminated string')
    i++
    // JSON.parse of the one string both decodes its escapes and refuses a bad one.
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1)
  }
  const readNumber = (): ExactValue => {
    const start = i
    if (text.charCodeAt(i) === 0x2d /* - */) i++
    const intStart = i
    const digits = () => {
      const from = i
      while (i < n && isDigit(text.charCodeAt(i))) i++
      return i - from
    }
    if (digits() === 0) fail('a number without digits')
    if (text.charCodeAt(intStart) === 0x30 /* 0 */ && i - intStart > 1) fail('a number with a leading zero')
    if (text.charCodeAt(i) === 0x2e /* . */) {
      i++
      if (digits() === 0) fail('a number without digits after its point')
    }
    const e = text.charCodeAt(i)
    if (e === 0x65 || e === 0x45 /* e E */) {
      i++
      const s = text.charCodeAt(i)
      if (s === 0x2b || s === 0x2d /* + - */) i++
      if (digits() === 0) fail('a number without digits in its exponent')
    }
    const numberText = text.slice(start, i)
    return { kind: 'number', decimal: canonicalDecimal(numberText), text: numberText }
  }
  const readLiteral = (word: 'true' | 'false' | 'null', value: true | false | null): ExactValue => {
    if (!text.startsWith(word, i)) fail('an unexpected character')
    i += word.length
    return { kind: 'literal', value }
  }
  const readKey = (): string => {
    skipSpace()
    if (text.charCodeAt(i) !== 0x22) fail('a member without a quoted name')
    const key = readString()
    skipSpace()
    if (text.charCodeAt(i) !== 0x3a /* : */) fail("a member name without ':'")
    i++
    return key
  }

  skipSpace()
  for (;;) {
    // A value starts here: a scalar, or a container that is opened (and, when empty, closed).
    let value: ExactValue | null = null
    const c = text.charCodeAt(i)
    if (c === 0x7b /* { */) {
      i++
      const node: ExactObject = { kind: 'object', members: new Map() }
      skipSpace()
      if (text.charCodeAt(i) === 0x7d /* } */) {
        i++
        value = node
      } else stack.push({ node, key: readKey() })
    } else if (c === 0x5b /* [ */) {
      i++
      const node: ExactValue = { kind: 'array', items: [] }
      skipSpace()
      if (text.charCodeAt(i) === 0x5d /* ] */) {
        i++
        value = node
      } else stack.push({ node, key: null })
    } else if (c === 0x22) value = { kind: 'string', value: readString() }
    else if (c === 0x2d || isDigit(c)) value = readNumber()
    else if (c === 0x74 /* t */) value = readLiteral('true', true)
    else if (c === 0x66 /* f */) value = readLiteral('false', false)
    else if (c === 0x6e /* n */) value = readLiteral('null', null)
    else fail(i >= n ? 'the end of the text where a value belongs' : 'an unexpected character')
    if (value === null) {
      skipSpace()
      continue
    }
    // A whole value: put it in its container, and close every container that ends after it.
    for (;;) {
      const top = stack[stack.length - 1]
      if (!top) {
        skipSpace()
        if (i < n) fail('text after the JSON value')
        return value
      }
      if (top.key === null) top.node.items.push(value)
      else top.node.members.set(top.key, value)
      skipSpace()
      const d = text.charCodeAt(i)
      if (d === 0x2c /* , */) {
        i++
        if (top.key !== null) top.key = readKey()
        skipSpace()
        break
      }
      if (d !== (top.key === null ? 0x5d : 0x7d)) fail("a container not closed where it should be, or a missing ','")
      i++
      stack.pop()
      value = top.node
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

/**
 * One string for each decimal: "0" for zero (whatever its sign or exponent), otherwise the
 * sign, the significant digits without leading or trailing zeros, 'e' and the exponent, so
 * that value = digits × 10^exponent. `text` is a JSON number.
 */
export function canonicalDecimal(text: string): string {
  const negative = text.charCodeAt(0) === 0x2d
  const e = text.search(/[eE]/)
  const mantissa = text.slice(negative ? 1 : 0, e < 0 ? text.length : e)
  const point = mantissa.indexOf('.')
  const fraction = point < 0 ? 0 : mantissa.length - point - 1
  const digits = point < 0 ? mantissa : mantissa.slice(0, point) + mantissa.slice(point + 1)
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++
  if (first === digits.length) return '0'
  let end = digits.length
  while (digits.charCodeAt(end - 1) === 0x30) end--
  // The value is digits[first, end) × 10^(exponent + trailing zeros - fraction digits).
  const shift = digits.length - end - fraction
  const exponent = e < 0 ? String(shift) : shiftedExponent(text.slice(e + 1), shift)
  return `${negative ? '-' : ''}${digits.slice(first, end)}e${exponent}`
}

/** The exponent written `written` ([+-]digits) plus `shift` (at most the text's length), exactly, as a decimal string. */
function shiftedExponent(written: string, shift: number): string {
  const negative = written.charCodeAt(0) === 0x2d
  let magnitude = written.replace(/^[+-]/, '').replace(/^0+/, '')
  if (magnitude.length <= 15) return String((negative ? -1 : 1) * Number(magnitude || '0') + shift)
  // Past 15 digits a float would round it: add to the last 15 digits and carry into the rest.
  // |shift| is far below 10^15, so the sign stays the written one and at most one carries.
  const delta = negative ? -shift : shift
  let tail = Number(magnitude.slice(-15)) + delta
  let head = magnitude.slice(0, -15)
  if (tail >= 1e15) {
    tail -= 1e15
    head = stepDigits(head, 1)
  } else if (tail < 0) {
    tail += 1e15
    head = stepDigits(head, -1)
  }
  magnitude = (head + String(tail).padStart(15, '0')).replace(/^0+/, '')
  return `${negative ? '-' : ''}${magnitude}`
}

/** A string of decimal digits plus or minus one (it is at least 1 when stepping down). */
function stepDigits(digits: string, step: 1 | -1): string {
  const out = digits.split('')
  for (let k = out.length - 1; k >= 0; k--) {
    const d = out[k]!.charCodeAt(0) - 0x30 + step
    if (d >= 0 && d <= 9) {
      out[k] = String(d)
      return out.join('')
    }
    out[k] = step === 1 ? '0' : '9'
  }
  return '1' + out.join('')
}

/** Where two values first differ: a path into them, and what each holds there. */
export interface ExactDifference {
  /** E.g. `fiatAmount`, `items[2].note`, `["odd key"]`; empty at the top. */
  path: string
  /** What the first value (`expected`) holds there, shortly; 'nothing' when it has no such member. */
  expected: string
  /** What the second value (`actual`) holds there. */
  actual: string
}

type PathNode = { parent: PathNode | null; segment: string | number } | null

/** The first place, depth first, where `actual` is not exactly `expected`; null when they are equal. */
export function exactDifference(expected: ExactValue, actual: ExactValue): ExactDifference | null {
  const work: Array<{ a: ExactValue; b: ExactValue; at: PathNode }> = [{ a: expected, b: actual, at: null }]
  const differ = (at: PathNode, a: ExactValue | undefined, b: ExactValue | undefined): ExactDifference => ({
    path: formatPath(at),
    expected: describe(a),
    actual: describe(b)
  })
  for (let next = work.pop(); next; next = work.pop()) {
    const { a, b, at } = next
    if (a.kind !== b.kind) return differ(at, a, b)
    switch (a.kind) {
      case 'number':
        if (a.decimal !== (b as typeof a).decimal) return differ(at, a, b)
        break
      case 'string':
      case 'literal':
        if (a.value !== (b as typeof a).value) return differ(at, a, b)
        break
      case 'array': {
        const items = (b as typeof a).items
        const common = Math.min(a.items.length, items.length)
        if (a.items.length !== items.length) return differ({ parent: at, segment: common }, a.items[common], items[common])
        for (let k = common - 1; k >= 0; k--) work.push({ a: a.items[k]!, b: items[k]!, at: { parent: at, segment: k } })
        break
      }
      case 'object': {
        const members = (b as typeof a).members
        for (const key of members.keys()) if (!a.members.has(key)) return differ({ parent: at, segment: key }, undefined, members.get(key))
        const keys = [...a.members.keys()]
        for (let k = keys.length - 1; k >= 0; k--) {
          const key = keys[k]!
          const other = members.get(key)
          if (other === undefined) return differ({ parent: at, segment: key }, a.members.get(key), undefined)
          work.push({ a: a.members.get(key)!, b: other, at: { parent: at, segment: key } })
        }
        break
      }
    }
  }
  return null
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const PATH_LIMIT = 160
const VALUE_LIMIT = 48

function formatPath(at: PathNode): string {
  const segments: Array<string | number> = []
  for (let p = at; p; p = p.parent) segments.push(p.segment)
  let out = ''
  for (let k = segments.length - 1; k >= 0; k--) {
    const s = segments[k]!
    out += typeof s === 'number' ? `[${s}]` : IDENTIFIER.test(s) ? (out ? `.${s}` : s) : `[${clip(JSON.stringify(s), VALUE_LIMIT)}]`
  }
  return clip(out, PATH_LIMIT)
}

/** A value as a reason may show it: a number as written, a string JSON-quoted, both clipped; a container by its kind. */
function describe(v: ExactValue | undefined): string {
  if (v === undefined) return 'nothing'
  switch (v.kind) {
    case 'number':
      return clip(v.text, VALUE_LIMIT)
    case 'string':
      return clip(JSON.stringify(v.value), VALUE_LIMIT)
    case 'literal':
      return String(v.value)
    case 'array':
      return `an array of ${v.items.length}`
    case 'object':
      return 'an object'
  }
}

function clip(s: string, limit: number): string {
  return s.length <= limit ? s : `${s.slice(0, limit - 1)}… (${s.length} characters)`
}

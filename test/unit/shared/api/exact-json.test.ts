// JSON read with every number as the decimal its text writes: equal however a serialiser
// spells the same value, different whenever two decimals differ, also where floats cannot
// tell them apart; and where two values differ, named by path.
import Big from 'big.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalDecimal, exactDifference, readExact, type ExactValue } from '../../../../src/shared/api/exact-json'
import { phpJsonEncode, pythonDumps } from '../../../support/webhook-senders'

/** The JS value JSON.parse would give for the same text. */
function plain(v: ExactValue): unknown {
  switch (v.kind) {
    case 'number':
      return Number(v.text)
    case 'string':
    case 'literal':
      return v.value
    case 'array':
      return v.items.map(plain)
    case 'object':
      return Object.fromEntries([...v.members].map(([k, x]) => [k, plain(x)]))
  }
}

const same = (a: string, b: string) => exactDifference(readExact(a), readExact(b)) === null

/** The members of every object in reverse order, written out again. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed)
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversed(x)])
    )
  return v
}

/** A JSON number text: sign, digits with a point somewhere or none, an exponent or none. */
const numberText = fc
  .record({
    negative: fc.boolean(),
    digits: fc.stringMatching(/^[0-9]{1,25}$/),
    point: fc.nat(),
    exponent: fc.option(fc.integer({ min: -40, max: 40 })),
    upper: fc.boolean()
  })
  .map(({ negative, digits, point, exponent, upper }) => {
    const int = digits.replace(/^0+(?=.)/, '')
    const at = point % (int.length + 1)
    const mantissa = at === 0 || at === int.length ? int : `${int.slice(0, at)}.${int.slice(at)}`
    const exp = exponent === null ? '' : `${upper ? 'E' : 'e'}${exponent}`
    return `${negative ? '-' : ''}${mantissa}${exp}`
  })
  .filter((t) => /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t))

/** The same decimal written another way: the point moved by `k` places against the exponent, with zeros added. */
function respelled(text: string, k: number, zeros: number): string {
  const b = new Big(text)
  const [mantissa = '', exp = '0'] = b.toExponential().split('e')
  const padded = mantissa.includes('.') ? mantissa + '0'.repeat(zeros) : `${mantissa}.${'0'.repeat(zeros)}`
  const moved = new Big(padded.replace(/\.$/, '')).times(new Big(`1e${k}`)).toFixed()
  return `${moved}e${Number(exp) - k}`
}

describe('readExact', () => {
  it('reads every JSON text as JSON.parse does, apart from keeping the numbers’ text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v)
        expect(plain(readExact(text))).toEqual(JSON.parse(text))
      })
    )
  })

  it('refuses exactly the texts JSON.parse refuses', () => {
    const pieces = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"\\u00',
      '"\\x"',
      '1',
      '-',
      '01',
      '1.',
      '.5',
      '1e',
      '1e+2',
      'tru',
      'true',
      'null',
      ' ',
      '\n',
      '"\u0001"',
      '0'
    )
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const text = parts.join('')
        let parses = true
        try {
          JSON.parse(text)
        } catch {
          parses = false
        }
        if (parses) expect(() => readExact(text)).not.toThrow()
        else expect(() => readExact(text)).toThrow(SyntaxError)
      }),
      { numRuns: 3000 }
    )
  })

  it('keeps the last value of a member named twice, as JSON.parse does', () => {
    const text = '{"a":1,"b":{"c":2,"c":3},"a":4}'
    expect(plain(readExact(text))).toEqual(JSON.parse(text))
  })

  it('reads a nesting 100,000 deep and a number with a 200,000-digit exponent without recursion or quadratic cost', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const huge = `{"a":1e${'7'.repeat(200_000)}}`
    const started = performance.now()
    expect(same(deep, deep)).toBe(true)
    expect(same(huge, huge)).toBe(true)
    expect(same(deep, '['.repeat(100_000) + '1' + ']'.repeat(100_000))).toBe(false)
    const ms = performance.now() - started
    console.info(`exact-json: a nesting 100,000 deep and a 200,000-digit exponent read and compared in ${ms.toFixed(0)} ms`)
    expect(ms).toBeLessThan(2_000)
  })
})

describe('canonicalDecimal', () => {
  it('writes every spelling of one decimal alike', () => {
    for (const t of ['1000', '1e3', '1E3', '1e+3', '1000.0', '10e2', '0.1e4', '1000.000e0', '100000e-2'])
      expect([t, canonicalDecimal(t)]).toEqual([t, '1e3'])
    for (const t of ['0', '-0', '0.0', '0e99', '-0.000e-5']) expect([t, canonicalDecimal(t)]).toEqual([t, '0'])
    expect(canonicalDecimal('0.008157600000000001')).toBe('8157600000000001e-18')
    expect(canonicalDecimal('-12.50')).toBe('-125e-1')
  })

  it('keeps huge exponents exact, without writing out their digits', () => {
    expect(canonicalDecimal('1e400')).toBe('1e400')
    expect(canonicalDecimal('10e399')).toBe('1e400')
    expect(canonicalDecimal('1e400')).not.toBe(canonicalDecimal('1e399'))
    // Past 15 exponent digits, where a float would round the exponent: carries both ways.
    expect(canonicalDecimal('100e999999999999999998')).toBe('1e1000000000000000000')
    expect(canonicalDecimal('0.01e1000000000000000001')).toBe('1e999999999999999999')
    expect(canonicalDecimal('100e-1000000000000000002')).toBe('1e-1000000000000000000')
    expect(canonicalDecimal('0.1e-999999999999999999')).toBe('1e-1000000000000000000')
    expect(canonicalDecimal('1e1000000000000000001')).not.toBe(canonicalDecimal('1e1000000000000000000'))
  })

  it('agrees with big.js: two number texts are one string exactly when they are one decimal', () => {
    fc.assert(
      fc.property(numberText, numberText, (a, b) => {
        expect(canonicalDecimal(a) === canonicalDecimal(b)).toBe(new Big(a).eq(new Big(b)))
      }),
      { numRuns: 2000 }
    )
    fc.assert(
      fc.property(numberText, fc.integer({ min: -30, max: 30 }), fc.nat(12), (a, k, zeros) => {
        const b = respelled(a, k, zeros)
        expect(new Big(a).eq(new Big(b))).toBe(true)
        expect([a, b, canonicalDecimal(b)]).toEqual([a, b, canonicalDecimal(a)])
      }),
      { numRuns: 2000 }
    )
  })
})

describe('exactDifference', () => {
  it('any JSON value equals itself written out by another serialiser, members in any order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const compact = JSON.stringify(v)
        for (const other of [pythonDumps(v), phpJsonEncode(v), JSON.stringify(v, null, 2), JSON.stringify(reversed(v))])
          expect(exactDifference(readExact(compact), readExact(other))).toBeNull()
      })
    )
  })

  it('tells apart numbers that differ as decimals but are one float', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 1, max: 9 }), (x, d) => {
        const text = JSON.stringify(x)
        // A digit far past what a double holds: the float is the same, the decimal is not.
        const longer = /[eE]/.test(text)
          ? text.replace(/^(-?\d+)(?:\.(\d+))?/, (_, i: string, f: string = '') => `${i}.${f}${'0'.repeat(30)}${d}`)
          : `${text}${text.includes('.') ? '' : '.'}${'0'.repeat(30)}${d}`
        fc.pre(Number(longer) === x)
        expect(JSON.parse(longer)).toBe(JSON.parse(text))
        expect(exactDifference(readExact(`{"amount":${text}}`), readExact(`{"amount":${longer}}`))).toMatchObject({ path: 'amount' })
      }),
      { numRuns: 2000 }
    )
    expect(exactDifference(readExact('{"fiatAmount":1000.00000000000001}'), readExact('{"fiatAmount":1000}'))).toEqual({
      path: 'fiatAmount',
      expected: '1000.00000000000001',
      actual: '1000'
    })
    // JSON.parse reads both as Infinity.
    expect(same('{"a":1e400}', '{"a":1e401}')).toBe(false)
    expect(same('{"a":1e400}', '{"a":null}')).toBe(false)
    expect(same('{"a":1e400}', '{"a":10E+399}')).toBe(true)
    expect(same('{"a":-0}', '{"a":0}')).toBe(true)
    expect(same('{"a":0.008157600000000001}', '{"a":0.0081576}')).toBe(false)
  })

  it('compares strings by their decoded value', () => {
    expect(same('{"a":"\\u0041"}', '{"a":"A"}')).toBe(true)
    expect(same('{"\\u0061":"x\\/y"}', '{"a":"x/y"}')).toBe(true)
    expect(same('{"a":"\\ud83d\\ude00"}', '{"a":"😀"}')).toBe(true)
    expect(same('{"a":"1000"}', '{"a":1000}')).toBe(false)
    expect(same('{"a":"A "}', '{"a":"A"}')).toBe(false)
  })

  it('names the path where they first differ, and what each side holds there', () => {
    const signed = readExact('{"a":{"items":[1,{"note":"x"},3]},"odd key":true,"n":null}')
    const d = (body: string) => exactDifference(signed, readExact(body))
    expect(d('{"a":{"items":[1,{"note":"y"},3]},"odd key":true,"n":null}')).toEqual({
      path: 'a.items[1].note',
      expected: '"x"',
      actual: '"y"'
    })
    expect(d('{"a":{"items":[1,{"note":"x"}]},"odd key":true,"n":null}')).toEqual({ path: 'a.items[2]', expected: '3', actual: 'nothing' })
    expect(d('{"a":{"items":[1,{"note":"x"},3]},"odd key":false,"n":null}')).toEqual({
      path: '["odd key"]',
      expected: 'true',
      actual: 'false'
    })
    expect(d('{"a":{"items":[1,{"note":"x"},3]},"odd key":true}')).toEqual({ path: 'n', expected: 'null', actual: 'nothing' })
    expect(d('{"a":{"items":[1,{"note":"x"},3]},"odd key":true,"n":null,"extra":1}')).toEqual({
      path: 'extra',
      expected: 'nothing',
      actual: '1'
    })
    expect(d('{"a":{"items":{}},"odd key":true,"n":null}')).toEqual({ path: 'a.items', expected: 'an array of 3', actual: 'an object' })
    expect(d('{"n":null,"odd key":true,"a":{"items":[1,{"note":"x"},3]}}')).toBeNull()
    // What a sender wrote is clipped before it reaches a reason.
    const long = exactDifference(readExact(`{"a":1}`), readExact(`{"a":1.${'0'.repeat(500)}1}`))
    expect(long!.actual).toMatch(/^1\.0+… \(503 characters\)$/)
  })

  it('compares a 190 KiB body in linear time', () => {
    const record = (k: number) => ({ orderId: k, amount: 0.008157600000000001 * k, note: `n\u00e9/${k}`, tags: [k, `${k}`, null, true] })
    const body = JSON.stringify({ orders: Array.from({ length: 2_200 }, (_, k) => record(k)) })
    expect(body.length).toBeGreaterThan(190 * 1024)
    const payload = pythonDumps(JSON.parse(body))
    const started = performance.now()
    expect(exactDifference(readExact(payload), readExact(body))).toBeNull()
    const ms = performance.now() - started
    console.info(
      `exact-json: a ${(body.length / 1024).toFixed(0)} KiB body read and compared with its Python-written payload in ${ms.toFixed(0)} ms`
    )
    expect(ms).toBeLessThan(1_000)
  })
})

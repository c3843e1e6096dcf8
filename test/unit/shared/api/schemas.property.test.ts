// Property tests of the response schemas: whatever JSON arrives, safeParse answers with a
// result (success, or a ZodError) and never lets a TypeError or RangeError out of a
// transform; what parses is JSON-safe and a fixed point of its schema. And money
// normalisation loses nothing: the decimal string that comes out equals the input.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ZodError } from 'zod'
import type { ZodType } from 'zod'
import { Big } from '../../../../src/shared/money'
import { endpointNames, endpoints } from '../../../../src/shared/api/endpoints'
import type { EndpointName } from '../../../../src/shared/api/endpoints'
import { ErrorEnvelope, Id, Money, Timestamp } from '../../../../src/shared/api/schemas'
import { ERROR_ENVELOPE_DIR, fixturesOf, inFarTimeZone } from './load-fixtures'

const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/

/** The property every schema must keep: a result, never an escaping exception. */
function parsesOrReports(schema: ZodType, input: unknown): boolean {
  const r = schema.safeParse(input)
  if (!r.success) {
    expect(r.error).toBeInstanceOf(ZodError)
    expect(r.error.issues.length).toBeGreaterThan(0)
    return false
  }
  // The output crosses IPC and lands in SQLite: it must survive JSON.
  expect(() => JSON.stringify(r.data)).not.toThrow()
  // Normalisation is idempotent, so data read back from the local store parses the same.
  expect(schema.parse(r.data)).toEqual(r.data)
  return true
}

// ---------------------------------------------------------------- near-miss inputs

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Path = (string | number)[]

function pathsOf(v: Json, at: Path = []): Path[] {
  const out: Path[] = [at]
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...at, i])))
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...at, k]))
  return out
}

/** Values the live service or a broken proxy could plausibly put where a good one was. */
const hostile = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    '',
    ' ',
    '+5',
    '-0',
    '0.000',
    '1e999999999',
    '1e-1001',
    '1E+3',
    'NaN',
    'Infinity',
    '1,5',
    '0x10',
    '9007199254740993',
    '123456789012345678901',
    '2022-11-09T16:58:07',
    '2022-11-09',
    'yesterday',
    '__proto__',
    'constructor',
    -0,
    5e-324,
    1.7976931348623157e308,
    -1e21,
    1e-7,
    0.008157600000000001,
    2 ** 53 + 2,
    1.5,
    -1,
    [],
    {},
    { onRampFee: 1 },
    { min: 1 },
    ['0x'],
    { vpa: 1 }
  ),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.string({ unit: fc.constantFrom('0', '1', '9', '.', 'e', '-', '+', ' ', 'E'), maxLength: 12 })
)

/** Text that looks numeric or temporal: where the tolerant parsers' edge cases live. */
const numericLooking = fc.oneof(
  fc.constantFrom<Json>('+5', '+.0', '-0', '1e999999999', '1e-1001', '1e1000', '9007199254740993', '2022-11-09T16:58:07', ' 7 ', '07'),
  fc.string({ unit: fc.constantFrom('0', '1', '9', '.', 'e', 'E', '-', '+', ' '), minLength: 1, maxLength: 10 }),
  fc.string({ unit: fc.constantFrom('0', '1', '2', '9', '-', ':', 'T', '.', 'Z', '+'), minLength: 1, maxLength: 26 })
)

function valueAt(root: Json, path: Path): Json | undefined {
  let v: Json | undefined = root
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, Json>)[k] : undefined
  return v
}
const samePath = (a: Path, b: Path) => a.length === b.length && a.every((k, i) => k === b[i])

type Mutation =
  | { op: 'leaf'; pick: number; value: Json }
  | { op: 'replace'; pick: number; value: Json }
  | { op: 'delete'; pick: number }
  | { op: 'stringify'; pick: number }
  | { op: 'numberify'; pick: number }
  | { op: 'wrap'; pick: number }
  | { op: 'addKey'; pick: number; key: string; value: Json }
  | { op: 'respell'; pick: number }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('leaf' as const), pick: fc.nat(), value: numericLooking }), weight: 6 },
  fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: hostile }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('stringify' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('numberify' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('wrap' as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant('addKey' as const),
    pick: fc.nat(),
    key: fc.constantFrom(
      'onRampFee',
      'onrampFee',
      'networkConfig',
      'onramp',
      'offramp',
      'native',
      'exchanges',
      'status',
      'data',
      'code',
      'error',
      '10116',
      'x'
    ),
    value: hostile
  }),
  fc.record({ op: fc.constant('respell' as const), pick: fc.nat() })
)

const isLeaf = (v: Json | undefined) => typeof v === 'number' || typeof v === 'string'

function apply(root: Json, m: Mutation): Json {
  // The hostile values include shared constants ([], {}, ...): each use gets its own copy,
  // or adding a key to one could make it hold itself (a cycle no JSON has).
  if ('value' in m) m = { ...m, value: structuredClone(m.value) }
  if (m.op === 'leaf') {
    const leaves = pathsOf(root).filter((p) => p.length > 0 && isLeaf(valueAt(root, p)))
    const path = leaves[m.pick % Math.max(1, leaves.length)]
    return path ? apply(root, { op: 'replace', pick: pathsOf(root).findIndex((p) => samePath(p, path)), value: m.value }) : root
  }
  const paths = pathsOf(root)
  const path = paths[m.pick % paths.length] ?? []
  if (path.length === 0) {
    if (m.op === 'replace') return m.value
    if (m.op === 'wrap') return [root]
    if (m.op === 'stringify') return JSON.stringify(root)
  }
  const parentPath = path.slice(0, -1)
  const key = path[path.length - 1]
  let parent: Json = root
  for (const k of parentPath) parent = (parent as Record<string | number, Json>)[k] as Json
  const container = parent as Record<string | number, Json>
  const current = key === undefined ? root : container[key]
  if (key === undefined) return root
  switch (m.op) {
    case 'replace':
      container[key] = m.value
      break
    case 'delete':
      if (Array.isArray(container)) container.splice(key as number, 1)
      else delete container[key]
      break
    case 'stringify':
      container[key] = typeof current === 'string' ? current : JSON.stringify(current)
      break
    case 'numberify':
      if (typeof current === 'string') container[key] = Number(current)
      else if (typeof current === 'boolean') container[key] = current ? 1 : 0
      break
    case 'wrap':
      container[key] = [current ?? null]
      break
    case 'addKey':
      if (current !== null && typeof current === 'object' && !Array.isArray(current)) current[m.key] = m.value
      break
    case 'respell':
      if (!Array.isArray(container) && (key === 'onrampFee' || key === 'onRampFee')) {
        delete container[key]
        container[key === 'onrampFee' ? 'onRampFee' : 'onrampFee'] = current ?? null
      }
      break
  }
  return root
}

/** A fixture of this endpoint with one to four mutations applied (a deep copy each time). */
function nearMiss(dir: string): fc.Arbitrary<Json> {
  const bodies = [...fixturesOf(dir, 'ok'), ...fixturesOf(dir, 'bad')].map((f) => f.text)
  return fc
    .tuple(fc.constantFrom(...bodies), fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([text, ms]) => ms.reduce<Json>((acc, m) => apply(acc, m), JSON.parse(text) as Json))
}

// ---------------------------------------------------------------- response schemas

describe.each(endpointNames)('%s response schema', (name: EndpointName) => {
  const schema = endpoints[name].response as ZodType

  it('arbitrary JSON parses or is reported as a ZodError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void parsesOrReports(schema, v)),
      { numRuns: 300 }
    )
  })

  it('arbitrary JSON inside a success envelope parses or is reported', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.option(fc.constantFrom<Json>(200, '200', null, 'x')),
        (data, code) => void parsesOrReports(schema, code === null ? { status: 1, data } : { status: 1, code, data })
      ),
      { numRuns: 300 }
    )
  })

  it('near misses built from the fixtures parse or are reported; both outcomes occur', () => {
    let accepted = 0
    let rejected = 0
    fc.assert(
      fc.property(nearMiss(name), (v) => {
        if (parsesOrReports(schema, v)) accepted++
        else rejected++
      }),
      { numRuns: 400 }
    )
    // A generator that only ever breaks (or never breaks) the body would test little.
    expect(accepted).toBeGreaterThan(0)
    expect(rejected).toBeGreaterThan(0)
  })
})

describe('ErrorEnvelope', () => {
  it('arbitrary JSON and near misses parse or are reported', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void parsesOrReports(ErrorEnvelope, v)),
      { numRuns: 300 }
    )
    fc.assert(
      fc.property(nearMiss(ERROR_ENVELOPE_DIR), (v) => void parsesOrReports(ErrorEnvelope, v)),
      { numRuns: 400 }
    )
  })
})

// ---------------------------------------------------------------- money is lossless

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max })

/** Decimal text as JSON or a person would write it: sign, digits, fraction, exponent. */
const decimalText = fc
  .record({
    sign: fc.constantFrom('', '-', '+'),
    int: digits(0, 40),
    frac: fc.option(digits(0, 40)),
    exp: fc.option(fc.record({ e: fc.constantFrom('e', 'E'), sign: fc.constantFrom('', '+', '-'), n: fc.integer({ min: 0, max: 1000 }) }))
  })
  .filter(({ int, frac }) => int.length > 0 || (frac !== null && frac.length > 0))
  .map(({ sign, int, frac, exp }) => `${sign}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `${exp.e}${exp.sign}${exp.n}`}`)

describe('Money', () => {
  it('decimal text comes out as a plain decimal string numerically equal to the input', () => {
    fc.assert(
      fc.property(decimalText, fc.constantFrom('', ' ', '\t'), (text, pad) => {
        const out = Money.parse(`${pad}${text}${pad}`)
        expect(out).toMatch(PLAIN_DECIMAL)
        expect(new Big(out).eq(new Big(text.replace(/^\+/, '')))).toBe(true)
      }),
      { numRuns: 2000 }
    )
  })

  it('a JSON number comes out as the shortest decimal text of that double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const out = Money.parse(d)
        expect(out).toMatch(PLAIN_DECIMAL)
        expect(new Big(out).eq(new Big(String(d)))).toBe(true)
        // Nothing lost: the text reads back as the very same double.
        expect(Number(out) === d).toBe(true)
      }),
      { numRuns: 2000 }
    )
  })

  it('JSON text of a number and the number itself normalise to the same string', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (d) => void expect(Money.parse(JSON.stringify(d))).toBe(Money.parse(d))
      )
    )
  })

  it('exponents beyond ±1000 are refused, not expanded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1001, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('', '-', '+'), (n, s) => {
        expect(Money.safeParse(`1e${s}${n}`).success).toBe(false)
      })
    )
  })

  it('any string parses to a plain decimal or is reported', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789.eE+- '), maxLength: 20 })), (s) => {
        const r = Money.safeParse(s)
        if (r.success) expect(r.data).toMatch(PLAIN_DECIMAL)
        else expect(r.error).toBeInstanceOf(ZodError)
      }),
      { numRuns: 2000 }
    )
  })
})

describe('Id', () => {
  it('every safe integer, as a number or as text, comes out as that number', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(Id.parse(n)).toBe(n)
        expect(Id.parse(String(n))).toBe(n)
      })
    )
  })

  it('integer text beyond 2^53 is refused rather than rounded to another id', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: BigInt(Number.MAX_SAFE_INTEGER) + 1n, max: 10n ** 30n }), fc.boolean(), (b, neg) => {
        expect(Id.safeParse(`${neg ? '-' : ''}${b}`).success).toBe(false)
      })
    )
  })
})

describe('Timestamp', () => {
  inFarTimeZone()

  const instant = fc.date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true })
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0')

  it('the zone is really not UTC here', () => {
    expect(new Date(2022, 0, 1).getTimezoneOffset()).toBe(-330)
  })

  it('ISO with Z, without milliseconds and without a zone all name the same UTC instant', () => {
    fc.assert(
      fc.property(instant, (d) => {
        const iso = d.toISOString()
        expect(Timestamp.parse(iso)).toBe(iso)
        expect(Timestamp.parse(iso.slice(0, -1))).toBe(iso)
        const noMs = iso.slice(0, 19)
        expect(Timestamp.parse(`${noMs}Z`)).toBe(`${noMs}.000Z`)
        expect(Timestamp.parse(noMs)).toBe(`${noMs}.000Z`)
      })
    )
  })

  it('an offset time is converted to the same instant in UTC', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -12 * 60, max: 14 * 60 }), (d, offsetMin) => {
        const local = new Date(d.getTime() + offsetMin * 60_000).toISOString().slice(0, 23)
        const sign = offsetMin < 0 ? '-' : '+'
        const text = `${local}${sign}${pad(Math.trunc(offsetMin / 60))}:${pad(offsetMin % 60)}`
        expect(Timestamp.parse(text)).toBe(d.toISOString())
      })
    )
  })

  it('any string parses to ISO with milliseconds or is reported', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789-:T.Z+ '), maxLength: 30 })), (s) => {
        const r = Timestamp.safeParse(s)
        if (r.success) expect(r.data).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        else expect(r.error).toBeInstanceOf(ZodError)
      }),
      { numRuns: 2000 }
    )
  })
})

// Which JSON type each integer-valued request field is sent as, per profile. The spec
// types some id fields as strings and others as integers, and the live service is known
// to check types somewhere (409 "wrong parameter type") without any field being proven
// either way (live-service notes, parameter types). So every field starts as the
// endpoint table says (idParams: the spec's type), and when the service answers 409 the
// client tries the other encoding: the fields the error names, or, when it names none,
// one field at a time and then all of them. What the service accepted is kept (through
// the store, so a restart does not pay the 409 again) and shown in diagnostics.
import { endpoints, type EndpointName, type IdEncoding } from '../../shared/api/endpoints'

export interface LearnedEncoding {
  encoding: IdEncoding
  /** The service answered a request that carried the field in this encoding. */
  confirmed: boolean
  /** When a 409 taught the client this encoding (epoch ms); null while it is the spec's. */
  learnedAt: number | null
}

/** Where learned encodings live between runs (the profile database). Keys are "endpoint.field". */
export interface EncodingStore {
  load(): Record<string, LearnedEncoding>
  save(key: string, value: LearnedEncoding): void
}

/** The encoding of each integer-valued field present in one request. */
export type EncodingMap = Record<string, IdEncoding>

export interface FieldEncodingInfo {
  endpoint: EndpointName
  field: string
  /** What the spec's table says (the default). */
  spec: IdEncoding
  encoding: IdEncoding
  confirmed: boolean
  learnedAt: number | null
}

const other = (e: IdEncoding): IdEncoding => (e === 'integer' ? 'string' : 'integer')
const keyOf = (endpoint: string, field: string) => `${endpoint}.${field}`
const sameMap = (a: EncodingMap, b: EncodingMap) => Object.keys(a).every((k) => a[k] === b[k])

export class ParamEncodings {
  private readonly state = new Map<string, LearnedEncoding>()

  constructor(
    private readonly store?: EncodingStore,
    private readonly now: () => number = Date.now
  ) {
    for (const [k, v] of Object.entries(store?.load() ?? {})) {
      const [endpoint, field] = k.split('.') as [string, string]
      // A field the table no longer lists (an older build learned it) is forgotten.
      const spec = (endpoints as Record<string, { idParams: Record<string, IdEncoding> }>)[endpoint]?.idParams[field]
      if (spec && (v.encoding === 'integer' || v.encoding === 'string')) this.state.set(k, v)
    }
  }

  /** The encoding each integer-valued field of `body` is sent with now. */
  current(endpoint: EndpointName, body: Record<string, unknown>): EncodingMap {
    const out: EncodingMap = {}
    for (const [field, spec] of Object.entries(endpoints[endpoint].idParams)) {
      const v = body[field]
      // Only integer values have two encodings ('' for merchantHistory's type has one).
      if (typeof v === 'number' && Number.isInteger(v)) out[field] = this.state.get(keyOf(endpoint, field))?.encoding ?? spec
    }
    return out
  }

  /** The body as sent: each field of `map` as a JSON number or a string of its digits. */
  encode(body: Record<string, unknown>, map: EncodingMap): Record<string, unknown> {
    const out = { ...body }
    for (const [field, enc] of Object.entries(map)) {
      const v = body[field]
      if (typeof v === 'number') out[field] = enc === 'string' ? String(v) : v
    }
    return out
  }

  /**
   * The next encoding to try after a 409 "wrong parameter type" answered `sent`, or null
   * when every candidate has been tried. `first` is the map of the call's first attempt.
   * The fields the error message names are flipped first; otherwise single fields (those
   * never confirmed before those that were), then all of them at once.
   */
  next(endpoint: EndpointName, first: EncodingMap, sent: EncodingMap, message: string, tried: readonly EncodingMap[]): EncodingMap | null {
    const fields = Object.keys(first)
    const fresh = (m: EncodingMap) => !tried.some((t) => sameMap(t, m))
    const flip = (base: EncodingMap, names: readonly string[]) => ({
      ...base,
      ...Object.fromEntries(names.map((f) => [f, other(base[f]!)]))
    })
    // The code's own words ("wrong parameter type") must not read as the field "type".
    const words = message.replace(/wrong parameter types?/gi, ' ')
    const named = fields.filter((f) => new RegExp(`\\b${f}\\b`).test(words))
    if (named.length > 0) {
      const m = flip(sent, named)
      if (fresh(m)) return m
    }
    const confirmed = (f: string) => this.state.get(keyOf(endpoint, f))?.confirmed === true
    const order = [...fields.filter((f) => !confirmed(f)), ...fields.filter(confirmed)]
    const candidates = [...order.map((f) => flip(first, [f])), ...(fields.length > 1 ? [flip(first, fields)] : [])]
    return candidates.find(fresh) ?? null
  }

  /** The service answered a request sent with `map`: keep what it took. */
  accepted(endpoint: EndpointName, map: EncodingMap): void {
    for (const [field, encoding] of Object.entries(map)) {
      const key = keyOf(endpoint, field)
      const before = this.state.get(key)
      if (before?.confirmed && before.encoding === encoding) continue
      const spec = endpoints[endpoint].idParams[field]
      const value: LearnedEncoding = { encoding, confirmed: true, learnedAt: encoding === spec ? null : this.now() }
      this.state.set(key, value)
      this.store?.save(key, value)
    }
  }

  /** Every integer-valued field of every endpoint with the encoding it goes as now. */
  snapshot(): FieldEncodingInfo[] {
    return (Object.keys(endpoints) as EndpointName[]).flatMap((endpoint) =>
      Object.entries(endpoints[endpoint].idParams).map(([field, spec]) => {
        const s = this.state.get(keyOf(endpoint, field))
        return { endpoint, field, spec, encoding: s?.encoding ?? spec, confirmed: s?.confirmed ?? false, learnedAt: s?.learnedAt ?? null }
      })
    )
  }
}

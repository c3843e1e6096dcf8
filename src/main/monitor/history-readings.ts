// What the history sync knows of how this profile's service reads merchantHistory where
// the spec leaves it open (docs/spec-readings.md, "merchantHistory readings checked at
// run time"): the field `since` filters on, the field the order sorts by, the number of
// the first page, the largest page it answers, and whether each order type's listings
// are filtered by fiatType at all. Each reading starts at the spec's most likely value
// ("assumed"), is "checked" by a cheap probe (history-probes.ts) or by what pages show
// (observe(): every page is evidence, at no cost), and "contradicted" when an answer
// disagrees, which makes the sync switch strategy and check again. Kept per profile in
// service_facts, so a restart starts from what was learned.
import type { ErrorInfo, OrderType } from '../../shared/ipc/contract'

/** The order field a reading names; 'unknown' when answers fit neither. */
export type HistoryField = 'updatedAt' | 'createdAt' | 'unknown'
export type FiatFilter = 'filter' | 'ignore'
export type ReadingState = 'assumed' | 'checked' | 'contradicted'
/** Whether `order` is honoured, or the one direction the service answers whatever is asked. */
export type Direction = 'honoured' | 'ASC' | 'DESC'

export interface Reading<V> {
  value: V
  state: ReadingState
  /** When it was last checked or contradicted (epoch ms); null while assumed. */
  at: number | null
  /** How it was found, in words (shown in diagnostics). */
  how: string
  /** A conclusive answer time does not change (page 0 refused): not checked again daily, only when doubted. */
  settled?: true
}

export interface HistoryReadingsState {
  sinceField: Reading<HistoryField>
  orderField: Reading<HistoryField>
  direction: Reading<Direction>
  firstPage: Reading<0 | 1>
  /** The most records a page holds: the spec's 500 unless the service was seen to cap it. */
  pageSize: Reading<number>
  /** The most records one answer held so far (a short page below it is the end, not a cap). */
  largestPage: number
  fiatFilter: Record<OrderType, Reading<FiatFilter>>
}

/** Where the readings live between runs (the profile database's service_facts). */
export interface ReadingsStore {
  load(): Record<string, unknown>
  save(key: string, value: unknown): void
}

/** One record of a page as the readings see it. */
export interface ObservedItem {
  orderId: number | null
  updatedAt: string | null
  createdAt: string | null
  fiatType: number | null
}

export interface PageObservation {
  type: OrderType
  /** The fiat type asked for. */
  fiatType: number
  since: string | undefined
  /** The direction asked for (default ASC); the records are judged as answered. */
  order?: 'ASC' | 'DESC'
  items: readonly ObservedItem[]
  /** Records of the page the database holds under another fiat type (the records named none). */
  foreign?: number
}

/** How long a checked reading is trusted before a probe confirms it again. */
export const RECHECK_MS = 24 * 60 * 60_000
/**
 * After an inconclusive first-page check, the next waits this long, doubling with each
 * inconclusive answer up to RECHECK_MS: under churn the check can stay inconclusive, and
 * checked at every run of every scope it would cost 3 requests, forever.
 */
export const FIRST_PAGE_BACKOFF_MS = 5 * 60_000
const MAX_PAGE = 500
/** Listings whose short first page is remembered as checked to end them (a profile polls a few dozen scopes at most). */
const MAX_SETTLED_ENDS = 64
/**
 * How long the same short first page stays settled as its listing's end. A page as large as
 * any seen may be a cap that happens to equal the listing's size: new orders then hide
 * behind the same answer, and the audit's count, made at the same unknown cap, cannot see
 * them. Settled for the audit's default interval rather than a day, they are found within
 * 30 minutes, at two checks an hour for such a listing.
 */
export const SETTLED_END_MS = 30 * 60_000

/** A short first page as the cap check sees it: the listing asked (type, fiat, since, order, size) and the page it answered (its length and the ids at both ends). */
export interface ShortAnswer {
  listing: string
  page: string
}

const assumed = <V>(value: V, how: string): Reading<V> => ({ value, state: 'assumed', at: null, how })

function initial(): HistoryReadingsState {
  return {
    sinceField: assumed<HistoryField>('updatedAt', 'the spec: "selects records from that time", read as the last change'),
    orderField: assumed<HistoryField>('updatedAt', 'the spec gives no field; the since reading suggests the last change'),
    direction: assumed<Direction>('honoured', 'the spec: order is ASC or DESC'),
    firstPage: assumed<0 | 1>(1, 'the spec: page defaults to 1'),
    pageSize: assumed(MAX_PAGE, 'the spec: pageSize up to 500'),
    largestPage: 0,
    fiatFilter: {
      1: assumed<FiatFilter>('filter', 'the spec: fiatType selects the fiat'),
      2: assumed<FiatFilter>('filter', 'the spec: fiatType selects the fiat')
    }
  }
}

const KEYS = ['sinceField', 'orderField', 'direction', 'firstPage', 'pageSize', 'largestPage', 'fiatFilter.1', 'fiatFilter.2'] as const

/** The direction a page runs in by one field: null when it never changes (or is missing), 'none' when it goes both ways. */
function runsBy(items: readonly ObservedItem[], pick: (i: ObservedItem) => string | number | null): 'ASC' | 'DESC' | 'none' | null {
  let up = false
  let down = false
  let prev: string | number | null = null
  for (const it of items) {
    const v = pick(it)
    if (v === null) continue
    if (prev !== null && v > prev) up = true
    if (prev !== null && v < prev) down = true
    prev = v
  }
  return up && down ? 'none' : up ? 'ASC' : down ? 'DESC' : null
}

/**
 * The direction a page was answered in, from its timestamps (updatedAt, createdAt) that
 * run one way along it; null when none does or they run opposite ways. Order ids are no
 * evidence: records sharing one instant may come in any order (reading 2).
 */
function answeredDirection(items: readonly ObservedItem[]): 'ASC' | 'DESC' | null {
  const runs = new Set([runsBy(items, (i) => i.updatedAt), runsBy(items, (i) => i.createdAt)])
  runs.delete(null)
  runs.delete('none')
  const [only, ...more] = [...runs]
  return only === undefined || more.length > 0 ? null : (only as 'ASC' | 'DESC')
}

/** A page is in `field` order (ASC) when that field never decreases along it. */
function sortedBy(items: readonly ObservedItem[], pick: (i: ObservedItem) => string | number | null): boolean | null {
  let prev: string | number | null = null
  let seen = 0
  for (const it of items) {
    const v = pick(it)
    if (v === null) continue
    if (prev !== null && v < prev) return false
    prev = v
    seen++
  }
  return seen >= 2 ? true : null
}

export class HistoryReadings {
  private s: HistoryReadingsState = initial()
  private readonly listeners = new Set<() => void>()
  /** Inconclusive first-page checks in a row, and when the next may run (in memory: a restart checks at once). */
  private firstPageMisses = 0
  private firstPageRetryAt = 0
  /** Short first pages checked to end their listing, by listing (in memory: a restart checks again). */
  private readonly ends = new Map<string, { page: string; at: number }>()

  constructor(
    private readonly store: ReadingsStore | null = null,
    private readonly now: () => number = Date.now
  ) {
    const saved = store?.load() ?? {}
    const r = this.s as unknown as Record<string, unknown>
    for (const k of KEYS) {
      const v = saved[k]
      if (v === undefined) continue
      if (k === 'largestPage') this.s.largestPage = typeof v === 'number' ? v : 0
      else if (k.startsWith('fiatFilter.')) this.s.fiatFilter[Number(k.slice(-1)) as OrderType] = v as Reading<FiatFilter>
      else r[k] = v
    }
  }

  state(): HistoryReadingsState {
    return structuredClone(this.s)
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  // ---------------------------------------------------------------- what the sync asks

  /** The page number to send for the 1-based page `p` of a listing. */
  wirePage(p: number): number {
    return p - 1 + this.s.firstPage.value
  }

  /** The page number to send for a listing's first page: undefined (left out, the spec's default) while the base is unknown. */
  firstPageWire(): number | undefined {
    return this.pageBaseKnown() ? this.wirePage(1) : undefined
  }

  /** The page size to ask for: at most `max` and at most what the service was seen to hold in a page. */
  pageSize(max: number): number {
    return Math.max(1, Math.min(max, this.s.pageSize.value))
  }

  /**
   * keyset: listings start just before the newest instant read (needs `since` and the
   * order both on updatedAt); offset: one listing paged by position, which loses nothing
   * when the order is on a field that never changes (createdAt, orderId).
   */
  strategy(): 'keyset' | 'offset' {
    return this.s.sinceField.value === 'updatedAt' && this.s.orderField.value === 'updatedAt' && this.s.direction.value !== 'DESC'
      ? 'keyset'
      : 'offset'
  }

  /** The direction the service answers when asked for `asked`. */
  answers(asked: 'ASC' | 'DESC'): 'ASC' | 'DESC' {
    return this.s.direction.value === 'honoured' ? asked : this.s.direction.value
  }

  /**
   * The field a listing asked DESC is seen to run newest first by (so a poll may stop
   * once it has passed the instant it needs), or null when that is not known from answers.
   */
  newestFirstBy(): 'updatedAt' | 'createdAt' | null {
    const f = this.s.orderField
    if (f.state === 'assumed' || f.value === 'unknown' || this.answers('DESC') !== 'DESC') return null
    return f.value
  }

  /** Whether the first page's number was found (else pages past the first are asked so that none can be skipped). */
  pageBaseKnown(): boolean {
    return this.s.firstPage.state !== 'assumed'
  }

  sinceField(): HistoryField {
    return this.s.sinceField.value
  }

  fiatIgnored(type: OrderType): boolean {
    return this.s.fiatFilter[type].value === 'ignore'
  }

  /** Which active checks are due: never made, contradicted, asked for again, or older than a day. */
  due(): { sinceField: boolean; firstPage: boolean } {
    const stale = (r: Reading<unknown>) => r.state !== 'checked' || r.at === null || (r.settled !== true && this.now() - r.at >= RECHECK_MS)
    return { sinceField: stale(this.s.sinceField), firstPage: stale(this.s.firstPage) && this.now() >= this.firstPageRetryAt }
  }

  /** A first-page check told nothing (orders moved between its requests, a 5xx): the next one is backed off. */
  inconclusive(): void {
    this.firstPageMisses++
    this.firstPageRetryAt = this.now() + Math.min(RECHECK_MS, FIRST_PAGE_BACKOFF_MS * 2 ** (this.firstPageMisses - 1))
  }

  /** An answer cast doubt on everything (the audit found orders missing): the probes run again before the next sync. */
  doubt(): void {
    this.s.sinceField = { ...this.s.sinceField, at: null }
    const { settled: _settled, ...firstPage } = this.s.firstPage
    this.s.firstPage = { ...firstPage, at: null }
    this.firstPageMisses = 0
    this.firstPageRetryAt = 0
    this.ends.clear()
    this.persist('sinceField', 'firstPage')
  }

  /**
   * Whether a short page of n records (asked for `asked`) may be a cap rather than the end.
   * `answer` names the listing asked and the page it answered: the same answer as one
   * already checked to end its listing (within SETTLED_END_MS, and since no doubt) is settled,
   * not asked again at every poll that reads it (a listing a poll reads whole, the largest
   * page seen, cost a check a poll: 119 an hour).
   */
  ambiguousShort(n: number, asked: number, answer?: ShortAnswer): boolean {
    if (!(n > 0 && n < asked && n >= this.s.largestPage && !(this.s.pageSize.state === 'checked' && n < this.s.pageSize.value)))
      return false
    const settled = answer ? this.ends.get(answer.listing) : undefined
    return !(settled && answer && settled.page === answer.page && this.now() - settled.at < SETTLED_END_MS)
  }

  // ---------------------------------------------------------------- what answers teach

  /** A short page was the end of its listing (the next page was empty): pages of n records are not a cap. */
  noteEnd(n: number, answer?: ShortAnswer): void {
    if (answer) {
      this.ends.delete(answer.listing)
      this.ends.set(answer.listing, { page: answer.page, at: this.now() })
      // The oldest goes first: a few listings a profile polls, kept apart.
      for (const k of this.ends.keys()) if (this.ends.size > MAX_SETTLED_ENDS) this.ends.delete(k)
    }
    if (n <= this.s.largestPage) return
    this.s.largestPage = n
    this.persist('largestPage')
  }

  /** A short page had more after it: the service holds at most n records a page. */
  learnCap(n: number): void {
    this.s.pageSize = this.reading(n, `a page asked for more held ${n} records and the next page was not empty`)
    this.ends.clear()
    this.persist('pageSize')
  }

  /**
   * Sets a reading found by a probe (history-probes.ts): checked now, whatever it was;
   * settled, not checked again until doubted (a service that refused page 0 counts from 1).
   */
  found<K extends 'sinceField' | 'firstPage'>(key: K, value: HistoryReadingsState[K]['value'], how: string, settled = false): void {
    ;(this.s[key] as Reading<unknown>) = { ...this.reading(value, how), ...(settled ? { settled: true as const } : {}) }
    if (key === 'firstPage') this.firstPageMisses = this.firstPageRetryAt = 0
    this.persist(key)
  }

  /**
   * Every page is evidence. Returns whether what the walk relies on changed (the order's
   * or since's field: the run starts again with the other strategy).
   */
  observe(o: PageObservation): { strategyChanged: boolean } {
    const before = this.strategy()
    const changed: string[] = []
    const at = (i: ObservedItem) => i.updatedAt
    // The direction: a page answered the other way than asked shows `order` is ignored;
    // one answered as asked, the opposite of what was believed, shows it is honoured. An
    // answer in the one direction believed tells nothing (it fits both).
    const asked = o.order ?? 'ASC'
    const answered = answeredDirection(o.items)
    if (answered !== null && answered !== asked)
      changed.push(...this.confirm('direction', answered, `a page asked ${asked} was answered ${answered}`))
    else if (answered === asked && this.s.direction.value !== asked)
      changed.push(...this.confirm('direction', 'honoured', `a page asked ${asked} was answered ${asked}`))
    // The order, judged on the page as answered, read oldest first: a page sorted by one
    // field and not by the other tells which.
    const ascending = (answered ?? this.answers(asked)) === 'DESC' ? [...o.items].reverse() : o.items
    const byUpdate = sortedBy(ascending, at)
    const byCreation = sortedBy(ascending, (i) => i.createdAt)
    const byId = sortedBy(ascending, (i) => i.orderId)
    const n = o.items.length
    if (byUpdate === true && byCreation === false)
      changed.push(...this.confirm('orderField', 'updatedAt', `a page of ${n} sorted by updatedAt, not by createdAt`))
    else if (byUpdate === false && (byCreation === true || byId === true))
      changed.push(
        ...this.confirm('orderField', 'createdAt', `a page of ${n} sorted by ${byCreation ? 'createdAt' : 'orderId'}, not by updatedAt`)
      )
    else if (byUpdate === false)
      changed.push(...this.confirm('orderField', 'unknown', `a page of ${n} sorted by neither updatedAt, createdAt nor orderId`))
    // since: no record may come from before it on the field it filters.
    if (o.since !== undefined) {
      const since = o.since
      const early = (v: string | null) => v !== null && v < since
      const beforeByUpdate = o.items.some((i) => early(i.updatedAt))
      const beforeByCreation = o.items.some((i) => early(i.createdAt))
      const current = this.s.sinceField.value
      if (current === 'updatedAt' && beforeByUpdate)
        changed.push(
          ...this.confirm('sinceField', beforeByCreation ? 'unknown' : 'createdAt', `records updated before since ${since} were listed`)
        )
      else if (current === 'createdAt' && beforeByCreation)
        changed.push(
          ...this.confirm('sinceField', beforeByUpdate ? 'unknown' : 'updatedAt', `records created before since ${since} were listed`)
        )
      else if (current === 'updatedAt' && beforeByCreation && this.s.sinceField.state === 'assumed')
        changed.push(...this.confirm('sinceField', 'updatedAt', `records created before since ${since} and changed after it were listed`))
    }
    // fiatType: records of the fiat asked and of another, or of two others, in one answer;
    // or records we hold under another fiat. A listing made only of one other fiat's records
    // is not that: a service may answer a fiat it does not know with its default fiat's
    // listing, which says nothing of the fiats it does know (scope-discovery.ts reads such
    // a fiat as holding no orders).
    const others = new Set(o.items.filter((i) => i.fiatType !== null && i.fiatType !== o.fiatType).map((i) => i.fiatType))
    const other =
      others.size > 0 && (others.size > 1 || o.items.some((i) => i.fiatType === o.fiatType))
        ? o.items.find((i) => i.fiatType !== null && i.fiatType !== o.fiatType)
        : undefined
    if (other || (o.foreign ?? 0) > 0)
      changed.push(
        ...this.confirm(
          `fiatFilter.${o.type}`,
          'ignore',
          other
            ? `fiatType ${o.fiatType} listed an order of fiat ${other.fiatType}`
            : `fiatType ${o.fiatType} listed orders held under another fiat`
        )
      )
    if (n > this.s.largestPage) {
      this.s.largestPage = n
      changed.push('largestPage')
    }
    this.persist(...(changed as (typeof KEYS)[number][]))
    return { strategyChanged: this.strategy() !== before }
  }

  // ---------------------------------------------------------------- internals

  private reading<V>(value: V, how: string): Reading<V> {
    return { value, state: 'checked', at: this.now(), how }
  }

  /** Records evidence for a reading; returns the keys whose stored value changed. */
  private confirm(key: 'sinceField' | 'orderField' | 'direction' | `fiatFilter.${OrderType}`, value: string, how: string): string[] {
    const cur = this.get(key)
    if (cur.value === value) {
      if (cur.state === 'checked' && cur.at !== null && this.now() - cur.at < RECHECK_MS / 24) return []
      this.set(key, { ...this.reading(value, cur.state === 'assumed' ? how : cur.how) })
      return [key]
    }
    this.set(key, { value, state: cur.state === 'assumed' ? 'checked' : 'contradicted', at: this.now(), how })
    return [key]
  }

  private get(key: string): Reading<unknown> {
    if (key.startsWith('fiatFilter.')) return this.s.fiatFilter[Number(key.slice(-1)) as OrderType]
    return (this.s as unknown as Record<string, Reading<unknown>>)[key] as Reading<unknown>
  }

  private set(key: string, r: Reading<unknown>): void {
    if (key.startsWith('fiatFilter.')) this.s.fiatFilter[Number(key.slice(-1)) as OrderType] = r as Reading<FiatFilter>
    else (this.s as unknown as Record<string, Reading<unknown>>)[key] = r
  }

  private persist(...keys: (typeof KEYS)[number][]): void {
    if (keys.length === 0) return
    for (const k of new Set(keys)) this.store?.save(k, k === 'largestPage' ? this.s.largestPage : this.get(k))
    for (const l of this.listeners) l()
  }
}

/**
 * An error a check must pass on to its run rather than read as "inconclusive": an auth
 * failure (401, 403: never an answer about the listing) or an abort.
 */
export const failsTheRun = (e: unknown): boolean => ['auth', 'aborted'].includes((e as { kind?: string } | null)?.kind ?? '')

/** The HTTP status and the envelope's code of an error: the live notes say they usually agree; either counts. */
const statusesOf = (x: { httpStatus?: unknown; code?: unknown }): number[] =>
  [x.httpStatus, x.code].filter((s): s is number => typeof s === 'number')

/** A status that is no answer about the listing: a server error, credentials, the rate limit. */
const notAboutTheListing = (s: number): boolean => s >= 500 || s === 401 || s === 403 || s === 429

/**
 * Whether an error is the service refusing a request with a 4xx other than 401, 403 and
 * 429: on a page past the data that is the end of the listing (some services answer an
 * empty listing with 404 "No transactions found", or 400, 422...), and on page 0 a
 * 1-based service saying it has none. The envelope's code counts as much as the HTTP status.
 */
export function isClientRefusal(e: unknown): boolean {
  const x = e as { kind?: string; httpStatus?: number; code?: number } | null
  if (x?.kind !== 'api' && x?.kind !== 'http') return false
  const statuses = statusesOf(x)
  if (statuses.some(notAboutTheListing)) return false
  return statuses.some((s) => s >= 400 && s < 500)
}

/**
 * An error that says the listing is empty rather than refused: a 404 ("No transactions
 * found", the resource of an empty list), or any 4xx whose text says there is nothing. A
 * service may answer HTTP 200 carrying {status: 0, code: 404}.
 */
export function isEmptyAnswer(info: ErrorInfo): boolean {
  const statuses = statusesOf(info)
  if (statuses.includes(404)) return true
  if (statuses.some(notAboutTheListing)) return false
  return statuses.some((s) => s >= 400 && s < 500) && /\bno (transactions?|orders?|records?|data|results?)\b/i.test(info.message)
}

// Cached service configuration (mappings, chains, fees, limits...) so the app starts with
// the last known config offline, knows how old it is, and can tell when a refetch changed it.
import { canonicalJson, contentHash } from './content-hash'
import type { Sql } from './sql'

export interface CachedConfig<T = unknown> {
  key: string
  value: T
  fetchedAt: string
  etag: string | null
  /** SHA-256 of the canonical JSON of value. */
  hash: string
}

export class ConfigCacheRepo {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => Date = () => new Date()
  ) {}

  /** This cache as the service configuration's cache reads it: the JSON text and when it was fetched, in ms. */
  forConfigCache(): {
    get(key: string): { json: string; fetchedAt: number } | undefined
    put(key: string, json: string, fetchedAt: number): void
  } {
    return {
      get: (key) => {
        const c = this.get(key)
        return c ? { json: JSON.stringify(c.value), fetchedAt: Date.parse(c.fetchedAt) } : undefined
      },
      put: (key, json, fetchedAt) => void this.put(key, JSON.parse(json), { fetchedAt: new Date(fetchedAt).toISOString() })
    }
  }

  get<T = unknown>(key: string): CachedConfig<T> | undefined {
    const r = this.sql.get<{ key: string; json: string; fetched_at: string; etag: string | null; hash: string }>(
      'SELECT key, json, fetched_at, etag, hash FROM config_cache WHERE key = ?',
      key
    )
    return r ? { key: r.key, value: JSON.parse(r.json) as T, fetchedAt: r.fetched_at, etag: r.etag, hash: r.hash } : undefined
  }

  /** Stores a fresh copy; `changed` says whether the content differs from the cached one. */
  put<T>(key: string, value: T, opts: { fetchedAt?: string; etag?: string | null } = {}): { changed: boolean; entry: CachedConfig<T> } {
    if (value === undefined) throw new TypeError('cannot cache undefined')
    const json = canonicalJson(value)
    const hash = contentHash(value)
    const fetchedAt = opts.fetchedAt ?? this.now().toISOString()
    const etag = opts.etag ?? null
    return this.sql.transaction(() => {
      const before = this.sql.value<string>('SELECT hash FROM config_cache WHERE key = ?', key)
      this.sql.run(
        `INSERT INTO config_cache (key, json, fetched_at, etag, hash) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at, etag = excluded.etag, hash = excluded.hash`,
        key,
        json,
        fetchedAt,
        etag,
        hash
      )
      return { changed: before !== hash, entry: { key, value: JSON.parse(json) as T, fetchedAt, etag, hash } }
    })
  }

  /** Marks a cached entry as confirmed fresh (e.g. a 304 or an identical answer) without rewriting it. */
  touch(key: string, fetchedAt: string = this.now().toISOString()): boolean {
    return this.sql.run('UPDATE config_cache SET fetched_at = ? WHERE key = ?', fetchedAt, key).changes > 0
  }

  delete(key: string): boolean {
    return this.sql.run('DELETE FROM config_cache WHERE key = ?', key).changes > 0
  }

  list(): { key: string; fetchedAt: string; hash: string }[] {
    return this.sql
      .all<{ key: string; fetched_at: string; hash: string }>('SELECT key, fetched_at, hash FROM config_cache ORDER BY key')
      .map((r) => ({ key: r.key, fetchedAt: r.fetched_at, hash: r.hash }))
  }
}

// Would an index of longer grams keep a long search flat from 100,000 to 1,000,000 orders?
// The per-order trigram index's doclists grow with the orders (a hex trigram is in about
// one hash in 70), so every search of 3+ characters reads more at a million. This builds,
// beside it on a probe database (query-probe.ts fill), an FTS5 index of the k-grams of the
// same texts (lower-cased merchant reference, reference id and hash of the onramp orders;
// detail=none, each gram hex-encoded as one token) and times a text both ways: the trigram
// phrase, and the AND of the text's k-grams with instr() to verify. Not part of `npm run
// bench`; it writes a table into the database it is given (a probe's, never a profile's).
//
//   npx tsx bench/gram-probe.ts build <dir> <k>             the k-gram index (g<k>_1)
//   npx tsx bench/gram-probe.ts merge <dir> <table>         FTS5 'optimize': one segment
//   npx tsx bench/gram-probe.ts measure <dir> <k> text ...  one JSON line per text
//   npx tsx bench/gram-probe.ts trigger <dir> <k> [text ...] what the index costs an insert
//                                                           when triggers keep it (the grams
//                                                           made in SQL), and whether it finds
//                                                           what the built one finds
//
// Each text is timed five times in a row (warm) and the median kept, both ways; the
// segments each index has are printed first.
import { openLocalStore } from '../src/main/store/local-store'

const [cmd, dir, arg, ...texts] = process.argv.slice(2)
if (!dir || !arg) throw new Error('usage: build <dir> <k> | merge <dir> <table> | measure <dir> <k> text ...')
const store = openLocalStore(dir)
const sql = store.database.sql
const raw = sql.raw
const print = (o: Record<string, unknown>): void => void process.stdout.write(JSON.stringify(o) + '\n')
const ms = (t0: number): number => Math.round((performance.now() - t0) * 100) / 100

function grams(s: string, k: number): string[] {
  const out = new Set<string>()
  for (let i = 0; i + k <= s.length; i++) out.add(s.slice(i, i + k))
  return [...out]
}
/** One token per gram whatever its characters (the ascii tokenizer splits on anything but letters and digits). */
const token = (g: string): string => Buffer.from(g, 'utf8').toString('hex')
const segments = (table: string): number => sql.value<number>(`SELECT count(DISTINCT segid) FROM "${table}_idx"`) ?? 0

if (cmd === 'build') {
  const k = Number(arg)
  const table = `g${k}_1`
  const t0 = performance.now()
  const pages0 = sql.value<number>('PRAGMA page_count')!
  raw.exec(`DROP TABLE IF EXISTS ${table}; CREATE VIRTUAL TABLE ${table} USING fts5(g, tokenize = 'ascii', content = '', detail = none)`)
  const insert = raw.prepare(`INSERT INTO ${table}(rowid, g) VALUES (?, ?)`)
  const rows = raw
    .prepare(
      'SELECT id, lower(merchant_recognition_id) AS a, lower(reference_id) AS b, lower(transaction_hash) AS c FROM orders WHERE type = 1'
    )
    .iterate() as Iterable<{ id: number; a: string | null; b: string | null; c: string | null }>
  // Committed every 100,000 orders, as a first sync commits page by page: the index ends in
  // several segments, as a profile's would.
  raw.exec('BEGIN')
  let n = 0
  for (const r of rows) {
    insert.run(
      r.id,
      [r.a, r.b, r.c]
        .flatMap((x) => (x ? grams(x, k) : []))
        .map(token)
        .join(' ')
    )
    if (++n % 100_000 === 0) raw.exec('COMMIT; BEGIN')
  }
  raw.exec('COMMIT')
  const mb = ((sql.value<number>('PRAGMA page_count')! - pages0) * sql.value<number>('PRAGMA page_size')!) / 1e6
  print({ built: table, dir, orders: n, ms: ms(t0), mb: Math.round(mb * 10) / 10, segments: segments(table) })
} else if (cmd === 'merge') {
  const t0 = performance.now()
  raw.exec(`INSERT INTO "${arg}"("${arg}") VALUES('optimize')`)
  print({ merged: arg, dir, ms: ms(t0), segments: segments(arg) })
} else if (cmd === 'measure') {
  const k = Number(arg)
  const table = `g${k}_1`
  print({ dir, segments: { orders_text_1: segments('orders_text_1'), [table]: segments(table) } })
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const typed of texts) {
    const t = typed.toLowerCase()
    if (t.length < k) continue
    const trigram: number[] = []
    const gram: number[] = []
    let found = { trigram: 0, gram: 0, candidates: 0 }
    for (let i = 0; i < 5; i++) {
      let t0 = performance.now()
      const a = sql.all('SELECT rowid FROM orders_text_1 WHERE orders_text_1 MATCH ?', `"${t.replace(/"/g, '""')}"`).length
      trigram.push(ms(t0))
      t0 = performance.now()
      const ids = sql.all<{ rowid: number }>(
        `SELECT rowid FROM ${table} WHERE ${table} MATCH ?`,
        grams(t, k)
          .map((g) => `"${token(g)}"`)
          .join(' AND ')
      )
      const b = sql.all(
        `SELECT id FROM orders WHERE id IN (SELECT value FROM json_each(?))
           AND (instr(lower(merchant_recognition_id), ?) OR instr(lower(reference_id), ?) OR instr(lower(transaction_hash), ?))`,
        JSON.stringify(ids.map((x) => x.rowid)),
        t,
        t,
        t
      ).length
      gram.push(ms(t0))
      found = { trigram: a, gram: b, candidates: ids.length }
    }
    print({ text: typed, trigramMs: median(trigram), gramMs: median(gram), ...found })
  }
} else if (cmd === 'trigger') {
  // The onramp orders' texts copied into a table of their own in pages of 500 (a sync's
  // page, one transaction each), without and then with a trigger that keeps a k-gram index
  // of them: the grams made in SQL from a table of positions (a trigger cannot use a CTE).
  const k = Number(arg)
  const table = `g${k}t_1`
  raw.exec(`
    DROP TABLE IF EXISTS probe_orders; DROP TABLE IF EXISTS probe_positions; DROP TABLE IF EXISTS ${table};
    CREATE TABLE probe_orders (id INTEGER PRIMARY KEY, mr TEXT, ref TEXT, hash TEXT);
    CREATE TABLE probe_positions (n INTEGER PRIMARY KEY);
    INSERT INTO probe_positions (n) SELECT value FROM generate_series(1, 512);
    CREATE VIRTUAL TABLE ${table} USING fts5(g, tokenize = 'ascii', content = '', contentless_delete = 1, detail = none);`)
  const ids = sql.all<{ id: number }>('SELECT id FROM orders WHERE type = 1 ORDER BY id').map((r) => r.id)
  const copy = raw.prepare(
    'INSERT INTO probe_orders (id, mr, ref, hash) SELECT id, merchant_recognition_id, reference_id, transaction_hash FROM orders WHERE id >= ? AND id <= ? AND type = 1'
  )
  const insertAll = (): number => {
    const t0 = performance.now()
    for (let i = 0; i < ids.length; i += 500) {
      raw.exec('BEGIN')
      copy.run(ids[i], ids[Math.min(i + 499, ids.length - 1)])
      raw.exec('COMMIT')
    }
    return ms(t0)
  }
  const plain = insertAll()
  raw.exec(`DELETE FROM probe_orders;
    CREATE TRIGGER probe_orders_grams AFTER INSERT ON probe_orders BEGIN
      INSERT INTO ${table} (rowid, g)
        SELECT new.id, group_concat(hex(substr(x.v, p.n, ${k})), ' ')
        FROM (SELECT lower(new.mr) AS v UNION ALL SELECT lower(new.ref) UNION ALL SELECT lower(new.hash)) AS x
        JOIN probe_positions AS p ON p.n <= length(x.v) - ${k - 1};
    END;`)
  const withGrams = insertAll()
  const perOrderUs = (t: number): number => Math.round((t * 1000) / ids.length)
  print({
    trigger: table,
    dir,
    orders: ids.length,
    plainMs: plain,
    withGramsMs: withGrams,
    plainUsPerOrder: perOrderUs(plain),
    withGramsUsPerOrder: perOrderUs(withGrams),
    segments: segments(table)
  })
  // The same candidates as the index built in JS (build), for each text given.
  for (const typed of texts) {
    const t = typed.toLowerCase()
    if (t.length < k) continue
    const q = grams(t, k)
      .map((g) => `"${token(g)}"`)
      .join(' AND ')
    const fromTrigger = sql
      .all<{ rowid: number }>(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`, q)
      .map((r) => r.rowid)
    const built = sql.all<{ rowid: number }>(`SELECT rowid FROM g${k}_1 WHERE g${k}_1 MATCH ? ORDER BY rowid`, q).map((r) => r.rowid)
    print({
      text: typed,
      fromTrigger: fromTrigger.length,
      built: built.length,
      same: JSON.stringify(fromTrigger) === JSON.stringify(built)
    })
  }
  raw.exec(`DROP TABLE probe_orders; DROP TABLE probe_positions; DROP TABLE ${table};`)
} else throw new Error(`unknown command ${cmd}`)
store.close()

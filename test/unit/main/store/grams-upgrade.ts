// A profile database as a Rampdesk from before the gram index (migration 15) left it: the
// store is opened and filled by today's code, then the migration's tables, triggers and
// record are taken out, so the next open applies it for real to the orders held.
import { join } from 'node:path'
import Database from 'libsql'
import { DATABASE_FILE } from '../../../../src/main/store/database'

export function undoGramsMigration(dir: string): void {
  const raw = new Database(join(dir, DATABASE_FILE))
  try {
    raw.exec(`
      DROP TRIGGER orders_grams_insert; DROP TRIGGER orders_grams_update; DROP TRIGGER orders_grams_delete;
      DROP TABLE orders_grams_1; DROP TABLE orders_grams_2; DROP TABLE orders_grams_fill;
      DELETE FROM schema_migrations WHERE version = 15;`)
  } finally {
    raw.close()
  }
}

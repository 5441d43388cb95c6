import type { Db } from './database.js';
import { dialectOf } from './dialect.js';

/**
 * Several reads of one request, before its transaction. On PostgreSQL they
 * run under one hold of a pooled connection, so that each does not wait for
 * a connection of its own while group commits hold theirs. On SQLite they
 * run on the instance itself: its plain reads take the reader connection at
 * once (see RoutedConnection) and skip kysely's per-query connection (see
 * runOnSqlite).
 */
export function readTogether<T>(db: Db, reads: (db: Db) => Promise<T>): Promise<T> {
  return dialectOf(db) === 'sqlite' ? reads(db) : db.connection().execute(reads);
}

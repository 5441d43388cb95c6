import { PostgresAdapter, type Kysely } from 'kysely';

/** The two stores the engine runs on. SQLite is the embedded default; PostgreSQL lets several engine processes share one database. */
export type StoreDialect = 'sqlite' | 'postgres';

/**
 * Which store a kysely instance (or a transaction of it) talks to. Migrations
 * and the few dialect-specific statements receive only the kysely instance,
 * so the adapter it compiles for is the one thing every caller has.
 */
export function dialectOf(db: Kysely<any>): StoreDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

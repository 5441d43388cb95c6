import { Migrator, NO_MIGRATIONS, type MigrationResultSet } from 'kysely';
import { EngineError } from '../errors.js';
import type { Db } from './database.js';
import { dialectOf } from './dialect.js';
import { migrations } from './migrations/index.js';
import { PostgresTypesPlugin } from './postgres-ddl.js';

function migrator(db: Db): Migrator {
  return new Migrator({
    // The migrations name SQLite's column types; PostgreSQL gets its equivalents.
    db: dialectOf(db) === 'postgres' ? db.withPlugin(new PostgresTypesPlugin()) : db,
    provider: { getMigrations: async () => migrations },
  });
}

export interface MigrationStep {
  readonly name: string;
  readonly direction: 'Up' | 'Down';
  readonly status: 'Success' | 'Error' | 'NotExecuted';
}

function unwrap(result: MigrationResultSet): MigrationStep[] {
  const steps = (result.results ?? []).map(({ migrationName, direction, status }) => ({
    name: migrationName,
    direction,
    status,
  }));
  if (result.error) {
    const cause = result.error instanceof Error ? result.error.message : String(result.error);
    throw new EngineError('unavailable', 'Store.MigrationFailed', `Migration failed: ${cause}`);
  }
  return steps;
}

export const migrateToLatest = async (db: Db) => unwrap(await migrator(db).migrateToLatest());
export const migrateDown = async (db: Db) => unwrap(await migrator(db).migrateDown());
export const migrateTo = async (db: Db, name: string | 'none') =>
  unwrap(await migrator(db).migrateTo(name === 'none' ? NO_MIGRATIONS : name));

export async function migrationStatus(db: Db): Promise<{ name: string; executedAt: string | null }[]> {
  const list = await migrator(db).getMigrations();
  return list.map((m) => ({ name: m.name, executedAt: m.executedAt?.toISOString() ?? null }));
}

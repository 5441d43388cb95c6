import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL mode of the suite: with ECF_TEST_DATABASE_URL (a server
 * URL, see scripts/with-postgres.sh) every engine a test opens lives in a
 * database of its own on that server, dropped after the test. Without it
 * the suite runs on SQLite files.
 */
export const TEST_SERVER_URL = process.env.ECF_TEST_DATABASE_URL || undefined;

/** Migrated once per run (global-setup.ts); engines made by testEngine() start as a copy of it. */
export const TEMPLATE_DATABASE = 'ecf_template';

export function databaseUrl(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

export const freshDatabaseName = () => `ecf_t_${process.pid}_${randomBytes(4).toString('hex')}`;

let admin: pg.Pool | undefined;
const adminPool = (server: string) => (admin ??= new pg.Pool({ connectionString: server, max: 2 }));

/** A new database copied from the migrated template: creating it costs a file copy, not eleven migrations. */
export async function createFromTemplate(server: string): Promise<string> {
  const name = freshDatabaseName();
  await adminPool(server).query(`create database ${pg.escapeIdentifier(name)} template ${TEMPLATE_DATABASE}`);
  return name;
}

/** Drops a test's database, ending any connection a child process left open. */
export async function dropDatabase(server: string, name: string): Promise<void> {
  await adminPool(server).query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
}

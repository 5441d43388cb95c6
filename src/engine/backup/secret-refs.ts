import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';

/**
 * Every table whose rows point into the secret store, with the columns that
 * say which store and under which name. A backup carries these secrets; a
 * restore puts them in the new machine's store and repoints the rows. A
 * table that starts keeping secrets is added here, or its secrets would be
 * left behind.
 */
export const SECRET_REFERENCES: readonly { readonly table: string; readonly store: string; readonly ref: string }[] = [
  { table: 'certificates', store: 'secret_store', ref: 'secret_ref' },
  { table: 'webhook_endpoints', store: 'secret_store', ref: 'secret_ref' },
];

export interface SecretReference {
  readonly table: string;
  readonly store: SecretStoreKind;
  readonly ref: string;
}

/** The references in a database file (a backup's snapshot, opened on its own). */
export function secretReferences(snapshot: SQLite.Database): SecretReference[] {
  const found: SecretReference[] = [];
  for (const t of SECRET_REFERENCES) {
    const rows = snapshot.prepare(`select "${t.store}" as store, "${t.ref}" as ref from "${t.table}"`).all() as { store: SecretStoreKind; ref: string }[];
    for (const r of rows) found.push({ table: t.table, store: r.store, ref: r.ref });
  }
  return found;
}

/** Points every row of every secret-keeping table at `kind` (names are kept as they were). */
export async function repointSecrets(db: Db, kind: SecretStoreKind): Promise<void> {
  for (const t of SECRET_REFERENCES) await sql`update ${sql.table(t.table)} set ${sql.ref(t.store)} = ${kind}`.execute(db);
}

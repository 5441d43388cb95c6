import type SQLite from 'better-sqlite3';
import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { parseJsonColumn } from '../json-column.js';
import type { Db } from '../store/database.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { STATUS_KEY_STATE } from '../taxauth/status-key.js';

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

/**
 * `platform_state` rows whose JSON value names a secret as `{ store, ref, … }`:
 * the authority's status API key (taxauth/status-key.ts), one per appliance.
 */
export const STATE_SECRET_REFERENCES: readonly string[] = [STATUS_KEY_STATE];

export interface SecretReference {
  /** Where the name was found: a table, or `platform_state <key>`. */
  readonly table: string;
  readonly store: SecretStoreKind;
  readonly ref: string;
}

/** A secret's reference kept in a platform_state value (e.g. the status-host key): where it rests and its name there; other fields are the owner's. */
const StateReferenceValue = Type.Object({ store: Type.Union([Type.Literal('keychain'), Type.Literal('file')]), ref: Type.String() });
type StateReference = Static<typeof StateReferenceValue>;

/** The references in a database file (a backup's snapshot, opened on its own). */
export function secretReferences(snapshot: SQLite.Database): SecretReference[] {
  const found: SecretReference[] = [];
  for (const t of SECRET_REFERENCES) {
    const rows = snapshot.prepare(`select "${t.store}" as store, "${t.ref}" as ref from "${t.table}"`).all() as { store: SecretStoreKind; ref: string }[];
    for (const r of rows) found.push({ table: t.table, store: r.store, ref: r.ref });
  }
  for (const key of STATE_SECRET_REFERENCES) {
    const row = snapshot.prepare('select value from platform_state where key = ?').get(key) as { value: string } | undefined;
    if (row) found.push({ table: `platform_state ${key}`, ...stateReference(key, row.value) });
  }
  return found;
}

/** The same references, read through the store (a copy carries the encrypted-file secrets by them). */
export async function secretReferencesIn(db: Db): Promise<SecretReference[]> {
  const found: SecretReference[] = [];
  for (const t of SECRET_REFERENCES) {
    const rows = await sql<{ store: SecretStoreKind; ref: string }>`select ${sql.ref(t.store)} as store, ${sql.ref(t.ref)} as ref from ${sql.table(t.table)}`.execute(db);
    for (const r of rows.rows) found.push({ table: t.table, store: r.store, ref: r.ref });
  }
  for (const key of STATE_SECRET_REFERENCES) {
    const row = await db.selectFrom('platform_state').select('value').where('key', '=', key).executeTakeFirst();
    if (row) found.push({ table: `platform_state ${key}`, ...stateReference(key, row.value) });
  }
  return found;
}

/** Points every reference at `kind` (names are kept as they were). */
export async function repointSecrets(db: Db, kind: SecretStoreKind): Promise<void> {
  for (const t of SECRET_REFERENCES) await sql`update ${sql.table(t.table)} set ${sql.ref(t.store)} = ${kind}`.execute(db);
  for (const key of STATE_SECRET_REFERENCES) {
    const row = await db.selectFrom('platform_state').select('value').where('key', '=', key).executeTakeFirst();
    if (!row) continue;
    // Read and written whole: the JSON functions of the two stores differ, and the other fields stay as they were.
    const value = JSON.stringify({ ...parseJsonColumn(StateReferenceValue, row.value, `platform_state.value of ${key}`), store: kind });
    await db.updateTable('platform_state').set({ value }).where('key', '=', key).execute();
  }
}

function stateReference(key: string, value: string): StateReference {
  const { store, ref } = parseJsonColumn(StateReferenceValue, value, `platform_state.value of ${key}`);
  return { store, ref };
}

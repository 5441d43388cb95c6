import { sql, type Kysely } from 'kysely';
import { isSqlite } from './ddl.js';

/**
 * Measured with bench/list-million.bench.ts (dbstat): every index on `ecf`
 * began with the 36-character text `tenant_id` (a UUIDv7), about 420 bytes
 * per e-CF over its indexes, plus 36 in the row. Each tenant now gets a small
 * integer `store_key` (assigned once in creation order, never reused: tenants
 * are never deleted), and `ecf` carries that key as `tenant_key` instead of
 * the text id, in its row and in every index (one or two bytes on SQLite).
 *
 * The indexes and the triggers that keep the counts are rewritten from what
 * the store holds, so whatever migrations came before, each index keeps its
 * columns with `tenant_key` first. The counts tables (`ecf_counts`,
 * `ecf_day_counts`, ...) keep the tenant's id: they hold a few rows a day, and
 * their triggers find the id from the key through `tenants_store_key`.
 *
 * SQLite cannot drop a column that a foreign key names, and a table rebuilt
 * under another name takes the foreign keys of `ecf_documents`,
 * `ecf_attempts`, ... with it. So the rows go to a holding table, `ecf` is
 * dropped and made again with `tenant_key`, and the rows come back: the child
 * rows' foreign keys are deferred to the commit and each row put back answers
 * them. Every copy is `insert ... select` over a range of rowids (kept, so
 * the list's tie-break by rowid is unchanged): SQLite streams it, and nothing
 * is held in memory however many e-CF there are. PostgreSQL adds the column,
 * fills it in batches of ids and drops the old one.
 */
const BATCH = 20_000;

interface Swap {
  /** The column `ecf` has before this step and the one it has after. */
  readonly from: 'tenant_id' | 'tenant_key';
  readonly to: 'tenant_id' | 'tenant_key';
  /** SQLite's column definition of each, as the stored CREATE TABLE spells it. */
  readonly fromColumn: string;
  readonly toColumn: string;
  /** The value of `to` for the row aliased `e`, from its `from`. */
  readonly value: string;
  /** A count trigger's body: what it wrote for `row.tenant_id` before, and what it writes after. */
  readonly body: (row: 'new' | 'old') => readonly [before: string, after: string];
}

const byKey = (row: 'new' | 'old') => `(select t.id from tenants t where t.store_key = ${row}.tenant_key)`;

const UP: Swap = {
  from: 'tenant_id',
  to: 'tenant_key',
  fromColumn: '"tenant_id" text not null references "tenants" ("id")',
  toColumn: '"tenant_key" integer not null references "tenants" ("store_key")',
  value: '(select t.store_key from tenants t where t.id = e.tenant_id)',
  body: (row) => [`${row}.tenant_id`, byKey(row)],
};

const DOWN: Swap = {
  from: 'tenant_key',
  to: 'tenant_id',
  fromColumn: UP.toColumn,
  toColumn: UP.fromColumn,
  value: '(select t.id from tenants t where t.store_key = e.tenant_key)',
  body: (row) => [byKey(row), `${row}.tenant_id`],
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('store_key', 'integer').execute();
  const tenants = (await sql<{ id: string }>`select id from tenants order by created_at, id`.execute(db)).rows;
  for (const [i, t] of tenants.entries()) await sql`update tenants set store_key = ${i + 1} where id = ${t.id}`.execute(db);
  if (isSqlite(db)) {
    await sql`create unique index tenants_store_key on tenants (store_key)`.execute(db);
    await rebuildSqlite(db, UP);
  } else {
    await sql`alter table tenants alter column store_key set not null`.execute(db);
    await sql`alter table tenants add constraint tenants_store_key unique (store_key)`.execute(db);
    await swapPostgres(db, UP);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await rebuildSqlite(db, DOWN);
    await sql`drop index tenants_store_key`.execute(db);
  } else {
    await swapPostgres(db, DOWN);
    await sql`alter table tenants drop constraint tenants_store_key`.execute(db);
  }
  await sql`alter table tenants drop column store_key`.execute(db);
}

/** An index's definition with the tenant column swapped. */
function index(name: string, text: string, s: Swap): string {
  return checked(name, text.replace(new RegExp(`\\b${s.from}\\b`, 'g'), s.to), new RegExp(`\\b${s.from}\\b`));
}

/**
 * A count trigger with the tenant column swapped: the columns whose change
 * fires it and its `when` compare the row's own column; what it writes into
 * a counts table (keyed by the tenant's id) is looked up from the other.
 */
function trigger(name: string, text: string, s: Swap): string {
  const out = text
    .replace(new RegExp(`old\\.${s.from} (is not|is distinct from) new\\.${s.from}\\b`, 'gi'), `old.${s.to} $1 new.${s.to}`)
    .replace(/(update of )([\w, ]+?)( on )/i, (_, a: string, columns: string, b: string) => `${a}${columns.replace(new RegExp(`\\b${s.from}\\b`), s.to)}${b}`)
    .split(s.body('new')[0]).join(s.body('new')[1])
    .split(s.body('old')[0]).join(s.body('old')[1]);
  return checked(name, out, new RegExp(`\\b(new|old)\\.${s.from}\\b|update of ${s.from}\\b`, 'i'));
}

function checked(name: string, text: string, left: RegExp): string {
  if (left.test(text)) throw new Error(`0021: ${name} still names the old tenant column after the rewrite`);
  return text;
}

async function rebuildSqlite(db: Kysely<unknown>, s: Swap): Promise<void> {
  const objects = (await sql<{ type: string; name: string; sql: string }>`select type, name, sql from sqlite_master
    where tbl_name = 'ecf' and type in ('index', 'trigger') and sql is not null order by type, name`.execute(db)).rows;
  const table = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'ecf'`.execute(db)).rows[0]!.sql;
  if (!table.includes(s.fromColumn)) throw new Error(`0021: ecf has no column ${s.fromColumn}`);
  const columns = (await sql<{ name: string }>`select name from pragma_table_info('ecf') order by cid`.execute(db)).rows.map((c) => c.name);
  const created = (name: string) => table.replace(/^CREATE TABLE "?ecf"?/, `CREATE TABLE "${name}"`).replace(s.fromColumn, s.toColumn);
  const targets = columns.map((c) => (c === s.from ? s.to : c)).join(', ');
  const values = columns.map((c) => (c === s.from ? s.value : `e.${c}`)).join(', ');

  for (const o of objects) await sql.raw(`drop ${o.type} ${o.name}`).execute(db);
  // The child tables' foreign keys on ecf.id are checked at the commit, once every row is back.
  await sql`pragma defer_foreign_keys = on`.execute(db);
  await sql.raw(created('ecf_hold')).execute(db);
  await copyByRowid(db, 'ecf', 'ecf_hold', `rowid, ${targets}`, `e.rowid, ${values}`);
  await sql`drop table ecf`.execute(db);
  await sql.raw(created('ecf')).execute(db);
  await copyByRowid(db, 'ecf_hold', 'ecf', `rowid, ${targets}`, `e.rowid, ${targets.split(', ').map((c) => `e.${c}`).join(', ')}`);
  await sql`drop table ecf_hold`.execute(db);
  for (const o of objects) await sql.raw(o.type === 'index' ? index(o.name, o.sql, s) : trigger(o.name, o.sql, s)).execute(db);
}

async function copyByRowid(db: Kysely<unknown>, from: string, to: string, targets: string, values: string): Promise<void> {
  const last = (await sql<{ n: number | null }>`select max(rowid) as n from ${sql.table(from)}`.execute(db)).rows[0]?.n ?? 0;
  for (let after = 0; after < last; after += BATCH) {
    await sql.raw(`insert into ${to} (${targets}) select ${values} from ${from} e where e.rowid > ${after} and e.rowid <= ${after + BATCH}`).execute(db);
  }
}

async function swapPostgres(db: Kysely<unknown>, s: Swap): Promise<void> {
  const indexes = (await sql<{ name: string; def: string }>`select indexname as name, indexdef as def from pg_indexes
    where schemaname = current_schema() and tablename = 'ecf' and indexdef ~ ${`\\m${s.from}\\M`} order by indexname`.execute(db)).rows;
  const triggers = (
    await sql<{ name: string; def: string; source: string }>`select t.tgname as name, pg_get_triggerdef(t.oid) as def, p.prosrc as source
      from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      where t.tgrelid = 'ecf'::regclass and not t.tgisinternal order by t.tgname`.execute(db)
  ).rows;

  await db.schema.alterTable('ecf').addColumn(s.to, s.to === 'tenant_key' ? 'integer' : 'text').execute();
  for (let after = ''; ; ) {
    const ids = (await sql<{ id: string }>`select id from ecf where id > ${after} order by id limit ${BATCH}`.execute(db)).rows;
    if (!ids.length) break;
    const last = ids[ids.length - 1]!.id;
    await sql`update ecf e set ${sql.ref(s.to)} = ${sql.raw(s.value)} where e.id > ${after} and e.id <= ${last}`.execute(db);
    if (ids.length < BATCH) break;
    after = last;
  }
  for (const i of indexes) await sql.raw(`drop index ${i.name}`).execute(db);
  for (const t of triggers) {
    await sql.raw(`drop trigger ${t.name} on ecf`).execute(db);
    await sql.raw(`create or replace function ${t.name}() returns trigger language plpgsql as $$${trigger(t.name, t.source, s)}$$`).execute(db);
  }
  await sql.raw(`alter table ecf drop column ${s.from}`).execute(db);
  await sql.raw(`alter table ecf alter column ${s.to} set not null`).execute(db);
  const parent = s.to === 'tenant_key' ? 'store_key' : 'id';
  await sql.raw(`alter table ecf add constraint ecf_${s.to}_fkey foreign key (${s.to}) references tenants (${parent})`).execute(db);
  for (const t of triggers) await sql.raw(trigger(t.name, t.def, s)).execute(db);
  for (const i of indexes) await sql.raw(index(i.name, i.def, s)).execute(db);
}

import { sql, type Kysely } from 'kysely';
import { isSqlite } from './ddl.js';

/**
 * Measured with bench/list-million.bench.ts (dbstat): the instants of `ecf`
 * (issued_at, signed_at, updated_at) and `ecf_attempts.recorded_at` were
 * 24-byte ISO texts, and issued_at is in seven indexes. They become integer
 * milliseconds since the epoch: a 6-byte varint on SQLite, a bigint on
 * PostgreSQL (8 bytes like timestamptz, but read back as a number on both
 * stores by the same code, with no session time zone in between). clock.ts
 * `toRowInstant`/`fromRowInstant` convert; what is shown stays the same text.
 *
 * `signed_at` is null when it equals `issued_at`: every e-CF so far was
 * signed at its issue instant (issue, contingency and every other path sign
 * in the issuing transaction), so the column costs a null. A row whose
 * instants differ keeps its own.
 *
 * The count triggers derive the Dominican day and month (UTC-4) from
 * issued_at in SQL: each is rewritten from what the store holds, with only
 * that expression changed. On SQLite the table is rebuilt as 0021 does
 * (through a holding table, rowids kept, copies by rowid range; the child
 * tables' foreign keys deferred to the commit) and `ecf_attempts` is copied
 * into a new table in key order, a batch at a time. PostgreSQL changes the
 * column types in place with USING, which rebuilds the indexes that hold them.
 */
const BATCH = 20_000;

type Direction = 'up' | 'down';

/** SQLite: the ISO text `x` as milliseconds, exact (julianday keeps the millisecond), and back. */
const sqliteMs = (x: string) => `cast(round((julianday(${x}) - 2440587.5) * 86400000) as integer)`;
const sqliteIso = (x: string) => `(strftime('%Y-%m-%dT%H:%M:%S', cast(${x} as integer) / 1000, 'unixepoch') || '.' || substr('00' || (cast(${x} as integer) % 1000), -3) || 'Z')`;
/** PostgreSQL: the same pair. */
const pgMs = (x: string) => `round(extract(epoch from ${x}::timestamptz) * 1000)::bigint`;
const pgIso = (x: string) => `to_char(timestamp 'epoch' + ${x} * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The Dominican day or month of `row.issued_at`, as the count triggers spell it before and after. */
const PERIODS = [
  { sqlite: '%Y-%m-%d', pg: 'YYYY-MM-DD' },
  { sqlite: '%Y-%m', pg: 'YYYY-MM' },
];
function periodForms(sqlite: boolean, row: 'new' | 'old'): [text: string, integer: string][] {
  return PERIODS.map((p) =>
    sqlite
      ? [`strftime('${p.sqlite}', substr(${row}.issued_at, 1, 19), '-4 hours')`, `strftime('${p.sqlite}', ${row}.issued_at / 1000 - 14400, 'unixepoch')`]
      : [
          `to_char(substr(${row}.issued_at, 1, 19)::timestamp - interval '4 hours', '${p.pg}')`,
          `to_char(timestamp 'epoch' + (${row}.issued_at - 14400000) * interval '1 millisecond', '${p.pg}')`,
        ],
  );
}

/** A trigger's text with its day/month expressions turned to the direction's form. */
function trigger(name: string, text: string, sqlite: boolean, d: Direction): string {
  let out = text;
  for (const row of ['new', 'old'] as const) {
    for (const [asText, asInteger] of periodForms(sqlite, row)) out = d === 'up' ? out.split(asText).join(asInteger) : out.split(asInteger).join(asText);
  }
  const left = d === 'up' ? /substr\((new|old)\.issued_at/ : /(new|old)\.issued_at (\/ 1000|- 14400000)/;
  if (left.test(out)) throw new Error(`0022: ${name} still reads issued_at the old way after the rewrite`);
  return out;
}

/** The columns that change, with SQLite's definition of each as text and as integer, and the value in the direction. */
const ECF_COLUMNS = [
  { name: 'issued_at', text: '"issued_at" text not null', integer: '"issued_at" integer not null' },
  { name: 'signed_at', text: '"signed_at" text not null', integer: '"signed_at" integer' },
  { name: 'updated_at', text: '"updated_at" text', integer: '"updated_at" integer' },
] as const;

function sqliteValue(column: string, d: Direction): string {
  if (d === 'up') return column === 'signed_at' ? `case when e.signed_at = e.issued_at then null else ${sqliteMs('e.signed_at')} end` : sqliteMs(`e.${column}`);
  return column === 'signed_at' ? sqliteIso('coalesce(e.signed_at, e.issued_at)') : sqliteIso(`e.${column}`);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await rebuildEcf(db, 'up');
    await rebuildAttempts(db, 'up');
  } else {
    await alterPostgres(db, 'up');
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await rebuildAttempts(db, 'down');
    await rebuildEcf(db, 'down');
  } else {
    await alterPostgres(db, 'down');
  }
}

/** A column definition swapped in a CREATE TABLE, exactly once (`"updated_at" text` must not match a longer type). */
function swapped(table: string, from: string, to: string): string {
  const pattern = new RegExp(`${from}(?=[,)])`, 'g');
  const hits = table.match(pattern)?.length ?? 0;
  if (hits !== 1) throw new Error(`0022: expected ${from} once in the table, found it ${hits} times`);
  return table.replace(pattern, to);
}

async function rebuildEcf(db: Kysely<unknown>, d: Direction): Promise<void> {
  const objects = (await sql<{ type: string; name: string; sql: string }>`select type, name, sql from sqlite_master
    where tbl_name = 'ecf' and type in ('index', 'trigger') and sql is not null order by type, name`.execute(db)).rows;
  let table = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'ecf'`.execute(db)).rows[0]!.sql;
  for (const c of ECF_COLUMNS) table = d === 'up' ? swapped(table, c.text, c.integer) : swapped(table, c.integer, c.text);
  const columns = (await sql<{ name: string }>`select name from pragma_table_info('ecf') order by cid`.execute(db)).rows.map((c) => c.name);
  const created = (name: string) => table.replace(/^CREATE TABLE "?ecf"?/, `CREATE TABLE "${name}"`);
  const changed = new Set<string>(ECF_COLUMNS.map((c) => c.name));
  const targets = `rowid, ${columns.join(', ')}`;

  for (const o of objects) await sql.raw(`drop ${o.type} ${o.name}`).execute(db);
  // The child tables' foreign keys on ecf.id are checked at the commit, once every row is back.
  await sql`pragma defer_foreign_keys = on`.execute(db);
  await sql.raw(created('ecf_hold')).execute(db);
  const values = columns.map((c) => (changed.has(c) ? sqliteValue(c, d) : `e.${c}`)).join(', ');
  await copyByRowid(db, 'ecf', 'ecf_hold', targets, `e.rowid, ${values}`);
  await sql`drop table ecf`.execute(db);
  await sql.raw(created('ecf')).execute(db);
  await copyByRowid(db, 'ecf_hold', 'ecf', targets, `e.rowid, ${columns.map((c) => `e.${c}`).join(', ')}`);
  await sql`drop table ecf_hold`.execute(db);
  for (const o of objects) await sql.raw(o.type === 'trigger' ? trigger(o.name, o.sql, true, d) : o.sql).execute(db);
}

async function copyByRowid(db: Kysely<unknown>, from: string, to: string, targets: string, values: string): Promise<void> {
  const last = (await sql<{ n: number | null }>`select max(rowid) as n from ${sql.table(from)}`.execute(db)).rows[0]?.n ?? 0;
  for (let after = 0; after < last; after += BATCH) {
    await sql.raw(`insert into ${to} (${targets}) select ${values} from ${from} e where e.rowid > ${after} and e.rowid <= ${after + BATCH}`).execute(db);
  }
}

/** `ecf_attempts` (without rowid: keyed by ecf_id, attempt) is copied into a new table in key order, a batch at a time. */
async function rebuildAttempts(db: Kysely<unknown>, d: Direction): Promise<void> {
  const indexes = (await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
    where tbl_name = 'ecf_attempts' and type = 'index' and sql is not null order by name`.execute(db)).rows;
  const [text, integer] = ['"recorded_at" text not null', '"recorded_at" integer not null'];
  const table = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'ecf_attempts'`.execute(db)).rows[0]!.sql;
  const next = (d === 'up' ? swapped(table, text, integer) : swapped(table, integer, text)).replace(/^CREATE TABLE "?ecf_attempts"?/, 'CREATE TABLE "ecf_attempts_next"');
  const columns = (await sql<{ name: string }>`select name from pragma_table_info('ecf_attempts') order by cid`.execute(db)).rows.map((c) => c.name);
  const values = columns.map((c) => (c !== 'recorded_at' ? `e.${c}` : d === 'up' ? sqliteMs('e.recorded_at') : sqliteIso('e.recorded_at'))).join(', ');

  for (const i of indexes) await sql.raw(`drop index ${i.name}`).execute(db);
  await sql.raw(next).execute(db);
  for (let after: { ecf_id: string; attempt: number } | undefined = { ecf_id: '', attempt: 0 }; after; ) {
    await sql.raw(`insert into ecf_attempts_next (${columns.join(', ')}) select ${values} from ecf_attempts e
      where (e.ecf_id, e.attempt) > ('${after.ecf_id.replace(/'/g, "''")}', ${Number(after.attempt)}) order by e.ecf_id, e.attempt limit ${BATCH}`).execute(db);
    const last = (await sql<{ ecf_id: string; attempt: number }>`select ecf_id, attempt from ecf_attempts_next order by ecf_id desc, attempt desc limit 1`.execute(db)).rows[0];
    after = last && (last.ecf_id !== after.ecf_id || last.attempt !== after.attempt) ? last : undefined;
  }
  await sql`drop table ecf_attempts`.execute(db);
  await sql`alter table ecf_attempts_next rename to ecf_attempts`.execute(db);
  for (const i of indexes) await sql.raw(i.sql).execute(db);
}

/**
 * PostgreSQL changes the types in place. A trigger whose WHEN names a column
 * blocks a change of its type, so the triggers go first and come back with
 * their functions rewritten. The indexes are rebuilt by the ALTER itself.
 */
async function alterPostgres(db: Kysely<unknown>, d: Direction): Promise<void> {
  const triggers = (
    await sql<{ name: string; def: string; source: string }>`select t.tgname as name, pg_get_triggerdef(t.oid) as def, p.prosrc as source
      from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      where t.tgrelid = 'ecf'::regclass and not t.tgisinternal order by t.tgname`.execute(db)
  ).rows;
  for (const t of triggers) await sql.raw(`drop trigger ${t.name} on ecf`).execute(db);
  if (d === 'up') {
    await sql.raw(`alter table ecf
      alter column issued_at type bigint using ${pgMs('issued_at')},
      alter column signed_at drop not null,
      alter column signed_at type bigint using case when signed_at = issued_at then null else ${pgMs('signed_at')} end,
      alter column updated_at type bigint using ${pgMs('updated_at')}`).execute(db);
    await sql.raw(`alter table ecf_attempts alter column recorded_at type bigint using ${pgMs('recorded_at')}`).execute(db);
  } else {
    await sql.raw(`alter table ecf
      alter column issued_at type text collate "C" using ${pgIso('issued_at')},
      alter column signed_at type text collate "C" using ${pgIso('coalesce(signed_at, issued_at)')},
      alter column updated_at type text collate "C" using ${pgIso('updated_at')}`).execute(db);
    await sql`alter table ecf alter column signed_at set not null`.execute(db);
    await sql.raw(`alter table ecf_attempts alter column recorded_at type text collate "C" using ${pgIso('recorded_at')}`).execute(db);
  }
  for (const t of triggers) {
    await sql.raw(`create or replace function ${t.name}() returns trigger language plpgsql as $$${trigger(t.name, t.source, false, d)}$$`).execute(db);
    await sql.raw(t.def).execute(db);
  }
}

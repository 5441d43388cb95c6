import { sql, type Kysely } from 'kysely';
import { isSqlite } from './ddl.js';

/**
 * `ecf_documents` and `ecf_attempts` pointed at their e-CF by its 36-character
 * text id: 36 bytes in each row, and on SQLite a 50-byte autoindex per e-CF
 * for `ecf_documents` (measured with bench/list-million.bench.ts). Each e-CF
 * now has a small integer `store_key`, and both tables point at it as
 * `ecf_key`: `ecf_documents` keyed by it (SQLite: its INTEGER PRIMARY KEY, the
 * row's own b-tree key, no autoindex), `ecf_attempts` by (ecf_key, attempt).
 * The public id stays the UUID; only the store's rows use the key.
 *
 * SQLite: an implicit rowid may be renumbered by VACUUM, so `ecf` gets an
 * explicit `store_key integer primary key` (the rowid's alias, so every
 * rowid is kept: it becomes the key, and the list's tie-break by rowid is
 * unchanged) and `id` stays unique. The rebuild copies through a holding
 * table as 0021 does, from what the store holds, keeping every index and
 * trigger; the two child tables are made again from their stored definitions
 * with the key swapped, filled by `insert ... select` over ranges of keys
 * (streamed, nothing held in memory), and renamed. PostgreSQL: a bigint
 * identity, unique, filled in id order in batches; the children get the new
 * column in batches and lose the old one.
 */
const BATCH = 20_000;

const ECF_ID = '"id" text primary key';
const ECF_KEYED = '"store_key" integer primary key, "id" text not null unique';

interface Child {
  readonly table: string;
  /** The stored definition's pieces before (text id) and after (integer key), in order. */
  readonly swaps: readonly (readonly [byId: string, byKey: string])[];
}

const CHILDREN: readonly Child[] = [
  {
    table: 'ecf_documents',
    swaps: [['"ecf_id" text primary key references "ecf" ("id")', '"ecf_key" integer primary key references "ecf" ("store_key")']],
  },
  {
    table: 'ecf_attempts',
    swaps: [
      ['"ecf_id" text not null references "ecf" ("id")', '"ecf_key" integer not null references "ecf" ("store_key")'],
      ['primary key ("ecf_id", "attempt")', 'primary key ("ecf_key", "attempt")'],
    ],
  },
];

type Direction = 'up' | 'down';

export async function up(db: Kysely<unknown>): Promise<void> {
  await restartConversion(db, 0);
  if (isSqlite(db)) {
    await rebuildEcfSqlite(db, 'up');
    for (const c of CHILDREN) await rebuildChildSqlite(db, c, 'up');
  } else {
    await keyEcfPostgres(db);
    for (const c of CHILDREN) await swapChildPostgres(db, c, 'up');
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await restartConversion(db, isSqlite(db) ? 0 : '');
  if (isSqlite(db)) {
    for (const c of CHILDREN) await rebuildChildSqlite(db, c, 'down');
    await rebuildEcfSqlite(db, 'down');
  } else {
    for (const c of CHILDREN) await swapChildPostgres(db, c, 'down');
    await sql`alter table ecf drop constraint ecf_store_key`.execute(db);
    await sql`alter table ecf drop column store_key`.execute(db);
  }
}

/**
 * An `ecf store compress` left half done walks ecf_documents by a key this
 * migration changes (SQLite: the table's rowid; PostgreSQL: its primary key):
 * it starts that table again from `first`, skipping what it already compressed.
 */
async function restartConversion(db: Kysely<unknown>, first: number | string): Promise<void> {
  const key = 'store.compress.ecf_documents';
  const row = (await sql<{ value: string }>`select value from platform_state where key = ${key}`.execute(db)).rows[0];
  if (!row) return;
  const state = JSON.parse(row.value) as { after: number | string; done: boolean };
  if (state.done) return;
  await sql`update platform_state set value = ${JSON.stringify({ ...state, after: first })} where key = ${key}`.execute(db);
}

function replaced(text: string, from: string, to: string, what: string): string {
  if (!text.includes(from)) throw new Error(`0022: ${what} has no ${from}`);
  return text.replace(from, to);
}

/** Runs `step(after, last)` over ranges of `ecf`'s integer key (SQLite rowid / store_key) up to its largest. */
async function overKeys(db: Kysely<unknown>, table: string, key: string, step: (after: number, last: number) => Promise<void>): Promise<void> {
  const top = Number((await sql<{ n: number | string | null }>`select max(${sql.ref(key)}) as n from ${sql.table(table)}`.execute(db)).rows[0]?.n ?? 0);
  for (let after = 0; after < top; after += BATCH) await step(after, Math.min(after + BATCH, top));
}

async function rebuildEcfSqlite(db: Kysely<unknown>, to: Direction): Promise<void> {
  const objects = (await sql<{ type: string; name: string; sql: string }>`select type, name, sql from sqlite_master
    where tbl_name = 'ecf' and type in ('index', 'trigger') and sql is not null order by type, name`.execute(db)).rows;
  const stored = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'ecf'`.execute(db)).rows[0]!.sql;
  const table = to === 'up' ? replaced(stored, ECF_ID, ECF_KEYED, 'ecf') : replaced(stored, ECF_KEYED, ECF_ID, 'ecf');
  const columns = (await sql<{ name: string }>`select name from pragma_table_info('ecf') order by cid`.execute(db)).rows.map((c) => c.name).filter((c) => c !== 'store_key');
  const created = (name: string) => table.replace(/^CREATE TABLE "?ecf"?/, `CREATE TABLE "${name}"`);
  // Up: the rowid becomes the key. Down: the key stays the rowid.
  const targets = [to === 'up' ? 'store_key' : 'rowid', ...columns].join(', ');
  const values = ['rowid', ...columns].map((c) => `e.${c}`).join(', ');

  for (const o of objects) await sql.raw(`drop ${o.type} ${o.name}`).execute(db);
  // The child tables' foreign keys on ecf.id are checked at the commit, once every row is back.
  await sql`pragma defer_foreign_keys = on`.execute(db);
  await sql.raw(created('ecf_hold')).execute(db);
  await overKeys(db, 'ecf', 'rowid', (after, last) => sql.raw(`insert into ecf_hold (${targets}) select ${values} from ecf e where e.rowid > ${after} and e.rowid <= ${last}`).execute(db).then(() => undefined));
  await sql`drop table ecf`.execute(db);
  await sql.raw(created('ecf')).execute(db);
  await overKeys(db, 'ecf_hold', 'rowid', (after, last) => sql.raw(`insert into ecf (${targets}) select ${values} from ecf_hold e where e.rowid > ${after} and e.rowid <= ${last}`).execute(db).then(() => undefined));
  await sql`drop table ecf_hold`.execute(db);
  for (const o of objects) await sql.raw(o.sql).execute(db);
}

/** Makes the child table again with the key swapped, fills it in ranges of e-CF keys and puts its indexes back. */
async function rebuildChildSqlite(db: Kysely<unknown>, c: Child, to: Direction): Promise<void> {
  const stored = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${c.table}`.execute(db)).rows[0]!.sql;
  const indexes = (await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
    where tbl_name = ${c.table} and type = 'index' and sql is not null order by name`.execute(db)).rows;
  for (const i of indexes) if (/\becf_(id|key)\b/.test(i.sql)) throw new Error(`0022: index ${i.name} names the e-CF column`);
  let table = stored.replace(new RegExp(`^CREATE TABLE "?${c.table}"?`), `CREATE TABLE "${c.table}_next"`);
  for (const [byId, byKey] of c.swaps) table = to === 'up' ? replaced(table, byId, byKey, c.table) : replaced(table, byKey, byId, c.table);
  const [from, into] = to === 'up' ? ['ecf_id', 'ecf_key'] : ['ecf_key', 'ecf_id'];
  const [fromParent, intoParent] = to === 'up' ? ['id', 'store_key'] : ['store_key', 'id'];
  const rest = (await sql<{ name: string }>`select name from pragma_table_info(${c.table}) order by cid`.execute(db)).rows.map((r) => r.name).filter((n) => n !== from);

  await sql.raw(table).execute(db);
  const targets = [into, ...rest].join(', ');
  const values = [`e.${intoParent}`, ...rest.map((n) => `t.${n}`)].join(', ');
  await overKeys(db, 'ecf', 'store_key', (after, last) =>
    sql.raw(`insert into ${c.table}_next (${targets}) select ${values} from ecf e join ${c.table} t on t.${from} = e.${fromParent}
      where e.store_key > ${after} and e.store_key <= ${last} order by e.store_key`).execute(db).then(() => undefined),
  );
  await sql.raw(`drop table ${c.table}`).execute(db);
  await sql.raw(`alter table ${c.table}_next rename to ${c.table}`).execute(db);
  for (const i of indexes) await sql.raw(i.sql).execute(db);
}

async function keyEcfPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ecf add column store_key bigint`.execute(db);
  // In id order (UUIDv7: time order), as SQLite's rowids are.
  let given = 0;
  for (let after = ''; ; ) {
    const ids = (await sql<{ id: string }>`select id from ecf where id > ${after} order by id limit ${BATCH}`.execute(db)).rows;
    if (!ids.length) break;
    const last = ids[ids.length - 1]!.id;
    await sql`update ecf e set store_key = n.k from (select id, ${given} + row_number() over (order by id) as k from ecf where id > ${after} and id <= ${last}) n
      where e.id = n.id`.execute(db);
    given += ids.length;
    if (ids.length < BATCH) break;
    after = last;
  }
  await sql`alter table ecf alter column store_key set not null`.execute(db);
  await sql`alter table ecf alter column store_key add generated by default as identity`.execute(db);
  await sql`select setval(pg_get_serial_sequence('ecf', 'store_key'), ${given + 1}, false)`.execute(db);
  await sql`alter table ecf add constraint ecf_store_key unique (store_key)`.execute(db);
}

async function swapChildPostgres(db: Kysely<unknown>, c: Child, to: Direction): Promise<void> {
  const [from, into] = to === 'up' ? ['ecf_id', 'ecf_key'] : ['ecf_key', 'ecf_id'];
  const [fromParent, intoParent] = to === 'up' ? ['id', 'store_key'] : ['store_key', 'id'];
  const primary = c.table === 'ecf_attempts' ? { name: 'ecf_attempts_key', columns: `${into}, attempt` } : { name: 'ecf_documents_pkey', columns: into };
  await sql.raw(`alter table ${c.table} add column ${into} ${to === 'up' ? 'bigint' : 'text'}`).execute(db);
  await overKeys(db, 'ecf', 'store_key', (after, last) =>
    sql.raw(`update ${c.table} t set ${into} = e.${intoParent} from ecf e where t.${from} = e.${fromParent} and e.store_key > ${after} and e.store_key <= ${last}`).execute(db).then(() => undefined),
  );
  // Dropping the old column drops its primary key and foreign key with it.
  await sql.raw(`alter table ${c.table} drop column ${from}`).execute(db);
  await sql.raw(`alter table ${c.table} alter column ${into} set not null`).execute(db);
  await sql.raw(`alter table ${c.table} add constraint ${primary.name} primary key (${primary.columns})`).execute(db);
  await sql.raw(`alter table ${c.table} add constraint ${c.table}_${into}_fkey foreign key (${into}) references ecf (${intoParent})`).execute(db);
}

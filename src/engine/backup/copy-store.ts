import { createHash, type Hash } from 'node:crypto';
import { documentHashOf } from '../ecf/views.js';
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../engine-types.js';
import { conflict } from '../errors.js';
import { secretReferencesIn } from './secret-refs.js';
import { dialectOf } from '../store/dialect.js';
import type { Database } from '../store/schema.js';
import { DocumentDamaged, documentStore, readEcfXml } from '../store/documents/index.js';

type Executor = Kysely<Database>;
type Row = Record<string, unknown>;

/**
 * Every table a copy carries, parents before children (foreign keys hold
 * after each page), each with its primary key: pages are read in key order
 * and resumed after the last key, so a million e-CF never sit in memory.
 */
export const COPIED_TABLES: readonly { readonly table: keyof Database & string; readonly key: readonly string[] }[] = [
  { table: 'organizations', key: ['id'] },
  { table: 'organization_members', key: ['id'] },
  { table: 'tenants', key: ['id'] },
  { table: 'api_keys', key: ['id'] },
  { table: 'emitter_profiles', key: ['id'] },
  { table: 'settings', key: ['scope', 'key'] },
  { table: 'platform_state', key: ['key'] },
  { table: 'certificates', key: ['id'] },
  // Before every table whose compressed documents refer to these texts by id (migration 0017).
  { table: 'document_certificates', key: ['id'] },
  { table: 'sequence_ranges', key: ['id'] },
  { table: 'annulments', key: ['id'] },
  { table: 'annulment_lines', key: ['annulment_id', 'position'] },
  { table: 'emission_pauses', key: ['scope', 'subject_id'] },
  { table: 'ecf', key: ['id'] },
  { table: 'ecf_documents', key: ['ecf_key'] },
  { table: 'ecf_fingerprints', key: ['tenant_id', 'fingerprint', 'issued_at', 'ecf_id'] },
  { table: 'ecf_attempts', key: ['ecf_key', 'attempt'] },
  { table: 'events', key: ['seq'] },
  { table: 'work', key: ['id'] },
  { table: 'webhook_endpoints', key: ['id'] },
  { table: 'webhook_deliveries', key: ['id'] },
  { table: 'tenant_alert_state', key: ['tenant_id'] },
  { table: 'organization_usage', key: ['organization_id', 'period'] },
  { table: 'received_ecf', key: ['id'] },
  { table: 'received_ecf_approvals', key: ['id'] },
  { table: 'inbound_approvals', key: ['id'] },
  { table: 'certifications', key: ['tenant_id'] },
  { table: 'certification_cases', key: ['id'] },
  { table: 'journal', key: ['tenant_key', 'seq'] },
  { table: 'journal_heads', key: ['tenant_key'] },
];

/** Kept by triggers on `ecf`: the target's own triggers rebuild them from the copied rows; the copy compares them. */
export const DERIVED_TABLES: readonly { readonly table: keyof Database & string; readonly key: readonly string[] }[] = [
  { table: 'ecf_counts', key: ['tenant_id', 'environment', 'type', 'status'] },
  { table: 'ecf_monthly_counts', key: ['tenant_id', 'environment', 'period'] },
  { table: 'ecf_amount_counts', key: ['tenant_id', 'band', 'environment', 'type', 'status'] },
  { table: 'ecf_day_counts', key: ['tenant_id', 'day', 'environment', 'type', 'status', 'retrying'] },
  { table: 'ecf_day_amount_counts', key: ['tenant_id', 'day', 'band'] },
  { table: 'ecf_retry_counts', key: ['tenant_id', 'environment', 'type', 'status', 'retrying'] },
  { table: 'ecf_name_counts', key: ['tenant_key', 'name_key'] },
  { table: 'ecf_fine_amount_counts', key: ['tenant_key', 'band'] },
];

/**
 * Where the encrypted-file secret store keeps its sealed bodies when the store
 * is PostgreSQL (in the data directory's files on SQLite). They are carried
 * through the secret store itself, by the names the rows hold.
 */
export const SECRET_TABLES: readonly string[] = ['sealed_secrets'];

/**
 * Rows a copy leaves behind on purpose. The B2B receiver's seeds and bearer
 * tokens (migration 0015) expire within the hour, and a copied one would only
 * let a caller skip authenticating again. The period exports asked for over
 * the API (migration 0027) name ZIP files in the source's data directory,
 * which a copy does not carry; an export is made again from the record (a
 * copied work item whose export row is absent finishes doing nothing). The
 * console's sessions (migration 0028) would only let a copied cookie in.
 */
export const EPHEMERAL_TABLES: readonly string[] = ['reception_seeds', 'reception_tokens', 'exports', 'console_sessions'];

/** Columns filled by the store itself whose counter must move past the copied values (PostgreSQL identities). */
const IDENTITIES: readonly { readonly table: string; readonly column: string }[] = [
  { table: 'events', column: 'seq' },
  { table: 'document_certificates', column: 'id' },
  // The e-CF's store key (migration 0022), which ecf_documents and ecf_attempts point at: copied as it is.
  { table: 'ecf', column: 'store_key' },
];

const PAGE_ROWS = 500;

export interface CopiedTable {
  readonly table: string;
  readonly rows: number;
  /** SHA-256 over the table's rows in key order, the same on both sides. */
  readonly sha256: string;
}

export interface CopyReport {
  readonly from: 'sqlite' | 'postgres';
  readonly to: 'sqlite' | 'postgres';
  readonly tables: readonly CopiedTable[];
  /** Signed e-CF whose stored bytes were hashed again in the target and matched their documentHash. */
  readonly documentsVerified: number;
  /** Secrets of the encrypted-file store carried to where the target keeps them, each read back. */
  readonly secretsCarried: number;
  /** Secret names rows point to that the source's store no longer holds (as a backup reports them). */
  readonly missingSecrets: readonly string[];
}

export interface CopyOptions {
  readonly pageRows?: number;
  /** Told after each page: the table and the rows copied of it so far. */
  readonly onProgress?: (table: string, rows: number) => void;
  /**
   * false: the encrypted-file secrets stay where they are (a backup seals
   * them under its passphrase itself, and its scratch copy must hold none).
   */
  readonly carrySecrets?: boolean;
}

/**
 * Copies one store into another, empty one at the same migration (SQLite to
 * PostgreSQL or back). The source is read in one snapshot, so what a running
 * server writes meanwhile is not half-copied; stop it first so nothing is
 * left behind. Afterwards every table is read back from the target and
 * compared row for row (counts and a digest), the trigger-kept counts are
 * compared, and every signed e-CF's bytes are hashed again against its
 * documentHash. Any difference is an error: the target is then not to be used.
 */
export async function copyStore(from: Engine, to: Engine, options: CopyOptions = {}): Promise<CopyReport> {
  await assertCopyable(from.db, to.db);
  const pageRows = options.pageRows ?? PAGE_ROWS;
  const copied = await inSnapshot(from.db, async (source) => {
    const tables: CopiedTable[] = [];
    for (const { table, key } of COPIED_TABLES) {
      const digest = createHash('sha256');
      let rows = 0;
      for await (const page of pages(source, table, key, pageRows)) {
        await to.db.transaction().execute(async (tx) => {
          await tx.insertInto(table).values(page as never).execute();
        });
        for (const row of page) digestRow(digest, row);
        rows += page.length;
        options.onProgress?.(table, rows);
      }
      tables.push({ table, rows, sha256: digest.digest('hex') });
    }
    const derived: CopiedTable[] = [];
    for (const { table, key } of DERIVED_TABLES) derived.push(await tableDigest(source, table, key, pageRows));
    return { tables, derived };
  });
  if (dialectOf(to.db) === 'postgres') {
    for (const { table, column } of IDENTITIES) {
      await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce(max(${sql.ref(column)}), 0) + 1, false) from ${sql.table(table)}`.execute(to.db);
    }
  }

  const differences: string[] = [];
  for (const [expected, { table, key }] of [...copied.tables.map((t, i) => [t, COPIED_TABLES[i]!] as const), ...copied.derived.map((t, i) => [t, DERIVED_TABLES[i]!] as const)]) {
    const found = await tableDigest(to.db, table, key, pageRows);
    if (found.rows !== expected.rows) differences.push(`${table}: ${expected.rows} rows in the source, ${found.rows} in the target`);
    else if (found.sha256 !== expected.sha256) differences.push(`${table}: the same ${found.rows} rows in number, different in content`);
  }
  const documents = await verifyDocuments(to.db, pageRows);
  differences.push(...documents.mismatches.map((id) => `e-CF ${id}: its stored XML no longer hashes to its documentHash`));
  if (differences.length) {
    throw conflict('Store.CopyMismatch', `The copy does not match its source; do not use the target. ${differences.slice(0, 10).join('; ')}`);
  }
  const secrets = options.carrySecrets === false ? { secretsCarried: 0, missingSecrets: [] } : await carrySecrets(from, to);
  return { from: dialectOf(from.db), to: dialectOf(to.db), tables: copied.tables, documentsVerified: documents.verified, ...secrets };
}

/**
 * The encrypted-file store keeps its sealed bodies beside the SQLite file, or
 * in the PostgreSQL store itself: a copy between the two moves them with it
 * (same key, so through the store: read, put, read back). Keychain secrets
 * belong to the machine and stay where they are.
 */
async function carrySecrets(from: Engine, to: Engine): Promise<{ secretsCarried: number; missingSecrets: string[] }> {
  const source = from.secrets.of('file');
  const target = to.secrets.of('file');
  let secretsCarried = 0;
  const missingSecrets: string[] = [];
  // Rows and platform_state values that name a secret (the authority's status API key).
  for (const { store, ref } of await secretReferencesIn(to.db)) {
    if (store !== 'file') continue;
    const secret = await source.get(ref);
    if (!secret) {
      missingSecrets.push(ref);
      continue;
    }
    const there = await target.get(ref);
    if (!there || !there.equals(secret)) {
      await target.put(ref, secret);
      if (!(await target.get(ref))?.equals(secret)) {
        throw conflict('Store.CopyMismatch', `The secret ${ref} did not read back from the target's store (${target.describe()}); do not use the target.`);
      }
    }
    secretsCarried++;
  }
  return { secretsCarried, missingSecrets };
}

async function assertCopyable(from: Executor, to: Executor): Promise<void> {
  const applied = async (db: Executor) => {
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
    if (!tables.some((t) => t.name === 'kysely_migration')) return '';
    return (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((r) => r.name).join(',');
  };
  const [source, target] = await Promise.all([applied(from), applied(to)]);
  if (source !== target) {
    throw conflict('Store.MigrationMismatch', 'The source and the target are at different migrations; run `ecf migrate` on both with this version first.');
  }
  const filled: string[] = [];
  for (const { table } of COPIED_TABLES) {
    const row = await to.selectFrom(table).select(sql`1`.as('one')).limit(1).executeTakeFirst();
    if (row) filled.push(table);
  }
  if (filled.length) {
    throw conflict('Store.TargetNotEmpty', `The target store already holds data (${filled.join(', ')}); copy only into an empty store.`);
  }
}

/**
 * One consistent view of the source for the whole copy: SQLite's read
 * transaction (deferred, so a running server can still write), PostgreSQL's
 * repeatable read.
 */
async function inSnapshot<T>(db: Executor, work: (source: Executor) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    const begin = dialectOf(db) === 'postgres' ? sql`begin isolation level repeatable read read only` : sql`begin`;
    await begin.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`rollback`.execute(connection);
    }
  });
}

/** The table's rows in key order, a page at a time, each page after the last key of the one before. */
async function* pages(db: Executor, table: string, key: readonly string[], size: number): AsyncGenerator<Row[]> {
  let after: unknown[] | undefined;
  for (;;) {
    let q = db.selectFrom(table as keyof Database).selectAll();
    if (after) {
      const last = after;
      // A row-value comparison: both stores order it column by column, as the key is sorted.
      q = q.where(sql<boolean>`(${sql.join(key.map((c) => sql.ref(c)))}) > (${sql.join(last)})`);
    }
    for (const column of key) q = q.orderBy(sql.ref(column));
    const page = (await q.limit(size).execute()) as Row[];
    if (page.length === 0) return;
    yield page;
    if (page.length < size) return;
    const lastRow = page[page.length - 1]!;
    after = key.map((column) => lastRow[column]);
  }
}

/** Values as both drivers hand them over, written one way: bytes as base64, numbers and text as JSON. */
function digestRow(digest: Hash, row: Row): void {
  const columns = Object.keys(row).sort();
  digest.update(JSON.stringify(columns.map((c) => (Buffer.isBuffer(row[c]) ? { bytes: (row[c] as Buffer).toString('base64') } : row[c]))));
  digest.update('\n');
}

async function tableDigest(db: Executor, table: string, key: readonly string[], size: number): Promise<CopiedTable> {
  // A trigger-kept count that went back to zero (its e-CF moved on to another
  // status) stays a row in the source, but the copy's inserts never make it:
  // such rows count nothing, so both sides are compared without them.
  const counts = DERIVED_TABLES.some((d) => d.table === table);
  const digest = createHash('sha256');
  let rows = 0;
  for await (const page of pages(db, table, key, size)) {
    for (const row of page) {
      if (counts && Number(row.n) === 0) continue;
      digestRow(digest, row);
      rows++;
    }
  }
  return { table, rows, sha256: digest.digest('hex') };
}

/** Every stored e-CF document read back from the target (decompressed, its SHA-256 checked) and hashed again: the bytes the authority received must be the bytes kept. */
async function verifyDocuments(db: Executor, size: number): Promise<{ verified: number; mismatches: string[] }> {
  let verified = 0;
  const mismatches: string[] = [];
  // A port of its own: the certificate ids it remembers are the target's.
  const documents = documentStore();
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('ecf')
      .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
      .select(['ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
      .where('ecf.id', '>', after)
      .orderBy('ecf.id')
      .limit(size)
      .execute();
    for (const row of page) {
      const bytes = await readEcfXml(documents, db, row).catch((e: unknown) => {
        if (e instanceof DocumentDamaged) return null;
        throw e;
      });
      if (bytes && createHash('sha256').update(bytes).digest('hex') === documentHashOf(row)) verified++;
      else mismatches.push(row.id);
    }
    if (page.length < size) return { verified, mismatches };
    after = page[page.length - 1]!.id;
  }
}

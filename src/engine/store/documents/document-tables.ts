import { sql, type Kysely, type RawBuilder } from 'kysely';
import { fromRowInstant } from '../../clock.js';
import { dialectOf } from '../dialect.js';
import { rowKey } from '../functions.js';
import type { KeptDigest } from './document-store.js';

/**
 * Every table that keeps documents, and per document column the digest that
 * checks it: the raw SHA-256 of migration 0017 where the row has one, else
 * the hex digest an older release kept (ecf.document_hash for the e-CF's XML,
 * the xml_sha256 text columns elsewhere). The in-place conversion and
 * `ecf store verify` walk this list; a new document column is added here.
 * The SQL names below are constants of this file, never input.
 */
export interface DocumentColumn {
  /** The blob column, on the table itself. */
  readonly column: string;
  /** The raw digest column the conversion fills (migration 0017), when the row has one. */
  readonly rawDigest: string | null;
  /** The hex digest an older release kept, as an expression over the query's tables. */
  readonly hexDigest: string | null;
  /** When the row says the document was signed (the time its certificate must be valid at); null: not one of ours to check. */
  readonly signedAt: string | null;
  /** A condition for checking the signature (a refused foreign document is kept as it came). */
  readonly signatureWhen?: string;
  /**
   * The older hex copy of the digest that the raw one stands for once the conversion writes it
   * (migration 0020 reads an empty `ecf.document_hash` from `ecf_documents.xml_sha256`): emptied
   * then, where it still holds the same digest. Its row's key is the document row's key.
   */
  readonly hexCopy?: { readonly table: string; readonly key: string; readonly column: string };
}

export interface DocumentTable {
  readonly table: string;
  /** The primary key column, on the table itself. */
  readonly key: string;
  /** What a message names the row by, when not its key: the e-CF's public id, not its store key. */
  readonly id?: string;
  /** The key is an integer (ecf_documents: the e-CF's store key, migration 0022), so PostgreSQL's walk starts below 1, not at ''. */
  readonly integerKey?: boolean;
  /** The table `t` and what it joins for the e-NCF, the tenant and the older digest. */
  readonly from: string;
  readonly encf: string | null;
  readonly tenant: string;
  readonly columns: readonly DocumentColumn[];
}

export const DOCUMENT_TABLES: readonly DocumentTable[] = [
  {
    table: 'ecf_documents',
    // The e-CF's store key (migration 0022); messages name the e-CF by its id.
    key: 'ecf_key',
    id: 'e.id',
    integerKey: true,
    from: 'ecf_documents t join ecf e on e.store_key = t.ecf_key',
    encf: 'e.encf',
    // ecf carries the tenant's store key (migration 0021); the filter compares the tenant's id.
    tenant: '(select k.id from tenants k where k.store_key = e.tenant_key)',
    columns: [
      { column: 'xml', rawDigest: 'xml_sha256', hexDigest: 'e.document_hash', signedAt: 'coalesce(e.signed_at, e.issued_at)', hexCopy: { table: 'ecf', key: 'store_key', column: 'document_hash' } },
      { column: 'rfce_xml', rawDigest: 'rfce_sha256', hexDigest: null, signedAt: 'coalesce(e.signed_at, e.issued_at)' },
    ],
  },
  {
    table: 'annulments',
    key: 'id',
    from: 'annulments t',
    encf: null,
    tenant: 't.tenant_id',
    columns: [{ column: 'xml', rawDigest: null, hexDigest: 't.xml_sha256', signedAt: 't.created_at' }],
  },
  {
    table: 'received_ecf',
    key: 'id',
    from: 'received_ecf t',
    encf: 't.encf',
    tenant: 't.tenant_id',
    columns: [
      { column: 'xml', rawDigest: null, hexDigest: 't.xml_sha256', signedAt: 't.received_at', signatureWhen: "t.status = 'received'" },
      { column: 'arecf_xml', rawDigest: 'arecf_sha256', hexDigest: null, signedAt: 't.received_at' },
    ],
  },
  {
    table: 'received_ecf_approvals',
    key: 'id',
    from: 'received_ecf_approvals t join received_ecf r on r.id = t.received_ecf_id',
    encf: 'r.encf',
    tenant: 't.tenant_id',
    columns: [{ column: 'xml', rawDigest: null, hexDigest: 't.xml_sha256', signedAt: 't.decided_at' }],
  },
  {
    table: 'inbound_approvals',
    key: 'id',
    from: 'inbound_approvals t',
    encf: 't.encf',
    tenant: 't.tenant_id',
    columns: [{ column: 'xml', rawDigest: null, hexDigest: 't.xml_sha256', signedAt: 't.received_at' }],
  },
  {
    table: 'certification_cases',
    key: 'id',
    from: 'certification_cases t',
    encf: 't.encf',
    tenant: 't.tenant_id',
    columns: [{ column: 'xml', rawDigest: 'xml_sha256', hexDigest: null, signedAt: 'coalesce(t.sent_at, t.updated_at)' }],
  },
];

/** One row of a batch: its walking key, primary key, id, e-NCF and, per column (in the table's order), the blob and its digests. */
export interface DocumentRow {
  readonly k: number | string;
  readonly key: number | string;
  readonly id: string;
  readonly encf: string | null;
  readonly documents: readonly {
    readonly blob: Buffer | null;
    readonly raw: Buffer | null;
    readonly hex: string | null;
    readonly signedAt: string | null;
    readonly checkSignature: boolean;
  }[];
}

/** A signing time as ISO text: the `ecf` row keeps milliseconds (migration 0022), the other tables ISO text. */
const signedText = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'number' ? fromRowInstant(v) : String(v));

/** The digest that checks a document: the raw one when kept, else the older hex one. */
export const keptDigest = (d: DocumentRow['documents'][number]): KeptDigest => d.raw ?? d.hex;

/**
 * The FROM clause. On SQLite a join is a CROSS JOIN, which keeps the document
 * table as the outer loop: walking by rowid then reads one batch, where the
 * planner would otherwise scan the joined table and sort the whole document
 * table for every batch.
 */
const fromOf = (db: Kysely<any>, spec: DocumentTable) => sql.raw(dialectOf(db) === 'sqlite' ? spec.from.replace(/ join /g, ' cross join ') : spec.from);

/** The table's walking key: SQLite's rowid, PostgreSQL's primary key (rowKey in store/functions.ts). */
function keyOf(db: Kysely<any>, spec: DocumentTable): RawBuilder<unknown> {
  return dialectOf(db) === 'sqlite' ? sql`t.${rowKey(db).ref}` : sql.raw(`t.${spec.key}`);
}

export const firstKey = (db: Kysely<any>, spec: DocumentTable): number | string => (spec.integerKey ? 0 : rowKey(db).first);

export interface BatchOptions {
  readonly after: number | string;
  readonly limit: number;
  /** The walk stops past this key (inclusive), for a range of its own. */
  readonly through?: number | string;
  readonly tenantId?: string;
  /** Also read the signing times and conditions (verify --signatures). */
  readonly signatures?: boolean;
}

/** The next rows after `after`, in key order. */
export async function readBatch(db: Kysely<any>, spec: DocumentTable, options: BatchOptions): Promise<DocumentRow[]> {
  const key = keyOf(db, spec);
  const parts: RawBuilder<unknown>[] = [sql`${key} as k`, sql.raw(`t.${spec.key} as key`), sql.raw(`${spec.id ?? `t.${spec.key}`} as id`), sql.raw(`${spec.encf ?? 'null'} as encf`)];
  spec.columns.forEach((c, i) => {
    parts.push(sql.raw(`t.${c.column} as b${i}`), sql.raw(`${c.rawDigest ? `t.${c.rawDigest}` : 'null'} as r${i}`), sql.raw(`${c.hexDigest ?? 'null'} as h${i}`));
    if (options.signatures) parts.push(sql.raw(`${c.signedAt ?? 'null'} as s${i}`), sql.raw(`${c.signatureWhen ? `case when ${c.signatureWhen} then 1 else 0 end` : '1'} as w${i}`));
  });
  const where: RawBuilder<unknown>[] = [sql`${key} > ${options.after}`];
  if (options.through !== undefined) where.push(sql`${key} <= ${options.through}`);
  if (options.tenantId !== undefined) where.push(sql`${sql.raw(spec.tenant)} = ${options.tenantId}`);
  const query = sql<Record<string, unknown>>`select ${sql.join(parts)} from ${fromOf(db, spec)} where ${sql.join(where, sql` and `)} order by ${key} limit ${sql.lit(options.limit)}`;
  const { rows } = await query.execute(db);
  return rows.map((r) => ({
    k: r.k as number | string,
    key: r.key as number | string,
    id: r.id as string,
    encf: (r.encf as string | null) ?? null,
    documents: spec.columns.map((_, i) => ({
      blob: (r[`b${i}`] as Buffer | null) ?? null,
      raw: (r[`r${i}`] as Buffer | null) ?? null,
      hex: (r[`h${i}`] as string | null) ?? null,
      signedAt: signedText(r[`s${i}`]),
      checkSignature: Number(r[`w${i}`] ?? 0) === 1,
    })),
  }));
}

/** How many rows the table has (of the tenant), and how many lie at or before `through`. */
export async function countRows(db: Kysely<any>, spec: DocumentTable, through: number | string, tenantId?: string): Promise<{ total: number; before: number }> {
  const key = keyOf(db, spec);
  const tenant = tenantId === undefined ? sql`1 = 1` : sql`${sql.raw(spec.tenant)} = ${tenantId}`;
  const { rows } = await sql<{ total: number | string; before: number | string | null }>`select count(*) as total, sum(case when ${key} <= ${through} then 1 else 0 end) as before from ${fromOf(db, spec)} where ${tenant}`.execute(db);
  return { total: Number(rows[0]?.total ?? 0), before: Number(rows[0]?.before ?? 0) };
}

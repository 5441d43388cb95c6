import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { withoutRowid } from './ddl.js';

/**
 * The journal (issue 35, design/RECORD.md): one hash-chained record per
 * tenant of every change of record, written in the transaction of the
 * change (journal/append.ts). Rows are small because there are two or three
 * per e-CF: numbers for the kind and the e-CF, a digest only where a
 * document is recorded, text only for the rare kinds, and 8 bytes of the
 * entry's hash. `journal_heads` keeps each chain's last seq and full hash;
 * appends lock its row.
 *
 * A store that already holds records gets them carried into the journal
 * (carryOver below), so that `ecf audit verify` finds every e-CF in it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('journal')
      .addColumn('tenant_key', 'integer', (col) => col.notNull())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .addColumn('at', 'integer', (col) => col.notNull())
      .addColumn('kind', 'integer', (col) => col.notNull())
      .addColumn('ecf_key', 'integer')
      .addColumn('ref', 'text')
      .addColumn('digest', 'blob')
      .addColumn('data', 'text')
      .addColumn('link', 'blob', (col) => col.notNull())
      .addPrimaryKeyConstraint('journal_pk', ['tenant_key', 'seq']),
  ).execute();
  await withoutRowid(
    db,
    db.schema
      .createTable('journal_heads')
      .addColumn('tenant_key', 'integer', (col) => col.primaryKey())
      .addColumn('seq', 'integer', (col) => col.notNull())
      .addColumn('hash', 'blob', (col) => col.notNull()),
  ).execute();
  await carryOver(db as Kysely<any>, Date.now());
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('journal_heads').execute();
  await db.schema.dropTable('journal').execute();
}

/*
 * The carry-over. Frozen like the rest of the migration (ddl.ts says why):
 * the chain formula and the kind numbers are copies of journal/chain.ts and
 * journal/kinds.ts as they were when it was written, and
 * test/engine/journal/carry-over.test.ts checks that the copies agree.
 */

/** A copy of journal/chain.ts: h(n) = SHA-256(h(n-1) || canonical(entry n)). */
interface Entry {
  readonly tenantKey: number;
  readonly seq: number;
  readonly at: number;
  readonly kind: number;
  readonly ecfKey: number | null;
  readonly ref: string | null;
  readonly digest: Buffer | null;
  readonly data: string | null;
}
export function carriedHash(previous: Buffer, e: Entry): Buffer {
  const canonical = JSON.stringify([1, e.tenantKey, e.seq, e.at, e.kind, e.ecfKey, e.ref, e.digest ? e.digest.toString('hex') : null, e.data]);
  return createHash('sha256').update(previous).update(canonical, 'utf8').digest();
}
const GENESIS = Buffer.alloc(32);
const LINK_BYTES = 8;
/** journal/kinds.ts numbers (frozen). */
export const CARRIED_KINDS = { 'journal.started': 1, 'ecf.carried': 2, 'received.carried': 3 } as const;

/** Rows read per statement: memory stays the same whatever the store holds. A test makes it small to cross batches. */
export const CARRY_BATCH = { rows: 2000 };
const ROWS_PER_INSERT = 200;

/** A chain being written: its last seq and hash, and what it carried. */
interface Chain {
  seq: number;
  hash: Buffer;
  ecf: number;
  received: number;
}

/** The bytes of a document stored raw (not in the compressed layout, whose first byte is 0). */
const rawBytes = (blob: Buffer | null): Buffer | null => (blob && blob.length > 0 && blob[0] !== 0 ? blob : null);
const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

/**
 * The digest an `ecf.issued` entry records (a copy of journal/chain.ts
 * documentDigest), from what the rows hold: the XML's SHA-256 is
 * ecf_documents.xml_sha256, or for rows older than migration 0017
 * ecf.document_hash (hex), or for a document stored raw without either its
 * bytes hashed here. The RFCE's is rfce_sha256, or the SHA-256 of an RFCE
 * stored raw. An RFCE stored compressed without its digest is something no
 * version wrote; its entry would take the e-CF's digest alone and say so in
 * data (`rfce-undigested`), since decompressing needs the engine's code.
 */
function carriedDigest(r: { document_hash: string; xml_sha256: Buffer | null; rfce_sha256: Buffer | null; raw_xml: Buffer | null; rfce_xml: Buffer | null }): { digest: Buffer | null; data: string | null } {
  const xml = r.xml_sha256 ?? (r.document_hash ? Buffer.from(r.document_hash, 'hex') : rawBytes(r.raw_xml) && sha256(r.raw_xml!));
  if (!xml) return { digest: null, data: 'undigested' };
  if (r.rfce_xml === null) return { digest: xml, data: null };
  const rfce = r.rfce_sha256 ?? (rawBytes(r.rfce_xml) && sha256(r.rfce_xml));
  if (!rfce) return { digest: xml, data: 'rfce-undigested' };
  return { digest: createHash('sha256').update(xml).update(rfce).digest(), data: null };
}

/**
 * Carries the records a store held before the journal into it: per tenant,
 * one `ecf.carried` per e-CF in store_key order, one `received.carried` per
 * received e-CF (by id), then `journal.started` with the counts. One pass
 * over each table in key order in batches; every tenant's chain advances in
 * memory (a seq and a hash each), which gives the same chains as carrying
 * the tenants one after another. A store without tenants gets nothing.
 */
export async function carryOver(db: Kysely<any>, at: number): Promise<void> {
  const tenants = await db.selectFrom('tenants').select(['store_key', 'id']).orderBy('store_key').execute();
  if (tenants.length === 0) return;
  const chains = new Map<number, Chain>(tenants.map((t) => [Number(t.store_key), { seq: 0, hash: GENESIS, ecf: 0, received: 0 }]));
  const keyOfTenant = new Map<string, number>(tenants.map((t) => [t.id as string, Number(t.store_key)]));
  const rows: Record<string, unknown>[] = [];
  const flush = async (all: boolean) => {
    while (rows.length >= (all ? 1 : ROWS_PER_INSERT)) await db.insertInto('journal').values(rows.splice(0, ROWS_PER_INSERT)).execute();
  };
  const append = (tenantKey: number, kind: number, fields: { ecfKey?: number; ref?: string; digest?: Buffer | null; data?: string | null }) => {
    const chain = chains.get(tenantKey)!;
    const entry: Entry = { tenantKey, seq: chain.seq + 1, at, kind, ecfKey: fields.ecfKey ?? null, ref: fields.ref ?? null, digest: fields.digest ?? null, data: fields.data ?? null };
    chain.hash = carriedHash(chain.hash, entry);
    chain.seq = entry.seq;
    rows.push({ tenant_key: tenantKey, seq: entry.seq, at, kind, ecf_key: entry.ecfKey, ref: entry.ref, digest: entry.digest, data: entry.data, link: chain.hash.subarray(0, LINK_BYTES) });
  };

  for (let after = -1; ; ) {
    // The documents' bytes are read only where no digest is kept (rows stored raw, before 0017).
    const batch = await db
      .selectFrom('ecf as e')
      .leftJoin('ecf_documents as d', 'd.ecf_key', 'e.store_key')
      .select(['e.store_key', 'e.tenant_key', 'e.document_hash', 'd.xml_sha256', 'd.rfce_sha256', 'd.rfce_xml'])
      .select((eb) => eb.case().when(eb.and([eb('d.xml_sha256', 'is', null), eb('e.document_hash', '=', '')])).then(eb.ref('d.xml')).else(null).end().as('raw_xml'))
      .where('e.store_key', '>', after)
      .orderBy('e.store_key')
      .limit(CARRY_BATCH.rows)
      .execute();
    if (batch.length === 0) break;
    for (const r of batch) {
      const tenantKey = Number(r.tenant_key);
      const { digest, data } = carriedDigest({ ...r, rfce_xml: r.rfce_xml ?? null } as Parameters<typeof carriedDigest>[0]);
      append(tenantKey, CARRIED_KINDS['ecf.carried'], { ecfKey: Number(r.store_key), digest, data });
      chains.get(tenantKey)!.ecf++;
    }
    after = Number(batch[batch.length - 1]!.store_key);
    await flush(false);
  }

  for (let after = ''; ; ) {
    const batch = await db.selectFrom('received_ecf').select(['id', 'tenant_id', 'xml_sha256', 'status']).where('id', '>', after).orderBy('id').limit(CARRY_BATCH.rows).execute();
    if (batch.length === 0) break;
    for (const r of batch) {
      const tenantKey = keyOfTenant.get(r.tenant_id as string)!;
      append(tenantKey, CARRIED_KINDS['received.carried'], { ref: r.id as string, digest: Buffer.from(r.xml_sha256 as string, 'hex'), data: r.status as string });
      chains.get(tenantKey)!.received++;
    }
    after = batch[batch.length - 1]!.id as string;
    await flush(false);
  }

  for (const [tenantKey, chain] of chains) append(tenantKey, CARRIED_KINDS['journal.started'], { data: `ecf=${chain.ecf} received=${chain.received}` });
  await flush(true);
  for (const [tenantKey, chain] of chains) await db.insertInto('journal_heads').values({ tenant_key: tenantKey, seq: chain.seq, hash: chain.hash }).execute();
}

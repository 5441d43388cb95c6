import type { Db } from '../store/database.js';
import { Found, ISSUED, RECEIVED, nameOf, type Tenant } from './audit-problem.js';
import { documentDigest } from './chain.js';
import { textKey, type KeyIndex } from './key-index.js';

// The journal against the store: every stored e-CF (issued, received) found in the packed index of
// the entries that record them, a page at a time in key order.

/** Whether an entry past the checked head records this e-CF: a few entries at most, read by the primary key. */
async function recordedAfter(db: Db, tenantKey: number, headSeq: number, kinds: ReadonlySet<number>, of: { ecfKey?: number; ref?: string }): Promise<boolean> {
  let q = db.selectFrom('journal').select('seq').where('tenant_key', '=', tenantKey).where('seq', '>', headSeq).where('kind', 'in', [...kinds]);
  q = of.ecfKey !== undefined ? q.where('ecf_key', '=', of.ecfKey) : q.where('ref', '=', of.ref!);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Each page's entries' digests, read by seq (the primary key). */
async function digestsOf(db: Db, tenantKey: number, seqs: number[], kinds: ReadonlySet<number>): Promise<Map<number, { kind: number; ref: string | null; digest: Buffer | null }>> {
  const found = new Map<number, { kind: number; ref: string | null; digest: Buffer | null }>();
  if (seqs.length === 0) return found;
  const low = Math.min(...seqs);
  const high = Math.max(...seqs);
  // The e-CF of a page were mostly recorded one after another: one range read of the primary key
  // (a few entries between them too) costs less than a lookup each.
  if (high - low < seqs.length * 4) {
    const rows = await db
      .selectFrom('journal')
      .select(['seq', 'kind', 'ref', 'digest'])
      .where('tenant_key', '=', tenantKey)
      .where('seq', '>=', low)
      .where('seq', '<=', high)
      .where('kind', 'in', [...kinds])
      .execute();
    for (const r of rows) found.set(Number(r.seq), { kind: Number(r.kind), ref: r.ref, digest: r.digest });
    return found;
  }
  for (let i = 0; i < seqs.length; i += 1000) {
    const rows = await db.selectFrom('journal').select(['seq', 'kind', 'ref', 'digest']).where('tenant_key', '=', tenantKey).where('seq', 'in', seqs.slice(i, i + 1000)).execute();
    for (const r of rows) found.set(Number(r.seq), { kind: Number(r.kind), ref: r.ref, digest: r.digest });
  }
  return found;
}

export async function verifyIssued(db: Db, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
  let after = -1;
  let n = 0;
  for (;;) {
    const rows = await db
      .selectFrom('ecf as e')
      .leftJoin('ecf_documents as d', 'd.ecf_key', 'e.store_key')
      .select(['e.store_key', 'e.encf', 'e.document_hash', 'd.xml_sha256', 'd.rfce_sha256'])
      .where('e.tenant_key', '=', tenant.key)
      .where('e.store_key', '>', after)
      .orderBy('e.store_key')
      .limit(pageRows)
      .execute();
    const wanted: { seq: number; encf: string; digest: Buffer }[] = [];
    for (const row of rows) {
      const key = Number(row.store_key);
      after = key;
      const found = entries.find(key);
      // Issued while the check ran: its entry is past the head checked.
      if (found.length === 0 && (await recordedAfter(db, tenant.key, headSeq, ISSUED, { ecfKey: key }))) continue;
      if (found.length !== 1) {
        throw new Found({
          seq: found[1]?.seq ?? null,
          kind: found.length ? 'ecf.issued' : null,
          encf: row.encf,
          what: found.length ? `the e-CF has ${found.length} entries (seq ${found.map((f) => f.seq).join(', ')}), not one` : 'the e-CF has no ecf.issued or ecf.carried entry in the journal',
        });
      }
      entries.match(found[0]!.position);
      const xml = row.xml_sha256 ?? (row.document_hash ? Buffer.from(row.document_hash, 'hex') : null);
      if (!xml) throw new Found({ seq: found[0]!.seq, kind: 'ecf.issued', encf: row.encf, what: 'the e-CF has no stored document digest to compare' });
      wanted.push({ seq: found[0]!.seq, encf: row.encf, digest: documentDigest(Buffer.from(xml), row.rfce_sha256 ? Buffer.from(row.rfce_sha256) : null) });
      n++;
    }
    const recorded = await digestsOf(db, tenant.key, wanted.map((w) => w.seq), ISSUED);
    for (const w of wanted) {
      const entry = recorded.get(w.seq)!;
      if (!entry.digest || !w.digest.equals(entry.digest)) {
        throw new Found({ seq: w.seq, kind: nameOf(entry.kind), encf: w.encf, what: `the entry records digest ${entry.digest?.toString('hex') ?? 'none'}; the stored documents give ${w.digest.toString('hex')}` });
      }
    }
    if (rows.length < pageRows) break;
  }
  const orphan = entries.firstUnmatched();
  if (orphan) {
    const kind = (await digestsOf(db, tenant.key, [orphan.seq], ISSUED)).get(orphan.seq)!.kind;
    throw new Found({ seq: orphan.seq, kind: nameOf(kind), encf: null, what: `the entry records e-CF store key ${orphan.key}, which the store no longer holds` });
  }
  return n;
}

export async function verifyReceived(db: Db, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows = await db
      .selectFrom('received_ecf')
      .select(['id', 'encf', 'xml_sha256'])
      .where('tenant_id', '=', tenant.id)
      .where('id', '>', after)
      .orderBy('id')
      .limit(pageRows)
      .execute();
    const candidates = rows.map((row) => ({ row, found: entries.find(textKey(row.id)) }));
    const recorded = await digestsOf(db, tenant.key, candidates.flatMap((c) => c.found.map((f) => f.seq)), RECEIVED);
    for (const { row, found } of candidates) {
      after = row.id;
      const mine = found.filter((f) => recorded.get(f.seq)?.ref === row.id);
      if (mine.length === 0 && (await recordedAfter(db, tenant.key, headSeq, RECEIVED, { ref: row.id }))) continue;
      if (mine.length !== 1) {
        throw new Found({
          seq: mine[1]?.seq ?? null,
          kind: mine.length ? 'received.stored' : null,
          encf: row.encf,
          what: mine.length ? `the received e-CF ${row.id} has ${mine.length} entries (seq ${mine.map((f) => f.seq).join(', ')}), not one` : `the received e-CF ${row.id} has no received.stored or received.carried entry in the journal`,
        });
      }
      const entry = recorded.get(mine[0]!.seq)!;
      entries.match(mine[0]!.position);
      if (!entry.digest || entry.digest.toString('hex') !== row.xml_sha256) {
        throw new Found({ seq: mine[0]!.seq, kind: nameOf(entry.kind), encf: row.encf, what: `the entry records digest ${entry.digest?.toString('hex') ?? 'none'}; the stored bytes' SHA-256 is ${row.xml_sha256}` });
      }
      n++;
    }
    if (rows.length < pageRows) break;
  }
  const orphan = entries.firstUnmatched();
  if (orphan) {
    const entry = (await digestsOf(db, tenant.key, [orphan.seq], RECEIVED)).get(orphan.seq)!;
    throw new Found({ seq: orphan.seq, kind: nameOf(entry.kind), encf: null, what: `the entry records received e-CF ${entry.ref}, which the store no longer holds` });
  }
  return n;
}

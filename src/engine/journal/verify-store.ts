import type { Db } from '../store/database.js';
import { Found, ISSUED, RECEIVED, nameOf, type Tenant } from './audit-problem.js';
import { documentDigest } from './chain.js';
import { textKey, type KeyIndex } from './key-index.js';
import type { RowReader } from './row-reader.js';

// The journal against the store: every stored e-CF (issued, received) found in the packed index of
// the entries that record them, a page at a time in key order.

/** Whether an entry past the checked head records this e-CF: a few entries at most, read by the primary key. */
async function recordedAfter(db: Db, tenantKey: number, headSeq: number, kinds: ReadonlySet<number>, of: { ecfKey?: number; ref?: string }): Promise<boolean> {
  let q = db.selectFrom('journal').select('seq').where('tenant_key', '=', tenantKey).where('seq', '>', headSeq).where('kind', 'in', [...kinds]);
  q = of.ecfKey !== undefined ? q.where('ecf_key', '=', of.ecfKey) : q.where('ref', '=', of.ref!);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

type Recorded = { kind: number; ref: string | null; digest: Buffer | null };
const recordedOf = (r: unknown[]): [number, Recorded] => [r[0] as number, { kind: r[1] as number, ref: r[2] as string | null, digest: r[3] as Buffer | null }];
const RANGE = 'select seq, kind, ref, digest from journal where tenant_key = ? and seq >= ? and seq <= ? order by seq';
// Seqs read a batch at a time, each batch padded (with its last seq) to one of a few lengths, so
// the store prepares a few statements, not one per length.
const BATCHES = [1, 10, 100, 1000];
const bySeq = (n: number) => `select seq, kind, ref, digest from journal where tenant_key = ? and seq in (${Array(n).fill('?').join(', ')})`;
const BY_SEQ = new Map(BATCHES.map((n) => [n, bySeq(n)]));

/** Each page's entries, read by seq (the primary key). */
async function digestsOf(reader: RowReader, tenantKey: number, seqs: number[], kinds: ReadonlySet<number>): Promise<Map<number, Recorded>> {
  const found = new Map<number, Recorded>();
  if (seqs.length === 0) return found;
  const low = Math.min(...seqs);
  const high = Math.max(...seqs);
  // The e-CF of a page were mostly recorded one after another: one range read of the primary key
  // (a few entries between them too) costs less than a lookup each.
  if (high - low < seqs.length * 4) {
    for (const r of await reader.rows(RANGE, [tenantKey, low, high])) if (kinds.has(r[1] as number)) found.set(...recordedOf(r));
    return found;
  }
  for (let i = 0; i < seqs.length; i += 1000) {
    const batch = seqs.slice(i, i + 1000);
    const size = BATCHES.find((n) => n >= batch.length)!;
    const padded = batch.concat(Array<number>(size - batch.length).fill(batch[batch.length - 1]!));
    for (const r of await reader.rows(BY_SEQ.get(size)!, [tenantKey, ...padded])) if (kinds.has(r[1] as number)) found.set(...recordedOf(r));
  }
  return found;
}

// Keyset pages in the order of the index on (tenant_key, issued_at) (its rows end in the store key
// on SQLite): a page read costs its own rows. Ordered by store key alone, the store read and sorted
// every e-CF of the tenant past the last page's for each page, on both stores.
const issuedPage = (reader: RowReader) =>
  `select e.store_key, e.encf, e.document_hash, ${reader.hex('d.xml_sha256')}, ${reader.hex('d.rfce_sha256')}, e.issued_at from ecf e left join ecf_documents d on d.ecf_key = e.store_key ` +
  'where e.tenant_key = ? and e.issued_at >= ? and (e.issued_at > ? or e.store_key > ?) order by e.issued_at, e.store_key limit ?';

/** Every stored e-CF against the digest its entry recorded, kept in the index from the chain's pass. */
export async function verifyIssued(db: Db, reader: RowReader, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
  let after = -1;
  let afterAt = Number.MIN_SAFE_INTEGER;
  let n = 0;
  const page = issuedPage(reader);
  for (;;) {
    const rows = await reader.rows(page, [tenant.key, afterAt, afterAt, after, pageRows]);
    for (const row of rows) {
      const key = row[0] as number;
      const encf = row[1] as string;
      after = key;
      afterAt = row[5] as number;
      const found = entries.find(key);
      // Issued while the check ran: its entry is past the head checked.
      if (found.length === 0 && (await recordedAfter(db, tenant.key, headSeq, ISSUED, { ecfKey: key }))) continue;
      if (found.length !== 1) {
        throw new Found({
          seq: found[1]?.seq ?? null,
          kind: found.length ? 'ecf.issued' : null,
          encf,
          what: found.length ? `the e-CF has ${found.length} entries (seq ${found.map((f) => f.seq).join(', ')}), not one` : 'the e-CF has no ecf.issued or ecf.carried entry in the journal',
        });
      }
      const { position, seq } = found[0]!;
      entries.match(position);
      // Hex text: the digest of the signed e-CF (ecf_documents, or document_hash in rows older than it).
      const xml = (row[3] as string | null) ?? (row[2] as string | null);
      if (!xml) throw new Found({ seq, kind: 'ecf.issued', encf, what: 'the e-CF has no stored document digest to compare' });
      const rfce = row[4] as string | null;
      const digest = rfce === null ? xml : documentDigest(Buffer.from(xml, 'hex'), Buffer.from(rfce, 'hex')).toString('hex');
      // The index holds 8 bytes of each entry's digest: the entry is read back only to compare all 32.
      if (!entries.sameDigest(position, digest)) {
        const entry = (await digestsOf(reader, tenant.key, [seq], ISSUED)).get(seq)!;
        const full = Buffer.from(xml, 'hex');
        const stored = rfce === null ? full : documentDigest(full, Buffer.from(rfce, 'hex'));
        if (!entry.digest || !stored.equals(entry.digest)) {
          throw new Found({ seq, kind: nameOf(entry.kind), encf, what: `the entry records digest ${entry.digest?.toString('hex') ?? 'none'}; the stored documents give ${stored.toString('hex')}` });
        }
      }
      n++;
    }
    if (rows.length < pageRows) break;
  }
  const orphan = entries.firstUnmatched();
  if (orphan) {
    const kind = (await digestsOf(reader, tenant.key, [orphan.seq], ISSUED)).get(orphan.seq)!.kind;
    throw new Found({ seq: orphan.seq, kind: nameOf(kind), encf: null, what: `the entry records e-CF store key ${orphan.key}, which the store no longer holds` });
  }
  return n;
}

const RECEIVED_PAGE = 'select id, encf, xml_sha256 from received_ecf where tenant_id = ? and id > ? order by id limit ?';

export async function verifyReceived(db: Db, reader: RowReader, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const rows = (await reader.rows(RECEIVED_PAGE, [tenant.id, after, pageRows])).map((r) => ({ id: r[0] as string, encf: r[1] as string, xml_sha256: r[2] as string }));
    const candidates = rows.map((row) => ({ row, found: entries.find(textKey(row.id)) }));
    const recorded = await digestsOf(reader, tenant.key, candidates.flatMap((c) => c.found.map((f) => f.seq)), RECEIVED);
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
    const entry = (await digestsOf(reader, tenant.key, [orphan.seq], RECEIVED)).get(orphan.seq)!;
    throw new Found({ seq: orphan.seq, kind: nameOf(entry.kind), encf: null, what: `the entry records received e-CF ${entry.ref}, which the store no longer holds` });
  }
  return n;
}

import { hash as oneShotHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Engine } from '../engine.js';
import type { Db } from '../store/database.js';
import { GENESIS, canonicalEntry, documentDigest, linkOf, type ChainEntry } from './chain.js';
import { checkClosingSignature, type ClosingData } from './closing-data.js';
import { KeyIndex, textKey } from './key-index.js';
import { JOURNAL_KINDS, kindName } from './kinds.js';

/** Rows read a page at a time, in key order: memory stays flat whatever the journal's length. */
export const AUDIT_PAGE_ROWS = 5000;

export interface AuditProblem {
  readonly tenantId: string;
  /** The entry at fault, or null when the fault is a store row no entry records. */
  readonly seq: number | null;
  readonly kind: string | null;
  readonly encf: string | null;
  readonly what: string;
}

export interface TenantAudit {
  readonly tenantId: string;
  readonly rnc: string;
  readonly entries: number;
  readonly closings: { readonly signed: number; readonly unsigned: number };
  readonly ecf: number;
  readonly received: number;
  /** The first thing that does not hold, or null. */
  readonly problem: AuditProblem | null;
}

export interface AuditReport {
  readonly tenants: TenantAudit[];
  readonly entries: number;
  readonly seconds: number;
  readonly broken: number;
}

const ISSUED = new Set<number>([JOURNAL_KINDS['ecf.issued'], JOURNAL_KINDS['ecf.carried']]);
const RECEIVED = new Set<number>([JOURNAL_KINDS['received.stored'], JOURNAL_KINDS['received.carried']]);
const CLOSINGS = new Set<number>([JOURNAL_KINDS['closing.day'], JOURNAL_KINDS['closing.month']]);

/**
 * Checks each tenant's journal: every link recomputed from the start, seq
 * without gaps, the head row, every closing's locked head and signature;
 * then the journal against the store: every e-CF (issued and received) has
 * exactly one entry whose digest is its documents', and every such entry's
 * e-CF is still there. Reports the first thing that does not hold per tenant.
 */
export async function verifyAudit(engine: Engine, options: { tenantId?: string; pageRows?: number; onTenant?: (t: TenantAudit) => void } = {}): Promise<AuditReport> {
  const started = performance.now();
  let q = engine.db.selectFrom('tenants').select(['id', 'rnc', 'store_key']);
  if (options.tenantId) q = q.where('id', '=', options.tenantId);
  const tenants: TenantAudit[] = [];
  for (const t of await q.orderBy('store_key').execute()) {
    const audit = await verifyTenant(engine.db, { id: t.id, rnc: t.rnc, key: Number(t.store_key) }, options.pageRows ?? AUDIT_PAGE_ROWS);
    tenants.push(audit);
    options.onTenant?.(audit);
  }
  return {
    tenants,
    entries: tenants.reduce((n, t) => n + t.entries, 0),
    seconds: (performance.now() - started) / 1000,
    broken: tenants.filter((t) => t.problem).length,
  };
}

interface Tenant {
  readonly id: string;
  readonly rnc: string;
  readonly key: number;
}

class Found extends Error {
  constructor(readonly problem: Omit<AuditProblem, 'tenantId'>) {
    super(problem.what);
  }
}

async function verifyTenant(db: Db, tenant: Tenant, pageRows: number): Promise<TenantAudit> {
  const counts = { entries: 0, signed: 0, unsigned: 0, ecf: 0, received: 0 };
  const result = (problem: AuditProblem | null): TenantAudit => ({
    tenantId: tenant.id,
    rnc: tenant.rnc,
    entries: counts.entries,
    closings: { signed: counts.signed, unsigned: counts.unsigned },
    ecf: counts.ecf,
    received: counts.received,
    problem,
  });
  try {
    const { issued, received, headSeq } = await verifyChain(db, tenant, pageRows, counts);
    counts.ecf = await verifyIssued(db, tenant, issued, pageRows, headSeq);
    counts.received = await verifyReceived(db, tenant, received, pageRows, headSeq);
    return result(null);
  } catch (e) {
    if (!(e instanceof Found)) throw e;
    return result({ tenantId: tenant.id, ...e.problem });
  }
}

async function encfOfEcf(db: Db, storeKey: number | null): Promise<string | null> {
  if (storeKey === null) return null;
  return (await db.selectFrom('ecf').select('encf').where('store_key', '=', storeKey).executeTakeFirst())?.encf ?? null;
}

async function encfOfReceived(db: Db, id: string | null): Promise<string | null> {
  if (id === null) return null;
  return (await db.selectFrom('received_ecf').select('encf').where('id', '=', id).executeTakeFirst())?.encf ?? null;
}

/**
 * chain.ts's nextHash, computed with one-shot hashing into a buffer reused
 * for every entry: the chain's cost is most of the verify's, and this is
 * nearly twice as fast as a Hash object per entry. The tests check both
 * agree on every chain the engine writes.
 */
let scratch = Buffer.alloc(4096);
function nextHashFast(previous: Buffer, e: ChainEntry): Buffer {
  const text = canonicalEntry(e);
  if (32 + text.length * 3 > scratch.length) scratch = Buffer.alloc(32 + text.length * 3);
  previous.copy(scratch, 0);
  const n = scratch.write(text, 32, 'utf8');
  return oneShotHash('sha256', scratch.subarray(0, 32 + n), 'buffer');
}

async function entryFault(db: Db, e: { seq: number; kind: number; ecfKey: number | null; ref: string | null }, what: string): Promise<Found> {
  const encf = e.ecfKey !== null ? await encfOfEcf(db, e.ecfKey) : RECEIVED.has(e.kind) ? await encfOfReceived(db, e.ref) : null;
  return new Found({ seq: e.seq, kind: nameOf(e.kind), encf, what });
}

const nameOf = (kind: number): string => kindName(kind) ?? `unknown kind ${kind}`;

async function verifyChain(db: Db, tenant: Tenant, pageRows: number, counts: { entries: number; signed: number; unsigned: number }) {
  const issued = new KeyIndex();
  const received = new KeyIndex();
  // The head as it stands now is what is checked: entries appended while the check runs (ecf
  // serve may be issuing) come after it and are left for the next run.
  const head = await headOf(db, tenant.key);
  let hash = GENESIS;
  let last = 0;
  for (;;) {
    const rows = await db
      .selectFrom('journal')
      .select(['seq', 'at', 'kind', 'ecf_key', 'ref', 'digest', 'data', 'link'])
      .where('tenant_key', '=', tenant.key)
      .where('seq', '>', last)
      .where('seq', '<=', head.seq)
      .orderBy('seq')
      .limit(pageRows)
      .execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      const kind = Number(row.kind);
      const ecfKey = row.ecf_key === null ? null : Number(row.ecf_key);
      const fault = (what: string) => entryFault(db, { seq, kind, ecfKey, ref: row.ref }, what);
      if (seq !== last + 1) throw new Found({ seq: last + 1, kind: null, encf: null, what: `entry ${last + 1} is missing: after ${last} the next entry is ${seq}` });
      if (!kindName(kind)) throw await fault(`kind ${kind} is not in the catalogue (journal/kinds.ts)`);
      if (CLOSINGS.has(kind)) {
        const data = JSON.parse(row.data ?? 'null') as ClosingData | null;
        if (!data?.lockedHead) throw await fault('the closing holds no locked head');
        if (data.lockedHead.seq !== seq - 1 || data.lockedHead.hash !== hash.toString('hex')) {
          throw await fault(`the closing locked seq ${data.lockedHead.seq} with hash ${data.lockedHead.hash}; the recomputed chain has seq ${seq - 1} with hash ${hash.toString('hex')}`);
        }
      }
      hash = nextHashFast(hash, { tenantKey: tenant.key, seq, at: Number(row.at), kind, ecfKey, ref: row.ref, digest: row.digest, data: row.data });
      if (!linkOf(hash).equals(row.link)) {
        throw await fault(`its stored link ${Buffer.from(row.link).toString('hex')} is not the recomputed ${linkOf(hash).toString('hex')}: the entry was changed (or put in another's place)`);
      }
      if (CLOSINGS.has(kind)) {
        // Checked after the link: a closing edited in place is named as an edited entry first.
        const verdict = checkClosingSignature(JSON.parse(row.data!) as ClosingData);
        if (!verdict.ok) throw await fault(`the closing's ${verdict.reason}`);
        counts[verdict.signed ? 'signed' : 'unsigned']++;
      }
      if (ISSUED.has(kind)) {
        if (ecfKey === null) throw await fault('an e-CF entry without its e-CF');
        issued.add(ecfKey, seq);
      } else if (RECEIVED.has(kind)) {
        if (row.ref === null) throw await fault('a received e-CF entry without its id');
        received.add(textKey(row.ref), seq);
      }
      last = seq;
      counts.entries++;
    }
    if (rows.length < pageRows) break;
  }
  if (head.seq !== last || !head.hash.equals(hash)) {
    throw new Found({
      seq: head.seq > last ? head.seq : last || null,
      kind: null,
      encf: null,
      what: `the head row holds seq ${head.seq} and hash ${head.hash.toString('hex')}; the recomputed chain ends at seq ${last} with hash ${hash.toString('hex')}`,
    });
  }
  // An append writes its entries and moves the head in one transaction: read in this order (the
  // last seq, then the head), a journal that goes on past the head was written behind the engine.
  const max = await db.selectFrom('journal').select(sql<number | string>`max(seq)`.as('seq')).where('tenant_key', '=', tenant.key).executeTakeFirst();
  const now = await headOf(db, tenant.key);
  if (max?.seq !== null && max?.seq !== undefined && Number(max.seq) > now.seq) {
    const past = await db.selectFrom('journal').select(['kind', 'ecf_key', 'ref']).where('tenant_key', '=', tenant.key).where('seq', '=', now.seq + 1).executeTakeFirst();
    const what = `the entry lies past the head row (seq ${now.seq}): it was written behind the engine`;
    if (!past) throw new Found({ seq: now.seq + 1, kind: null, encf: null, what });
    throw await entryFault(db, { seq: now.seq + 1, kind: Number(past.kind), ecfKey: past.ecf_key === null ? null : Number(past.ecf_key), ref: past.ref }, what);
  }
  issued.seal();
  received.seal();
  return { issued, received, headSeq: head.seq };
}

async function headOf(db: Db, tenantKey: number): Promise<{ seq: number; hash: Buffer }> {
  const row = await db.selectFrom('journal_heads').select(['seq', 'hash']).where('tenant_key', '=', tenantKey).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: Buffer.from(row.hash) } : { seq: 0, hash: GENESIS };
}

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

async function verifyIssued(db: Db, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
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

async function verifyReceived(db: Db, tenant: Tenant, entries: KeyIndex, pageRows: number, headSeq: number): Promise<number> {
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

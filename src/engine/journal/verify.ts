import { sql } from 'kysely';
import type { Engine } from '../engine-types.js';
import type { Db } from '../store/database.js';
import { GENESIS, LINK_BYTES, chainHash, linkOf } from './chain.js';
import { DamagedColumnError } from '../json-column.js';
import { checkClosingSignature, closingDataOf, type ClosingData } from './closing-data.js';
import { CLOSINGS, Found, ISSUED, RECEIVED, entryFault, type AuditProblem, type Tenant } from './audit-problem.js';
import { verifyIssued, verifyReceived } from './verify-store.js';
import { ANSWERS, verifyAnswers } from './verify-answers.js';
import { KeyIndex, textKey } from './key-index.js';
import { hexStartsEqual } from './hex-text.js';
import { kindName } from './kinds.js';
import { openRowReader, type RowReader } from './row-reader.js';

/** Rows read a page at a time, in key order: memory stays flat whatever the journal's length. */
export const AUDIT_PAGE_ROWS = 5000;

export type { AuditProblem } from './audit-problem.js';

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
  const reader = await openRowReader(engine);
  try {
    for (const t of await q.orderBy('store_key').execute()) {
      const audit = await verifyTenant(engine.db, reader, { id: t.id, rnc: t.rnc, key: Number(t.store_key) }, options.pageRows ?? AUDIT_PAGE_ROWS);
      tenants.push(audit);
      options.onTenant?.(audit);
    }
  } finally {
    await reader.close();
  }
  return {
    tenants,
    entries: tenants.reduce((n, t) => n + t.entries, 0),
    seconds: (performance.now() - started) / 1000,
    broken: tenants.filter((t) => t.problem).length,
  };
}

async function verifyTenant(db: Db, reader: RowReader, tenant: Tenant, pageRows: number): Promise<TenantAudit> {
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
    const { issued, received, answers, headSeq } = await verifyChain(db, reader, tenant, pageRows, counts);
    counts.ecf = await verifyIssued(db, reader, tenant, issued, pageRows, headSeq);
    counts.received = await verifyReceived(db, reader, tenant, received, pageRows, headSeq);
    await verifyAnswers(db, tenant, answers);
    return result(null);
  } catch (e) {
    if (!(e instanceof Found)) throw e;
    return result({ tenantId: tenant.id, ...e.problem });
  }
}

// The chain's page: the columns in the order the loop below takes them, the blobs as hex text.
const chainPage = (reader: RowReader) =>
  `select seq, at, kind, ecf_key, ref, ${reader.hex('digest')}, data, ${reader.hex('link')} from journal where tenant_key = ? and seq > ? and seq <= ? order by seq limit ?`;

async function verifyChain(db: Db, reader: RowReader, tenant: Tenant, pageRows: number, counts: { entries: number; signed: number; unsigned: number }) {
  const issued = new KeyIndex();
  const received = new KeyIndex();
  const answers: number[] = [];
  // The head as it stands now is what is checked: entries appended while the check runs (ecf
  // serve may be issuing) come after it and are left for the next run.
  const head = await headOf(db, tenant.key);
  let hash = GENESIS;
  let last = 0;
  const page = chainPage(reader);
  for (;;) {
    const rows = await reader.rows(page, [tenant.key, last, head.seq, pageRows]);
    for (const row of rows) {
      const seq = row[0] as number;
      const kind = row[2] as number;
      const ecfKey = row[3] as number | null;
      const ref = row[4] as string | null;
      const digest = row[5] as string | null;
      const data = row[6] as string | null;
      const link = row[7] as string | null;
      if (seq !== last + 1) throw new Found({ seq: last + 1, kind: null, encf: null, what: `entry ${last + 1} is missing: after ${last} the next entry is ${seq}` });
      if (!kindName(kind)) throw await entryFault(db, { seq, kind, ecfKey, ref }, `kind ${kind} is not in the catalogue (journal/kinds.ts)`);
      const closing = CLOSINGS.has(kind);
      let closingData: ClosingData | null = null;
      let unreadable: DamagedColumnError | null = null;
      if (closing) {
        try {
          closingData = closingDataOf(data, seq);
        } catch (e) {
          if (!(e instanceof DamagedColumnError)) throw e;
          unreadable = e;
        }
      }
      if (closingData) {
        if (closingData.lockedHead.seq !== seq - 1 || closingData.lockedHead.hash !== hash.toString('hex')) {
          throw await entryFault(db, { seq, kind, ecfKey, ref }, `the closing locked seq ${closingData.lockedHead.seq} with hash ${closingData.lockedHead.hash}; the recomputed chain has seq ${seq - 1} with hash ${hash.toString('hex')}`);
        }
      }
      hash = chainHash(hash, tenant.key, seq, row[1] as number, kind, ecfKey, ref, digest, data);
      if (!hexStartsEqual(link, hash, LINK_BYTES)) {
        throw await entryFault(db, { seq, kind, ecfKey, ref }, `its stored link ${link?.toLowerCase() ?? 'none'} is not the recomputed ${linkOf(hash).toString('hex')}: the entry was changed (or put in another's place)`);
      }
      // Checked after the link: a closing edited in place is named as an edited entry first; one whose
      // data does not fit its schema but whose link holds is a fault of its own.
      if (unreadable) throw await entryFault(db, { seq, kind, ecfKey, ref }, `the closing's data does not read back: ${unreadable.message}`);
      if (closingData) {
        const verdict = checkClosingSignature(closingData);
        if (!verdict.ok) throw await entryFault(db, { seq, kind, ecfKey, ref }, `the closing's ${verdict.reason}`);
        counts[verdict.signed ? 'signed' : 'unsigned']++;
      }
      if (ISSUED.has(kind)) {
        if (ecfKey === null) throw await entryFault(db, { seq, kind, ecfKey, ref }, 'an e-CF entry without its e-CF');
        issued.add(ecfKey, seq, digest);
      } else if (RECEIVED.has(kind)) {
        if (ref === null) throw await entryFault(db, { seq, kind, ecfKey, ref }, 'a received e-CF entry without its id');
        received.add(textKey(ref), seq);
      } else if (ANSWERS.has(kind)) {
        answers.push(seq);
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
  return { issued, received, answers, headSeq: head.seq };
}

async function headOf(db: Db, tenantKey: number): Promise<{ seq: number; hash: Buffer }> {
  const row = await db.selectFrom('journal_heads').select(['seq', 'hash']).where('tenant_key', '=', tenantKey).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: Buffer.from(row.hash) } : { seq: 0, hash: GENESIS };
}

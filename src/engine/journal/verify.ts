import { sql } from 'kysely';
import type { Engine } from '../engine.js';
import type { Db } from '../store/database.js';
import { GENESIS, linkOf, nextHash, type ChainEntry } from './chain.js';
import { checkClosingSignature, type ClosingData } from './closing-data.js';
import { CLOSINGS, Found, ISSUED, RECEIVED, entryFault, type AuditProblem, type Tenant } from './audit-problem.js';
import { verifyIssued, verifyReceived } from './verify-store.js';
import { ANSWERS, verifyAnswers } from './verify-answers.js';
import { KeyIndex, textKey } from './key-index.js';
import { kindName } from './kinds.js';

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
    const { issued, received, answers, headSeq } = await verifyChain(db, tenant, pageRows, counts);
    counts.ecf = await verifyIssued(db, tenant, issued, pageRows, headSeq);
    counts.received = await verifyReceived(db, tenant, received, pageRows, headSeq);
    await verifyAnswers(db, tenant, answers);
    return result(null);
  } catch (e) {
    if (!(e instanceof Found)) throw e;
    return result({ tenantId: tenant.id, ...e.problem });
  }
}

async function verifyChain(db: Db, tenant: Tenant, pageRows: number, counts: { entries: number; signed: number; unsigned: number }) {
  const issued = new KeyIndex();
  const received = new KeyIndex();
  const answers: number[] = [];
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
      const entry: ChainEntry = { tenantKey: tenant.key, seq, at: Number(row.at), kind, ecfKey, ref: row.ref, digest: row.digest, data: row.data };
      if (seq !== last + 1) throw new Found({ seq: last + 1, kind: null, encf: null, what: `entry ${last + 1} is missing: after ${last} the next entry is ${seq}` });
      if (!kindName(kind)) throw await entryFault(db, entry, `kind ${kind} is not in the catalogue (journal/kinds.ts)`);
      if (CLOSINGS.has(kind)) {
        const data = JSON.parse(row.data ?? 'null') as ClosingData | null;
        if (!data?.lockedHead) throw await entryFault(db, entry, 'the closing holds no locked head');
        if (data.lockedHead.seq !== seq - 1 || data.lockedHead.hash !== hash.toString('hex')) {
          throw await entryFault(db, entry, `the closing locked seq ${data.lockedHead.seq} with hash ${data.lockedHead.hash}; the recomputed chain has seq ${seq - 1} with hash ${hash.toString('hex')}`);
        }
      }
      hash = nextHash(hash, entry);
      if (!linkOf(hash).equals(row.link)) {
        throw await entryFault(db, entry, `its stored link ${Buffer.from(row.link).toString('hex')} is not the recomputed ${linkOf(hash).toString('hex')}: the entry was changed (or put in another's place)`);
      }
      if (CLOSINGS.has(kind)) {
        // Checked after the link: a closing edited in place is named as an edited entry first.
        const verdict = checkClosingSignature(JSON.parse(row.data!) as ClosingData);
        if (!verdict.ok) throw await entryFault(db, entry, `the closing's ${verdict.reason}`);
        counts[verdict.signed ? 'signed' : 'unsigned']++;
      }
      if (ISSUED.has(kind)) {
        if (ecfKey === null) throw await entryFault(db, entry, 'an e-CF entry without its e-CF');
        issued.add(ecfKey, seq);
      } else if (RECEIVED.has(kind)) {
        if (row.ref === null) throw await entryFault(db, entry, 'a received e-CF entry without its id');
        received.add(textKey(row.ref), seq);
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

import type { Db } from '../store/database.js';
import { Found, nameOf, type Tenant } from './audit-problem.js';
import { JOURNAL_KINDS } from './kinds.js';

// The answers and annulments the journal records against the signed bytes the store keeps of them:
// a received.answered entry's digest is the SHA-256 of its ARECF (received_ecf.arecf_sha256) or of
// its ACECF (received_ecf_approvals.xml_sha256, one decision per received e-CF); an
// annulment.recorded entry's, of its ANECF (annulments.xml_sha256). Few entries beside the e-CF:
// their seqs are kept from the chain's pass and read back a thousand at a time.

export const ANSWERS = new Set<number>([JOURNAL_KINDS['received.answered'], JOURNAL_KINDS['annulment.recorded']]);
const ANNULMENT = JOURNAL_KINDS['annulment.recorded'];
const BATCH = 1000;

export async function verifyAnswers(db: Db, tenant: Tenant, seqs: readonly number[]): Promise<number> {
  for (let i = 0; i < seqs.length; i += BATCH) {
    const entries = await db.selectFrom('journal').select(['seq', 'kind', 'ref', 'digest', 'data']).where('tenant_key', '=', tenant.key).where('seq', 'in', seqs.slice(i, i + BATCH)).orderBy('seq').execute();
    const refs = [...new Set(entries.map((e) => e.ref ?? ''))];
    const arecf = new Map((await db.selectFrom('received_ecf').select(['id', 'encf', 'arecf_sha256']).where('tenant_id', '=', tenant.id).where('id', 'in', refs).execute()).map((r) => [r.id, r]));
    const acecf = new Map((await db.selectFrom('received_ecf_approvals').select(['received_ecf_id', 'xml_sha256']).where('tenant_id', '=', tenant.id).where('received_ecf_id', 'in', refs).execute()).map((r) => [r.received_ecf_id, r.xml_sha256]));
    const anecf = new Map((await db.selectFrom('annulments').select(['id', 'xml_sha256']).where('tenant_id', '=', tenant.id).where('id', 'in', refs).execute()).map((r) => [r.id, r.xml_sha256]));
    for (const e of entries) {
      const seq = Number(e.seq);
      const kind = Number(e.kind);
      const recorded = e.digest ? Buffer.from(e.digest).toString('hex') : 'none';
      const received = arecf.get(e.ref ?? '');
      const fault = (what: string) => new Found({ seq, kind: nameOf(kind), encf: kind === ANNULMENT ? null : (received?.encf ?? null), what });
      let kept: string | undefined;
      let what: string;
      if (kind === ANNULMENT) {
        kept = anecf.get(e.ref ?? '');
        what = `annulment ${e.ref}'s ANECF`;
      } else if (e.data?.startsWith('ACECF')) {
        kept = acecf.get(e.ref ?? '');
        what = `the ACECF of received e-CF ${e.ref}`;
      } else {
        // Null only in rows older than migration 0017, which predate the journal and have no such entry.
        kept = received && (received.arecf_sha256 ? Buffer.from(received.arecf_sha256).toString('hex') : 'none');
        what = `the ARECF of received e-CF ${e.ref}`;
      }
      if (kept === undefined) throw fault(`the entry records ${what}, which the store no longer holds`);
      if (kept !== recorded) throw fault(`the entry records digest ${recorded}; ${what} as stored has SHA-256 ${kept}`);
    }
  }
  return seqs.length;
}

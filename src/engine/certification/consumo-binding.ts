import type { Db } from '../store/database.js';
import type { CertificationCasesTable } from '../store/schema.js';
import { caseMessagesOf } from './case-columns.js';
import { SEQUENCE_USED_CODE } from './rules.js';

/**
 * Which signed consumo e-CF 32 the authority holds the summary of. An RFCE
 * carries the security code of one signed full e-CF 32 (NOTES §9); once the
 * authority accepts it, the portal's "Facturas de consumo < 250Mil" box takes
 * only those bytes. The RFCE counter survives an e-CF reset (CERTIFICATION.md
 * §2.7), so the accepted RFCE, and with it those bytes, outlive the
 * generation that sent them: a later import keeps them (import.ts) and
 * `ecf certify uploads` hands them out.
 */

export interface ConsumoBinding {
  /** The RFCE whose acceptance the authority keeps. */
  readonly rfce: CertificationCasesTable;
  /** The full e-CF 32 whose security code that RFCE carries: these bytes, never re-signed. */
  readonly ecf32: CertificationCasesTable;
}

/** What the authority last said of each summary, as far as the store knows. */
export type RfceStanding =
  | { readonly encf: string; readonly standing: 'accepted'; readonly binding: ConsumoBinding }
  /** Rejected, not sent, or sent without a verdict yet. */
  | { readonly encf: string; readonly standing: 'rejected' | 'unsent' | 'pending' };

/**
 * A 1209 ("already used") on an RFCE is counted as accepted by the run, but
 * the summary the authority holds is an earlier one, with another code.
 */
const repeated = (r: CertificationCasesTable) => caseMessagesOf(r.messages).some((m) => m.code === SEQUENCE_USED_CODE);

/**
 * The standing of every RFCE e-NCF of Paso 2 up to `generation`: the newest
 * generation with a verdict of its own decides (a rejection restarts the RFCE
 * counter); an acceptance is bound to the e-CF 32 of the same e-NCF whose
 * security code it carries.
 */
export async function rfceStandings(db: Db, tenantId: string, generation: number): Promise<Map<string, RfceStanding>> {
  const rows = await db
    .selectFrom('certification_cases')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('paso', '=', 2)
    .where('generation', '<=', generation)
    .where('kind', 'in', ['rfce', 'ecf32'])
    .orderBy('generation', 'desc')
    .execute();
  const out = new Map<string, RfceStanding>();
  for (const r of rows.filter((x) => x.kind === 'rfce')) {
    const known = out.get(r.encf);
    if (known && known.standing !== 'unsent' && known.standing !== 'pending') continue;
    if (r.state === 'rejected') out.set(r.encf, { encf: r.encf, standing: 'rejected' });
    else if (r.state === 'accepted' && !repeated(r)) {
      const ecf32 = rows.find((x) => x.kind === 'ecf32' && x.encf === r.encf && x.xml !== null && x.security_code === r.security_code);
      if (ecf32) out.set(r.encf, { encf: r.encf, standing: 'accepted', binding: { rfce: r, ecf32 } });
    } else if (!known && r.generation === generation) {
      out.set(r.encf, { encf: r.encf, standing: r.state === 'sending' || r.state === 'sent' ? 'pending' : 'unsent' });
    }
  }
  return out;
}

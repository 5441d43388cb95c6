import { EngineError } from '../errors.js';
import type { SigningKey } from '../signing/xmldsig.js';
import { toStoredInstant } from '../clock.js';
import { inTransaction } from '../store/database.js';
import { buildCaseDocument } from './build.js';
import type { CaseRow } from './cases.js';
import { recordPasoIn } from './state.js';
import type { RunContext } from './run-types.js';

/**
 * Builds and signs every case not yet built, in one transaction. The full
 * consumo 32s are signed before their RFCE, which carries their security
 * code. Nothing is written when any case fails its XSD (import already
 * checked, so this is a safety net).
 */
export async function prepareCases(ctx: RunContext, cases: readonly CaseRow[], key: SigningKey): Promise<void> {
  const now = ctx.engine.clock.now();
  const built = new Map<string, { xml: string; securityCode: string | null }>();
  const codes = new Map<string, string>();
  for (const c of cases) if (c.securityCode && c.kind === 'ecf32') codes.set(c.encf, c.securityCode);
  const ordered = [...cases].sort((a, b) => Number(a.kind === 'rfce') - Number(b.kind === 'rfce'));
  for (const c of ordered) {
    if (c.state !== 'imported') continue;
    const securityCode = c.kind === 'rfce' ? codes.get(c.encf) : undefined;
    if (c.kind === 'rfce' && !securityCode) {
      throw new EngineError('validation', 'Certification.RfceWithoutEcf', `RFCE row ${c.row} (${c.encf}): no type-32 row of the ECF sheet has this e-NCF, so there is no security code to put in it.`);
    }
    const doc = buildCaseDocument({ kind: c.kind, cells: c.cells, row: c.row, sheet: c.sheet }, key, now, securityCode);
    built.set(c.id, doc);
    if (c.kind === 'ecf32' && doc.securityCode) codes.set(c.encf, doc.securityCode);
  }
  const at = toStoredInstant(now);
  // Compressed before the transaction, on the thread pool.
  const documents = new Map(await Promise.all([...built].map(async ([id, doc]) => [id, await ctx.engine.documents.prepare(Buffer.from(doc.xml, 'utf8'))] as const)));
  const stored = await inTransaction(ctx.engine.db, async (tx) => {
    let count = 0;
    for (const c of cases) {
      const doc = built.get(c.id);
      if (!doc) continue;
      const document = await ctx.engine.documents.store(tx, documents.get(c.id)!);
      const r = await tx
        .updateTable('certification_cases')
        .set({ state: c.phase === 'upload' ? 'upload' : 'prepared', xml: document.blob, xml_sha256: document.sha256, security_code: doc.securityCode, updated_at: at })
        .where('id', '=', c.id)
        .where('state', '=', 'imported')
        .executeTakeFirst();
      count += Number(r.numUpdatedRows);
    }
    await recordPasoIn(tx, ctx.tenantId, ctx.paso, { state: 'in_progress', note: `${count} documents built, signed and checked against their XSD.` }, now);
    return count;
  });
  // What this run stored, not what it built: another run may have stored them first.
  ctx.emit({ type: 'prepared', count: stored });
}

// The big store the list and console benches query: one tenant whose e-CF are made by bench/ecf-rows.ts
// (each its own e-NCF, dates, amounts, buyer and signed document; notes modifying earlier invoices).
import type { Engine } from '../src/engine/engine-types.js';
import { issueEcf } from '../src/engine/ecf/issue.js';
import { addRange } from '../src/engine/sequences/ranges.js';
import { tenantKey } from '../src/engine/tenants/lookup.js';
import { payload } from './documents.js';
import { seedBenchIssuer } from './seed.js';

/** The year the rows are spread over. */
export const STORE_END = Date.parse('2026-11-01T04:00:00Z');
export const STORE_START = STORE_END - 365 * 86_400_000;

/**
 * Seeds the tenant (profile, certificate, ranges of types 31 and 32) and leaves its store empty of
 * e-CF, events and documents for the bulk load: what bench/ecf-rows.ts needs to make its rows.
 */
export async function seedStoreTenant(engine: Engine, o: { rows: number; documents: boolean }) {
  const { tenantId, rnc, key } = await seedBenchIssuer(engine, { rangeTo: 1000 });
  await addRange(engine, { tenantId, environment: 'test', type: 32, rangeFrom: 1, rangeTo: 1000, expiresOn: null });
  // One e-CF issued the engine's way interns what the first issue writes (the issuer's rows, the settings read).
  await issueEcf(engine, tenantId, { idempotencyKey: 'bench-31', payload });
  const rangeId = (await engine.db.selectFrom('sequence_ranges').select('id').where('tenant_id', '=', tenantId).where('type', '=', 31).executeTakeFirstOrThrow()).id;
  await engine.db.deleteFrom('events').execute();
  await engine.db.deleteFrom('ecf_documents').execute();
  await engine.db.deleteFrom('ecf').execute();
  const rowsOptions = { rows: o.rows, tenantId, tenantKey: await tenantKey(engine.db, tenantId), rnc, documents: o.documents, rangeId, start: STORE_START, end: STORE_END };
  return { tenantId, rnc, key, rowsOptions };
}

// The big-store bench's PostgreSQL loader (bench/bulk-load-pg.ts): rows inserted through unnest with
// the indexes and count triggers out of the way, then the indexes built again and the counts filled
// from the rows: the store ends with the indexes and triggers the engine made and the counts its
// triggers keep row by row. PostgreSQL only.
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { bulkLoadPostgres } from '../../bench/bulk-load-pg.js';
import { documentPool } from '../../bench/corpus/pool.js';
import { keepCertificates } from '../../bench/stored-documents.js';
import { openEngine } from '../../src/engine/engine.js';
import type { Engine } from '../../src/engine/engine-types.js';
import { ecfXml } from '../../src/engine/ecf/queries.js';
import { expectListTotalsByReading } from './list-totals.js';
import { addRange } from '../../src/engine/sequences/ranges.js';
import { tenantKey } from '../../src/engine/tenants/lookup.js';
import { seedTenant, STORE, testDataDir } from '../helpers.js';

const POOL = 24;
const SEED = 4242;
const ROWS = 300;
const end = Date.parse('2026-11-01T04:00:00Z');
const COUNT_TABLES = ['ecf_counts', 'ecf_day_counts', 'ecf_amount_counts', 'ecf_monthly_counts'];

/** The indexes and triggers of the loaded tables as their definitions, and whether each trigger is enabled. */
async function schemaOf(db: Kysely<any>) {
  const { rows: indexes } = await sql`select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema() order by indexname`.execute(db);
  const { rows: triggers } = await sql`select g.tgname, g.tgenabled, pg_get_triggerdef(g.oid) as def from pg_trigger g where not g.tgisinternal order by g.tgname`.execute(db);
  return { indexes, triggers };
}

const countsOf = async (db: Kysely<any>) =>
  Object.fromEntries(
    await Promise.all(
      COUNT_TABLES.map(async (t) => [t, (await sql.raw(`select * from ${t} where n <> 0`).execute(db)).rows.map((r) => JSON.stringify({ ...(r as object), tenant_id: 'the tenant' })).sort()]),
    ),
  );

async function prepared(engine: Engine) {
  const { tenant } = await seedTenant(engine);
  const range = await addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: 100, expiresOn: '2035-12-31' });
  const rows = { rows: ROWS, tenantId: tenant.id, tenantKey: await tenantKey(engine.db, tenant.id), rnc: tenant.rnc, rangeId: range.id, documents: true, start: end - 365 * 86_400_000, end, pool: documentPool(POOL, SEED) };
  return { tenantId: tenant.id, rows, certificates: await keepCertificates(engine.db, rows.pool.map((d) => d.xml)) };
}

describe.skipIf(STORE !== 'postgres')('the big-store bench loader on PostgreSQL', () => {
  it('loads without indexes and count triggers, then ends with the schema the engine made, the counts its triggers keep, and every document its own', async () => {
    const deferred = await openEngine({ dataDir: testDataDir() });
    const kept = await openEngine({ dataDir: testDataDir() });
    try {
      const engineSchema = await schemaOf(deferred.db);
      const a = await prepared(deferred);
      const during: { indexes: number; enabled: number }[] = [];
      await bulkLoadPostgres(deferred.db, { ...a, workers: 1, batch: 50 }, async () => {
        const { rows } = await sql<{ indexes: number; enabled: number }>`select
          (select count(*)::int from pg_index x where x.indrelid = 'ecf'::regclass and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid)) as indexes,
          (select count(*)::int from pg_trigger g where g.tgrelid = 'ecf'::regclass and not g.tgisinternal and g.tgenabled <> 'D' and g.tgname like '%_insert') as enabled`.execute(deferred.db);
        during.push(rows[0]!);
      });
      expect(during.length).toBeGreaterThan(1);
      expect(during.slice(0, -1).every((d) => d.indexes === 0 && d.enabled === 0), JSON.stringify(during[0])).toBe(true);
      // The same rows (the row maker is seeded) through the engine's own indexes and triggers.
      const b = await prepared(kept);
      await bulkLoadPostgres(kept.db, { ...b, workers: 1, batch: 50, deferUpkeep: false });

      expect(await schemaOf(deferred.db)).toEqual(engineSchema);
      const counts = await countsOf(deferred.db);
      for (const t of COUNT_TABLES) expect(counts[t]!.length, t).toBeGreaterThan(0);
      expect(counts).toEqual(await countsOf(kept.db));

      await expectListTotalsByReading(deferred, a.tenantId, ROWS);
      const rows = await deferred.db.selectFrom('ecf').select(['id', 'encf']).limit(20).execute();
      for (const r of rows) expect((await ecfXml(deferred, a.tenantId, r.id)).bytes.includes(r.encf), r.encf).toBe(true);
    } finally {
      await deferred.close();
      await kept.close();
    }
  });
});

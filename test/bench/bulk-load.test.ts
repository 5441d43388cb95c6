// The big-store bench's loader (bench/bulk-load.ts): documents packed on a worker thread land in
// their own row, and read back through the engine as that row's own signed bytes; batches are made
// only a few ahead of the insert, so the load's memory does not grow with the rows; the pool read
// from its file is the pool. SQLite only: the loader writes the engine's SQLite file directly.
import { describe, expect, it } from 'vitest';
import { bulkLoad } from '../../bench/bulk-load.js';
import { documentPool } from '../../bench/corpus/pool.js';
import { poolFile, poolOnDisk } from '../../bench/corpus/pool-file.js';
import { rowMaker } from '../../bench/ecf-rows.js';
import { rowBatches } from '../../bench/load-batches.js';
import { packingWorkers } from '../../bench/packing.js';
import { keepCertificates } from '../../bench/stored-documents.js';
import { openEngine } from '../../src/engine/engine.js';
import { cutCertificate } from '../../src/engine/store/documents/certificate-text.js';
import { ecfXml } from '../../src/engine/ecf/queries.js';
import { addRange } from '../../src/engine/sequences/ranges.js';
import { tenantKey } from '../../src/engine/tenants/lookup.js';
import { seedTenant, STORE, testDataDir } from '../helpers.js';

// A small pool of its own (cached in .cache/bench-pool/ like the benches' 10,000).
const POOL = 24;
const SEED = 4242;
const end = Date.parse('2026-11-01T04:00:00Z');
const rowsOf = (rows: number, o: { tenantId: string; tenantKey: number; rnc: string; rangeId: string }) => ({ rows, ...o, documents: true, start: end - 365 * 86_400_000, end });

describe.skipIf(STORE !== 'sqlite')('the big-store bench loader', () => {
  it('packs each document on a worker as the engine stores it: every e-CF reads back, through the engine, as its own signed bytes', async () => {
    const pool = documentPool(POOL, SEED);
    const dataDir = testDataDir();
    let engine = await openEngine({ dataDir });
    const { tenant } = await seedTenant(engine);
    const range = await addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: 100, expiresOn: '2035-12-31' });
    const certificates = await keepCertificates(engine.db, pool.map((d) => d.xml));
    const key = await tenantKey(engine.db, tenant.id);
    await engine.close();

    const rows = rowsOf(100, { tenantId: tenant.id, tenantKey: key, rnc: tenant.rnc, rangeId: range.id });
    const loaded = await bulkLoad({ dataDir, rows, poolFile: poolFile(POOL, SEED), certificates, workers: 1, batch: 16 });
    expect(loaded.workers).toBe(1);

    // The same rows again, made from the pool in memory: the loader's rows in insert order.
    const again = rowMaker({ ...rows, pool });
    engine = await openEngine({ dataDir });
    try {
      const ids = (await engine.db.selectFrom('ecf').select(['id', 'encf']).orderBy(engine.db.dynamic.ref('rowid')).execute()) as { id: string; encf: string }[];
      expect(ids).toHaveLength(100);
      let rfces = 0;
      for (const [i, row] of ids.entries()) {
        const expected = again(i).document;
        expect(expected.xml.includes(row.encf), `${row.encf} written into its document`).toBe(true);
        expect((await ecfXml(engine, tenant.id, row.id)).bytes.equals(expected.xml), `the XML of ${row.encf}`).toBe(true);
        if (expected.rfce_xml) {
          rfces++;
          expect((await ecfXml(engine, tenant.id, row.id, true)).bytes.equals(expected.rfce_xml), `the RFCE of ${row.encf}`).toBe(true);
        }
      }
      expect(rfces).toBeGreaterThan(0);
      // Stored compressed (the engine's layout begins with NUL), not raw.
      const blobs = await engine.db.selectFrom('ecf_documents').select(['xml']).execute();
      expect(blobs.every((b) => b.xml[0] === 0 && b.xml.length < 2_000)).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it('makes at most `depth` batches ahead of the one given to insert, and gives them back in order with their own documents', async () => {
    const pool = documentPool(POOL, SEED);
    const make = rowMaker({ ...rowsOf(100, { tenantId: 't', tenantKey: 1, rnc: '101000001', rangeId: 'r' }), pool });
    let made = 0;
    const cut = cutCertificate(pool[0]!.xml)!;
    const packing = packingWorkers([[cut.text.toString('latin1'), 1]], 0);
    const seen: number[] = [];
    for await (const b of rowBatches({ rows: 100, batch: 7, depth: 3, packing, make: (i) => (made++, make(i)) })) {
      seen.push(b.from);
      // The batch given, and at most two more made ahead of it.
      expect(made).toBeLessThanOrEqual(Math.min(100, b.from + 3 * 7));
      const ecf = b.tables.ecf!;
      const documents = b.tables.ecf_documents!;
      expect(documents.map((d) => d.ecf_key)).toEqual(ecf.map((e) => e.store_key));
      for (const d of documents) expect((d.rfce_xml === null) === (d.rfce_sha256 === null)).toBe(true);
    }
    expect(seen).toEqual(Array.from({ length: 15 }, (_, k) => 7 * k));
    await packing.close();
  });

  it('reads the pool from its file, document by document, as the bytes of the pool in memory', () => {
    const pool = documentPool(POOL, SEED);
    const onDisk = poolOnDisk(poolFile(POOL, SEED));
    try {
      expect(onDisk.documents).toHaveLength(POOL);
      for (const [i, d] of onDisk.documents.entries()) {
        const m = pool[i]!;
        expect([d.type, d.encf, d.lines]).toEqual([m.type, m.encf, m.lines]);
        expect(d.xml.equals(m.xml)).toBe(true);
        expect(d.rfce === null ? m.rfce === null : m.rfce !== null && d.rfce.equals(m.rfce)).toBe(true);
      }
    } finally {
      onDisk.close();
    }
  });
});

// The big-store bench's loader (bench/bulk-load.ts): documents packed on a worker thread land in
// their own row, and read back through the engine as that row's own signed bytes; batches are made
// only a few ahead of the insert, so the load's memory does not grow with the rows; the pool read
// from its file is the pool. SQLite only: the loader writes the engine's SQLite file directly.
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bulkLoad } from '../../bench/bulk-load.js';
import { documentPool } from '../../bench/corpus/pool.js';
import { poolFile, poolOnDisk } from '../../bench/corpus/pool-file.js';
import { rowMaker } from '../../bench/ecf-rows.js';
import { rowBatches } from '../../bench/load-batches.js';
import { packingWorkers } from '../../bench/packing.js';
import { keepCertificates, packerFor } from '../../bench/stored-documents.js';
import { DATABASE_FILE } from '../../src/engine/data-dir.js';
import { expectListTotalsByReading } from './list-totals.js';
import { compressFrameSync, DEFAULT_LEVEL } from '../../src/engine/store/documents/codec.js';
import { CURRENT_DICTIONARY_ID, dictionaryBytes } from '../../src/engine/store/documents/dictionaries.js';
import { parseBlob } from '../../src/engine/store/documents/layout.js';
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
const rowsOf = (rows: number, o: { tenantId: string; tenantKey: number; rnc: string; rangeId: string }, documents = true) => ({ rows, ...o, documents, start: end - 365 * 86_400_000, end });

/** The store's schema as text: every table, index and trigger with its SQL (their pages apart). */
const schemaOf = (file: string) => {
  const db = new SQLite(file, { readonly: true });
  try {
    return db.prepare(`select type, name, tbl_name, sql from sqlite_schema order by type, name`).all();
  } finally {
    db.close();
  }
};
const COUNT_TABLES = ['ecf_counts', 'ecf_day_counts', 'ecf_amount_counts', 'ecf_monthly_counts'];
/** Each count table's rows that count something (a row brought to 0 by a delete stays, counting nothing), the tenant's id apart. */
const countsOf = (file: string) => {
  const db = new SQLite(file, { readonly: true });
  try {
    return Object.fromEntries(COUNT_TABLES.map((t) => [t, db.prepare(`select * from ${t} where n <> 0`).all().map((r) => JSON.stringify({ ...(r as object), tenant_id: 'the tenant' })).sort()]));
  } finally {
    db.close();
  }
};

/** A migrated store with a tenant and a range, closed; the rows options of `rows` e-CF for it. */
async function preparedStore(rows: number, documents: boolean) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir });
  const { tenant } = await seedTenant(engine);
  const range = await addRange(engine, { tenantId: tenant.id, environment: 'test', type: 31, rangeFrom: 1, rangeTo: 100, expiresOn: '2035-12-31' });
  const key = await tenantKey(engine.db, tenant.id);
  await engine.close();
  return { dataDir, file: join(dataDir, DATABASE_FILE), tenantId: tenant.id, rows: rowsOf(rows, { tenantId: tenant.id, tenantKey: key, rnc: tenant.rnc, rangeId: range.id }, documents) };
}

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

  it('loads as a restore does: no secondary index or count trigger during the load, then the schema the engine made and the counts its triggers keep', async () => {
    const ROWS = 400;
    const deferred = await preparedStore(ROWS, false);
    const kept = await preparedStore(ROWS, false);
    const engineSchema = schemaOf(deferred.file);
    // Seen between two batches by a second connection (the load holds no lock between transactions).
    const during: unknown[][] = [];
    await bulkLoad({ dataDir: deferred.dataDir, rows: deferred.rows, poolFile: poolFile(POOL, SEED), certificates: null, batch: 50 }, () => {
      const db = new SQLite(deferred.file, { readonly: true });
      during.push(db.prepare(`select name from sqlite_schema where (type = 'index' and tbl_name = 'ecf' and sql is not null) or (type = 'trigger' and name like '%_insert')`).pluck().all());
      db.close();
    });
    expect(during).toHaveLength(ROWS / 50);
    expect(during.every((names) => names.length === 0), `indexes or insert triggers present during the load: ${JSON.stringify(during[0])}`).toBe(true);
    // The same rows (the row maker is seeded) through the engine's own triggers and indexes.
    await bulkLoad({ dataDir: kept.dataDir, rows: kept.rows, poolFile: poolFile(POOL, SEED), certificates: null, batch: 50, deferUpkeep: false });

    expect(schemaOf(deferred.file)).toEqual(engineSchema);
    const counts = countsOf(deferred.file);
    for (const t of COUNT_TABLES) expect(counts[t]!.length, t).toBeGreaterThan(0);
    expect(counts).toEqual(countsOf(kept.file));

    // The totals the lists give from those counts are the e-CF counted by reading them.
    const engine = await openEngine({ dataDir: deferred.dataDir });
    try {
      await expectListTotalsByReading(engine, deferred.tenantId, ROWS);
    } finally {
      await engine.close();
    }
  });

  it('compresses each document to the frame the engine\'s codec gives it, through the kept context', () => {
    const pool = documentPool(POOL, SEED);
    const cut = cutCertificate(pool[0]!.xml)!;
    const pack = packerFor([[cut.text.toString('latin1'), 7]]);
    const dictionary = dictionaryBytes(CURRENT_DICTIONARY_ID) ?? undefined;
    for (const d of pool.filter((p) => cutCertificate(p.xml)!.text.equals(cut.text))) {
      const stored = pack(d.xml);
      const blob = parseBlob(stored.blob);
      expect(blob.kind).toBe('compressed');
      expect(Buffer.from((blob as { frame: Buffer }).frame).equals(compressFrameSync(cutCertificate(d.xml)!.rest, dictionary, DEFAULT_LEVEL))).toBe(true);
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

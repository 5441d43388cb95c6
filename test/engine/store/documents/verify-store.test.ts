import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../../src/engine/engine.js';
import { inTransaction } from '../../../../src/engine/store/database.js';
import { documentStore } from '../../../../src/engine/store/documents/index.js';
import { cliFor } from '../../../cli-runner.js';
import { STORE, testDataDir } from '../../../helpers.js';
import { makeRawStore } from './raw-store.js';

const SLOW = 120_000;

/** A converted store: the raw store of raw-store.ts, compressed by `ecf store compress`. */
async function compressedStore() {
  const dataDir = testDataDir();
  const raw = await makeRawStore(dataDir, { ecf: 6 });
  const cli = cliFor(dataDir);
  expect((await cli.json(['store', 'compress'])).damagedCount).toBe(0);
  return { dataDir, raw, ...cli };
}

/** One byte of the e-CF's stored blob flipped where it lies: in the SQLite file itself, or in the PostgreSQL bytea. */
async function flipStoredByte(dataDir: string, ecfId: string) {
  const engine = await openEngine({ dataDir });
  try {
    const { xml } = await engine.db.selectFrom('ecf_documents').select('xml').where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', ecfId)).executeTakeFirstOrThrow();
    expect(xml[0]).toBe(0); // compressed
    const at = xml.length - 24;
    if (STORE === 'postgres') {
      await sql`update ecf_documents set xml = set_byte(xml, ${at}, get_byte(xml, ${at}) # 1) where ecf_key = (select store_key from ecf where id = ${ecfId})`.execute(engine.db);
      return;
    }
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(engine.db);
    await engine.close();
    const file = join(dataDir, 'ecf.sqlite');
    const bytes = readFileSync(file);
    // The blob's end codes the signature's fixed tail, which every document shares (the dictionary
    // knows it): walk back to 32 bytes of its own that the file holds once, and flip the middle one.
    const unique = (from: number) => {
      const piece = xml.subarray(from - 16, from + 16);
      const where = bytes.indexOf(piece);
      return where > 0 && bytes.indexOf(piece, where + 1) === -1 ? where + 16 : -1;
    };
    let where = -1;
    for (let from = xml.length - 24; where < 0 && from > xml.length / 2; from -= 8) where = unique(from);
    expect(where, 'a piece of the blob found once in the file').toBeGreaterThan(0);
    bytes[where] = bytes[where]! ^ 1;
    writeFileSync(file, bytes);
  } finally {
    await engine.close().catch(() => undefined);
  }
}

describe('ecf store verify', () => {
  it('a clean store verifies (exit 0, signatures too); a byte flipped on disk is reported with its e-NCF (exit 1)', async () => {
    const { dataDir, raw, ecf, json } = await compressedStore();
    const clean = await json(['store', 'verify', '--signatures']);
    expect(clean.damaged).toEqual([]);
    expect(clean.documents).toBe(raw.documents.length);
    expect(clean.signaturesChecked).toBe(raw.documents.length);
    expect((await json(['store', 'verify', '--tenant', raw.tenantId])).documents).toBe(raw.documents.length);

    const victim = raw.documents.find((d) => d.table === 'ecf_documents' && d.column === 'xml' && d.id === raw.ecfIds[3])!;
    await flipStoredByte(dataDir, victim.id);
    const found = await json(['store', 'verify'], undefined, 1);
    expect(found.damaged).toEqual([expect.objectContaining({ document: expect.objectContaining({ table: 'ecf_documents', id: victim.id, column: 'xml', encf: victim.encf }) })]);
    const text = await ecf(['store', 'verify']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`DAMAGED ecf_documents.xml ${victim.id} e-NCF ${victim.encf}`);
    expect(text.stdout).toMatch(/1 DAMAGED/);
  }, SLOW);

  it('--signatures catches a document whose digest matches but whose signature does not', async () => {
    const { dataDir, raw, json } = await compressedStore();
    const victim = raw.documents.find((d) => d.table === 'ecf_documents' && d.column === 'xml' && d.id === raw.ecfIds[2])!;
    const altered = Buffer.from(victim.bytes.toString('utf8').replace(/<MontoTotal>(\d)/, (_, d: string) => `<MontoTotal>${(Number(d) + 1) % 10}`), 'utf8');
    expect(altered.equals(victim.bytes)).toBe(false);
    const engine = await openEngine({ dataDir });
    try {
      // Stored as the store would store it, with the right digest of the altered bytes.
      const docs = documentStore();
      const prepared = await docs.prepare(altered);
      await inTransaction(engine.db, async (tx) => {
        const stored = await docs.store(tx, prepared);
        await tx.updateTable('ecf_documents').set({ xml: stored.blob, xml_sha256: stored.sha256 }).where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', victim.id)).execute();
        await tx.updateTable('ecf').set({ document_hash: createHash('sha256').update(altered).digest('hex') }).where('id', '=', victim.id).execute();
      });
    } finally {
      await engine.close();
    }
    expect((await json(['store', 'verify'])).damaged).toEqual([]);
    const checked = await json(['store', 'verify', '--signatures'], undefined, 1);
    expect(checked.damaged).toEqual([expect.objectContaining({ document: expect.objectContaining({ id: victim.id, encf: victim.encf }), reason: expect.stringContaining('signature does not verify') })]);
  }, SLOW);
});

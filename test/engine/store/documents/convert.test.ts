import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../../src/engine/engine.js';
import { getEcf } from '../../../../src/engine/ecf/queries.js';
import { cliFor } from '../../../cli-runner.js';
import { compressKilled } from './compress-killed.js';
import { testDataDir } from '../../../helpers.js';
import { makeRawStore, type RawStore } from './raw-store.js';
import { storedDocuments } from './stored-documents.js';

const SLOW = 120_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest();

/** Every document reads back as the bytes stored before the conversion, whatever state it is in now. */
async function expectAllIntact(dataDir: string, raw: RawStore) {
  const engine = await openEngine({ dataDir });
  try {
    const stored = await storedDocuments(engine, raw.documents);
    for (const [d, s] of stored) expect(s.read instanceof Error ? s.read.message : s.read.equals(d.bytes), `${d.table}.${d.column} ${d.id}`).toBe(true);
    return stored;
  } finally {
    await engine.close();
  }
}

describe('converting a raw store in place', () => {
  it('killed with SIGKILL at random points and resumed: every document byte-identical, none lost, digests filled; a damaged one reported and left alone', async () => {
    const dataDir = testDataDir();
    const raw = await makeRawStore(dataDir, { ecf: 12, damaged: true });
    // Three kills at random points, each further on (the store holds 21 documents to convert).
    for (const [from, to] of [[1, 5], [6, 11], [12, 18]] as const) {
      await compressKilled(dataDir, from + Math.floor(Math.random() * (to - from + 1)));
      await expectAllIntact(dataDir, raw);
    }
    const { ecf } = cliFor(dataDir);
    const finished = await ecf(['store', 'compress', '--json']);
    expect(finished.code, finished.stderr).toBe(1);
    const report = JSON.parse(finished.stdout);
    expect(report.finished).toBe(true);
    expect(report.damagedCount).toBe(1);
    expect(report.damaged).toEqual([expect.objectContaining({ table: 'received_ecf_approvals', id: raw.damaged!.id, column: 'xml', encf: 'E310000000777' })]);

    const stored = await expectAllIntact(dataDir, raw);
    for (const [d, s] of stored) {
      expect(s.compressed, `${d.table}.${d.column} compressed`).toBe(true);
      // The raw digest columns of migration 0017 hold the SHA-256 of the exact bytes; the other tables keep their hex one.
      if (['ecf_documents', 'certification_cases'].includes(d.table) || d.column === 'arecf_xml') expect(s.sha256?.equals(sha(d.bytes)), `${d.table}.${d.column} digest`).toBe(true);
    }
    const engine = await openEngine({ dataDir });
    try {
      const left = await engine.db.selectFrom('received_ecf_approvals').select(['xml', 'xml_sha256']).where('id', '=', raw.damaged!.id).executeTakeFirstOrThrow();
      expect(left.xml.equals(raw.damaged!.bytes)).toBe(true);
      expect(left.xml_sha256).not.toBe(sha(left.xml).toString('hex'));
      // The e-CF's hex digest gives way to the raw one (migration 0020's empty document_hash); the view still shows it.
      const rows = await engine.db.selectFrom('ecf').select(['id', 'document_hash']).execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((r) => r.document_hash)).toEqual(rows.map(() => ''));
      const tenantId = (await engine.db.selectFrom('tenants').select('id').executeTakeFirstOrThrow()).id;
      const xmlOf = new Map(raw.documents.filter((d) => d.table === 'ecf_documents' && d.column === 'xml').map((d) => [d.id, d.bytes]));
      for (const r of rows) expect((await getEcf(engine, tenantId, r.id)).documentHash).toBe(sha(xmlOf.get(r.id)!).toString('hex'));
    } finally {
      await engine.close();
    }
    // Run again: nothing left to do, the damaged document still reported.
    const again = JSON.parse((await ecf(['store', 'compress', '--json'])).stdout);
    expect(again).toMatchObject({ converted: 0, damagedCount: 1, finished: true });
  }, SLOW);
});

import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { documentDigest, nextHash, GENESIS, JOURNAL_KINDS, type ChainEntry } from '../../../src/engine/journal/index.js';
import { CARRIED_KINDS, CARRY_BATCH, carriedHash } from '../../../src/engine/store/migrations/0026-journal.js';
import { migrateTo, migrateToLatest } from '../../../src/engine/store/migrate.js';
import { readRfceXml } from '../../../src/engine/store/documents/index.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { receptionHarness } from '../reception/harness.js';
import { invoice31, seedIssuer } from '../../helpers.js';
import { wholeJournal } from './journal-tools.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest();

afterEach(() => {
  CARRY_BATCH.rows = 2000;
});

describe('the carry-over of migration 0026', () => {
  it('keeps copies of the chain formula and kind numbers that agree with journal/chain.ts and kinds.ts', () => {
    const entries: ChainEntry[] = [
      { tenantKey: 1, seq: 1, at: 1_780_000_000_123, kind: 2, ecfKey: 42, ref: null, digest: sha(Buffer.from('a')), data: null },
      { tenantKey: 1, seq: 2, at: 1_780_000_000_124, kind: 3, ecfKey: null, ref: '0190-uuid', digest: sha(Buffer.from('b')), data: 'not_received' },
      { tenantKey: 7, seq: 3, at: 0, kind: 1, ecfKey: null, ref: 'ñ "quoted"', digest: null, data: 'ecf=2 received=1' },
    ];
    let a = GENESIS;
    let b = GENESIS;
    for (const e of entries) {
      a = nextHash(a, e);
      b = carriedHash(b, e);
      expect(b).toEqual(a);
    }
    for (const [name, id] of Object.entries(CARRIED_KINDS)) expect(JOURNAL_KINDS[name as keyof typeof CARRIED_KINDS]).toBe(id);
  });

  it('carries every e-CF (store_key order) and received e-CF of each tenant, then journal.started, in batches; the chains recompute and go on', async () => {
    const h = await receptionHarness();
    const other = await seedIssuer(h.engine);
    await setSetting(h.engine, 'duplicates.mode', 'off', other.tenant.id);
    let n = 0;
    const issueFor = (tenantId: string, payload: unknown) => issueEcf(h.engine, tenantId, { idempotencyKey: `c-${++n}`, payload });
    for (let i = 0; i < 3; i++) {
      await issueFor(h.tenant.id, invoice31({ internalNumber: `A-${i}` }));
      await issueFor(other.tenant.id, invoice31({ internalNumber: `B-${i}` }));
    }
    // A consumo under 250,000: its RFCE is kept beside it.
    await issueFor(h.tenant.id, { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco', quantity: 2, unitPrice: '95.00' }] });
    await h.sendFresh();
    await h.sendFresh({ buyerRnc: '999999999' }); // not received: carried too, with its status

    const db = h.engine.db;
    const docs = await db
      .selectFrom('ecf as e')
      .innerJoin('ecf_documents as d', 'd.ecf_key', 'e.store_key')
      .select(['e.id', 'e.encf', 'e.document_hash', 'e.store_key', 'e.tenant_key', 'd.xml_sha256', 'd.rfce_sha256', 'd.rfce_xml'])
      .orderBy('e.store_key')
      .execute();
    const expected = new Map(docs.map((d) => [d.store_key, documentDigest(d.xml_sha256!, d.rfce_sha256)]));
    // Rows as older versions left them: an XML digest only in ecf.document_hash (before 0017), an RFCE stored raw without its digest.
    const [old] = docs;
    await db.updateTable('ecf').set({ document_hash: old!.xml_sha256!.toString('hex') }).where('store_key', '=', old!.store_key).execute();
    await db.updateTable('ecf_documents').set({ xml_sha256: null }).where('ecf_key', '=', old!.store_key).execute();
    const consumo = docs.find((d) => d.rfce_xml !== null)!;
    const rawRfce = (await readRfceXml(h.engine.documents, db, { id: consumo.id, encf: consumo.encf, rfce_xml: consumo.rfce_xml, rfce_sha256: consumo.rfce_sha256 }))!;
    await db.updateTable('ecf_documents').set({ rfce_xml: rawRfce, rfce_sha256: null }).where('ecf_key', '=', consumo.store_key).execute();
    expect(expected.get(consumo.store_key)).toEqual(documentDigest(consumo.xml_sha256!, sha(rawRfce)));

    // The store as it was before 0026, then migrated, two rows per batch.
    await migrateTo(db, '0025-search-counts');
    CARRY_BATCH.rows = 2;
    await migrateToLatest(db);

    const received = await db.selectFrom('received_ecf').select(['id', 'tenant_id', 'xml_sha256', 'status']).orderBy('id').execute();
    for (const tenantId of [h.tenant.id, other.tenant.id]) {
      const key = await tenantKey(db, tenantId);
      const mine = docs.filter((d) => d.tenant_key === key);
      const theirs = received.filter((r) => r.tenant_id === tenantId);
      const entries = await wholeJournal(h.engine, tenantId);
      expect(entries.map(({ kind, ecfKey, ref, digest, data }) => ({ kind, ecfKey, ref, digest, data }))).toEqual([
        ...mine.map((d) => ({ kind: 'ecf.carried', ecfKey: d.store_key, ref: null, digest: expected.get(d.store_key)!.toString('hex'), data: null })),
        ...theirs.map((r) => ({ kind: 'received.carried', ecfKey: null, ref: r.id, digest: r.xml_sha256, data: r.status })),
        { kind: 'journal.started', ecfKey: null, ref: null, digest: null, data: `ecf=${mine.length} received=${theirs.length}` },
      ]);
    }
    expect(received.map((r) => r.status).sort()).toEqual(['not_received', 'received']);

    // The journal goes on from the carried head.
    await issueFor(other.tenant.id, invoice31({ internalNumber: 'B-after' }));
    const after = await wholeJournal(h.engine, other.tenant.id);
    expect(after.at(-1)).toMatchObject({ kind: 'ecf.issued', seq: after.length });
  });
});

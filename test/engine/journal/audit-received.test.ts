import { describe, expect, it } from 'vitest';
import { JOURNAL_KINDS, verifyAudit } from '../../../src/engine/journal/index.js';
import { decideCommercialApproval } from '../../../src/engine/reception/approve.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { receptionHarness } from '../reception/harness.js';
import { entryCount, rawStore, refSeqs, removeEntries } from './audit-helpers.js';

const STORED = JOURNAL_KINDS['received.stored'];
const ANSWERED = JOURNAL_KINDS['received.answered'];

/**
 * Three e-CF sent to the tenant by the sandbox's taxpayer and received through the real reception
 * path (reception/receive.ts), which keeps each with its received.stored and received.answered
 * (ARECF) entries; and a second connection to the store.
 */
async function setup() {
  const h = await receptionHarness();
  for (let i = 0; i < 3; i++) await h.sendFresh();
  const key = await tenantKey(h.engine.db, h.tenant.id);
  const received = await h.engine.db.selectFrom('received_ecf').select(['id', 'encf']).where('tenant_id', '=', h.tenant.id).execute();
  const raw = await rawStore(h.engine);
  const storedSeq = async (id: string) => (await refSeqs(raw, key, id, [STORED]))[0]!;
  const audit = async () => (await verifyAudit(h.engine, { tenantId: h.tenant.id, pageRows: 2 })).tenants[0]!;
  return { ...h, key, received, raw, storedSeq, audit };
}

describe('ecf audit verify and received e-CF', () => {
  it('passes when each received e-CF has its one entry with its digest, and each answer (ARECF, ACECF) its digest', async () => {
    const { audit, raw, key, received, engine, tenant } = await setup();
    try {
      expect(received).toHaveLength(3);
      await decideCommercialApproval(engine, tenant.id, received[0]!.id, { decision: 'accepted' });
      expect(await audit()).toMatchObject({ problem: null, entries: await entryCount(raw, key), received: 3 });
    } finally {
      await raw.close();
    }
  });

  it('names the entry of a received e-CF row that was deleted, and a received e-CF without its entry', async () => {
    const { audit, raw, key, received, storedSeq } = await setup();
    try {
      const [, gone, kept] = received.sort((a, b) => a.id.localeCompare(b.id));
      await raw.run('delete from received_ecf where id = ?', [gone!.id]);
      expect((await audit()).problem).toMatchObject({ seq: await storedSeq(gone!.id), kind: 'received.stored', what: `the entry records received e-CF ${gone!.id}, which the store no longer holds` });
      // Its entries gone too (the chain rewritten over the gap): nothing left to name.
      await removeEntries(raw, key, await refSeqs(raw, key, gone!.id, [STORED, ANSWERED]));
      expect((await audit()).problem).toBeNull();
      await removeEntries(raw, key, [await storedSeq(kept!.id)]);
      expect((await audit()).problem).toMatchObject({ seq: null, encf: kept!.encf, what: `the received e-CF ${kept!.id} has no received.stored or received.carried entry in the journal` });
    } finally {
      await raw.close();
    }
  });

  it('names a received e-CF whose stored digest no longer matches its entry', async () => {
    const { audit, raw, received, storedSeq } = await setup();
    try {
      const [first] = received;
      await raw.run('update received_ecf set xml_sha256 = ? where id = ?', ['00'.repeat(32), first!.id]);
      expect((await audit()).problem).toMatchObject({ seq: await storedSeq(first!.id), kind: 'received.stored', encf: first!.encf, what: expect.stringContaining("the stored bytes' SHA-256 is 0000") });
    } finally {
      await raw.close();
    }
  });

  it("names an answer whose stored signed bytes' digest no longer matches its received.answered entry: the ARECF, then the ACECF", async () => {
    const { audit, raw, key, received, engine, tenant } = await setup();
    try {
      const [first, second] = received;
      await decideCommercialApproval(engine, tenant.id, second!.id, { decision: 'rejected', rejectionReason: 'Mercancía dañada' });
      const [arecf] = await refSeqs(raw, key, first!.id, [ANSWERED]);
      const [kept] = await raw.rows<{ arecf_sha256: Buffer }>('select arecf_sha256 from received_ecf where id = ?', [first!.id]);
      await raw.run('update received_ecf set arecf_sha256 = ? where id = ?', [Buffer.alloc(32), first!.id]);
      expect((await audit()).problem).toMatchObject({ seq: arecf, kind: 'received.answered', encf: first!.encf, what: expect.stringContaining(`the ARECF of received e-CF ${first!.id} as stored has SHA-256 0000`) });
      await raw.run('update received_ecf set arecf_sha256 = ? where id = ?', [kept!.arecf_sha256, first!.id]);
      expect((await audit()).problem).toBeNull();
      const [, acecf] = await refSeqs(raw, key, second!.id, [ANSWERED]);
      await raw.run('update received_ecf_approvals set xml_sha256 = ? where received_ecf_id = ?', ['00'.repeat(32), second!.id]);
      expect((await audit()).problem).toMatchObject({ seq: acecf, kind: 'received.answered', encf: second!.encf, what: expect.stringContaining(`the ACECF of received e-CF ${second!.id} as stored has SHA-256 0000`) });
      await raw.run('delete from received_ecf_approvals where received_ecf_id = ?', [second!.id]);
      expect((await audit()).problem).toMatchObject({ seq: acecf, what: `the entry records the ACECF of received e-CF ${second!.id}, which the store no longer holds` });
    } finally {
      await raw.close();
    }
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { verifyAudit } from '../../../src/engine/journal/index.js';
import { verifyStore } from '../../../src/engine/store/document-upkeep.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { entryCount, issuedSeq, rawStore, removeEntries, rewriteChain, type Raw } from './audit-helpers.js';

/**
 * A tenant with five e-CF issued one after another (e-NCF E310000000001–5) after the entries of its
 * making (tenant.created, its certificate, its keys), and a second connection to its store. The
 * tests name an entry by what it records (`seq(encf)`: the e-CF's ecf.issued entry), never by a
 * number that holds only for one set of kinds.
 */
async function setup() {
  const engine = await testEngine();
  const { tenant } = await seedIssuer(engine);
  for (let i = 1; i <= 5; i++) await issueEcf(engine, tenant.id, { idempotencyKey: `t-${i}`, payload: invoice31({ internalNumber: `T-${i}` }) });
  const key = await tenantKey(engine.db, tenant.id);
  const raw = await rawStore(engine);
  const audit = async () => (await verifyAudit(engine, { tenantId: tenant.id, pageRows: 2 })).tenants[0]!;
  const run = async (fn: (raw: Raw) => Promise<void>) => {
    try {
      await fn(raw);
    } finally {
      await raw.close();
    }
  };
  const seq = (encf: string) => issuedSeq(raw, key, encf);
  return { engine, tenant, key, raw, audit, run, seq };
}

describe('ecf audit verify against a store changed behind the engine', () => {
  it('passes a clean store, page after page', async () => {
    const { audit, run, key } = await setup();
    await run(async (raw) => {
      const t = await audit();
      expect(t.problem).toBeNull();
      expect(t).toMatchObject({ entries: await entryCount(raw, key), ecf: 5 });
    });
  });

  it('passes a store that is issuing while it verifies', async () => {
    const { engine, tenant, run, key } = await setup();
    await run(async (raw) => {
      const issuing = Promise.all(Array.from({ length: 12 }, (_, i) => issueEcf(engine, tenant.id, { idempotencyKey: `w-${i}`, payload: invoice31({ internalNumber: `W-${i}` }) })));
      const report = await verifyAudit(engine, { tenantId: tenant.id, pageRows: 1 });
      await issuing;
      expect(report.tenants[0]!.problem).toBeNull();
      expect((await verifyAudit(engine, { tenantId: tenant.id })).tenants[0]).toMatchObject({ problem: null, entries: await entryCount(raw, key), ecf: 17 });
    });
  });

  it('passes e-CF that share one issued_at or were issued out of store-key order, page after page (the e-CF are read in issued_at order)', async () => {
    const { audit, run, key } = await setup();
    await run(async (raw) => {
      await raw.run('update ecf set issued_at = ? where tenant_key = ?', [1_700_000_000_000, key]);
      expect(await audit()).toMatchObject({ problem: null, ecf: 5 });
      await raw.run('update ecf set issued_at = ? - store_key where tenant_key = ?', [1_700_000_000_000, key]);
      expect(await audit()).toMatchObject({ problem: null, ecf: 5 });
    });
  });

  it("names an e-CF whose stored digest differs from its entry's only in the last byte", async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const second = await seq('E310000000002');
      const [row] = await raw.rows<{ store_key: number | string; xml_sha256: Buffer }>("select e.store_key, d.xml_sha256 from ecf e join ecf_documents d on d.ecf_key = e.store_key where e.tenant_key = ? and e.encf = 'E310000000002'", [key]);
      const changed = Buffer.from(row!.xml_sha256);
      changed[31] = changed[31]! ^ 1;
      await raw.run('update ecf_documents set xml_sha256 = ? where ecf_key = ?', [changed, Number(row!.store_key)]);
      expect((await audit()).problem).toMatchObject({ seq: second, kind: 'ecf.issued', encf: 'E310000000002', what: expect.stringContaining(`the stored documents give ${changed.toString('hex')}`) });
    });
  });

  it('names an edited entry', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const third = await seq('E310000000003');
      await raw.run('update journal set at = at + 1 where tenant_key = ? and seq = ?', [key, third]);
      expect((await audit()).problem).toMatchObject({ seq: third, kind: 'ecf.issued', encf: 'E310000000003', what: expect.stringContaining('stored link') });
    });
  });

  it('names an entry whose digest was changed, and, once the chain is rewritten over it, the e-CF whose documents it no longer matches', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const second = await seq('E310000000002');
      await raw.run('update journal set digest = ? where tenant_key = ? and seq = ?', [randomBytes(32), key, second]);
      expect((await audit()).problem).toMatchObject({ seq: second, kind: 'ecf.issued', encf: 'E310000000002', what: expect.stringContaining('stored link') });
      await rewriteChain(raw, key);
      expect((await audit()).problem).toMatchObject({ seq: second, kind: 'ecf.issued', encf: 'E310000000002', what: expect.stringContaining('the stored documents give') });
    });
  });

  it('names a deleted entry', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const fourth = await seq('E310000000004');
      await raw.run('delete from journal where tenant_key = ? and seq = ?', [key, fourth]);
      expect((await audit()).problem).toMatchObject({ seq: fourth, what: `entry ${fourth} is missing: after ${fourth - 1} the next entry is ${fourth + 1}` });
    });
  });

  it('names an inserted entry', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      // The entries from E310000000004's on move up one, and a copy of E310000000002's (with its link) takes its place.
      const [second, fourth] = [await seq('E310000000002'), await seq('E310000000004')];
      await raw.run('update journal set seq = seq + 1000000 where tenant_key = ? and seq >= ?', [key, fourth]);
      await raw.run('update journal set seq = seq - 999999 where tenant_key = ? and seq >= 1000000', [key]);
      await raw.run('insert into journal (tenant_key, seq, at, kind, ecf_key, ref, digest, data, link) select tenant_key, ?, at, kind, ecf_key, ref, digest, data, link from journal where tenant_key = ? and seq = ?', [fourth, key, second]);
      expect((await audit()).problem).toMatchObject({ seq: fourth, kind: 'ecf.issued', encf: 'E310000000002', what: expect.stringContaining('stored link') });
    });
  });

  it('names an entry appended past the head', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const head = await entryCount(raw, key);
      await raw.run('insert into journal (tenant_key, seq, at, kind, ecf_key, ref, digest, data, link) select tenant_key, ?, at, kind, ecf_key, ref, digest, data, link from journal where tenant_key = ? and seq = ?', [head + 1, key, await seq('E310000000005')]);
      expect((await audit()).problem).toMatchObject({ seq: head + 1, kind: 'ecf.issued', encf: 'E310000000005', what: `the entry lies past the head row (seq ${head}): it was written behind the engine` });
    });
  });

  it('names two swapped entries', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const [second, third] = [await seq('E310000000002'), await seq('E310000000003')];
      await raw.run('update journal set seq = 1000000 where tenant_key = ? and seq = ?', [key, second]);
      await raw.run('update journal set seq = ? where tenant_key = ? and seq = ?', [second, key, third]);
      await raw.run('update journal set seq = ? where tenant_key = ? and seq = 1000000', [third, key]);
      expect((await audit()).problem).toMatchObject({ seq: second, kind: 'ecf.issued', encf: 'E310000000003' });
    });
  });

  it('names the entry of a deleted e-CF row', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      const second = await seq('E310000000002');
      const [gone] = await raw.rows<{ store_key: number }>("select store_key from ecf where tenant_key = ? and encf = 'E310000000002'", [key]);
      await raw.run('delete from ecf_documents where ecf_key = ?', [gone!.store_key]);
      await raw.run('delete from ecf where store_key = ?', [gone!.store_key]);
      expect((await audit()).problem).toMatchObject({ seq: second, kind: 'ecf.issued', what: `the entry records e-CF store key ${gone!.store_key}, which the store no longer holds` });
    });
  });

  it('names an e-CF the journal does not record', async () => {
    const { audit, run, key, seq } = await setup();
    await run(async (raw) => {
      await removeEntries(raw, key, [await seq('E310000000005')]);
      expect((await audit()).problem).toMatchObject({ seq: null, encf: 'E310000000005', what: 'the e-CF has no ecf.issued or ecf.carried entry in the journal' });
    });
  });

  it('leaves changed document bytes to ecf store verify, which names them', async () => {
    const { engine, audit, run, key, tenant } = await setup();
    await run(async (raw) => {
      const [row] = await raw.rows<{ store_key: number }>("select store_key from ecf where tenant_key = ? and encf = 'E310000000003'", [key]);
      await raw.run('update ecf_documents set xml = ? where ecf_key = ?', [randomBytes(400), row!.store_key]);
      expect((await audit()).problem).toBeNull();
      const report = await verifyStore(engine, { tenantId: tenant.id });
      expect(report.damaged).toHaveLength(1);
      expect(report.damaged[0]!.document).toMatchObject({ table: 'ecf_documents', encf: 'E310000000003' });
    });
  });

  it("names an annulment whose stored ANECF's digest no longer matches its annulment.recorded entry, or that is gone", async () => {
    const { engine, tenant, audit, run, key } = await setup();
    await run(async (raw) => {
      const annulment = await annulSequences(engine, tenant.id, { environment: 'test', reason: 'Talonario dañado', lines: [{ type: 31, series: 'E', rangeFrom: 50, rangeTo: 60 }] });
      expect((await audit()).problem).toBeNull();
      const [entry] = await raw.rows<{ seq: number | string }>('select seq from journal where tenant_key = ? and kind = 6 and ref = ?', [key, annulment.id]);
      await raw.run('update annulments set xml_sha256 = ? where id = ?', ['00'.repeat(32), annulment.id]);
      expect((await audit()).problem).toMatchObject({ seq: Number(entry!.seq), kind: 'annulment.recorded', encf: null, what: expect.stringContaining(`annulment ${annulment.id}'s ANECF as stored has SHA-256 0000`) });
    });
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appendJournal, verifyAudit } from '../../../src/engine/journal/index.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { seedTenant, testEngine } from '../../helpers.js';
import { rawStore, rewriteChain } from './audit-helpers.js';

/**
 * Received e-CF kept with their received.stored entries, written as reception writes them (its
 * hook is helper A's): the row and the entry in one transaction, the entry's digest the SHA-256
 * of the bytes as they arrived.
 */
async function setup() {
  const engine = await testEngine();
  const { tenant } = await seedTenant(engine);
  const key = await tenantKey(engine.db, tenant.id);
  const ids: string[] = [];
  for (let i = 1; i <= 3; i++) {
    const xml = Buffer.from(`<ECF><Encabezado><IdDoc><eNCF>E31000000000${i}</eNCF></IdDoc></Encabezado></ECF>`);
    const id = randomUUID();
    ids.push(id);
    await inTransaction(engine.db, async (tx) => {
      await tx
        .insertInto('received_ecf')
        .values({ id, tenant_id: tenant.id, environment: 'test', status: 'received', issuer_rnc: '101010101', encf: `E31000000000${i}`, xml, xml_sha256: createHash('sha256').update(xml).digest('hex'), arecf_xml: Buffer.from('<ARECF/>'), received_at: engine.clock.now().toISOString() } as never)
        .execute();
      appendJournal(tx, engine.clock.now(), { tenantKey: key, kind: 'received.stored', ref: id, digest: createHash('sha256').update(xml).digest() });
    });
  }
  return { engine, tenant, key, ids, audit: async () => (await verifyAudit(engine, { tenantId: tenant.id, pageRows: 2 })).tenants[0]! };
}

describe('ecf audit verify and received e-CF', () => {
  it('passes when each received e-CF has its one entry with its digest', async () => {
    const { audit } = await setup();
    expect(await audit()).toMatchObject({ problem: null, entries: 3, received: 3 });
  });

  it('names the entry of a received e-CF row that was deleted, and a received e-CF without its entry', async () => {
    const { engine, audit, ids, key } = await setup();
    const raw = await rawStore(engine);
    try {
      await raw.run('delete from received_ecf where id = ?', [ids[1]]);
      expect((await audit()).problem).toMatchObject({ seq: 2, kind: 'received.stored', what: `the entry records received e-CF ${ids[1]}, which the store no longer holds` });
      await raw.run('delete from journal where tenant_key = ? and seq = 2', [key]);
      await raw.run('update journal set seq = 2 where tenant_key = ? and seq = 3', [key]);
      await rewriteChain(raw, key);
      expect((await audit()).problem).toBeNull();
      await raw.run('delete from journal where tenant_key = ? and seq = 2', [key]);
      await rewriteChain(raw, key);
      expect((await audit()).problem).toMatchObject({ seq: null, encf: 'E310000000003', what: `the received e-CF ${ids[2]} has no received.stored or received.carried entry in the journal` });
    } finally {
      await raw.close();
    }
  });

  it('names a received e-CF whose stored digest no longer matches its entry', async () => {
    const { engine, audit, ids } = await setup();
    const raw = await rawStore(engine);
    try {
      await raw.run('update received_ecf set xml_sha256 = ? where id = ?', ['00'.repeat(32), ids[0]]);
      expect((await audit()).problem).toMatchObject({ seq: 1, kind: 'received.stored', encf: 'E310000000001', what: expect.stringContaining("the stored bytes' SHA-256 is 0000") });
    } finally {
      await raw.close();
    }
  });
});

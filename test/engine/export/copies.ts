import { dominicanMonth } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { newId } from '../../../src/engine/ids.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { invoice31, seedIssuer, testDataDir } from '../../helpers.js';

/** A tenant with `copies` more e-CF (row and documents copied from one issued now, each its own e-NCF): enough that an export takes a while. */
export async function storeWith(copies: number) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir });
  try {
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'x-0', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    const documents = await engine.db.selectFrom('ecf_documents').selectAll().where('ecf_key', '=', template.store_key).executeTakeFirstOrThrow();
    for (let done = 0; done < copies; done += 250) {
      await inTransaction(engine.db, async (tx) => {
        const batch = Array.from({ length: Math.min(250, copies - done) }, (_, j) => done + j);
        const keys = await tx
          .insertInto('ecf')
          .values(batch.map((i) => ({ ...template, store_key: undefined, id: newId(), encf: `E31${String(5000 + i).padStart(10, '0')}`, idempotency_key: `copy-${i}`, internal_number: null })) as never)
          .returning('store_key')
          .execute();
        await tx.insertInto('ecf_documents').values(keys.map((k) => ({ ...documents, ecf_key: k.store_key }))).execute();
      });
    }
    return { dataDir, tenantId: tenant.id, month: dominicanMonth(new Date(template.issued_at)) };
  } finally {
    await engine.close();
  }
}

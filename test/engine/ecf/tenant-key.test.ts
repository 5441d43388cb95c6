import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ecfXml, findEcf, getEcf, listEcf } from '../../../src/engine/ecf/queries.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { NO_TENANT_KEY, tenantKey } from '../../../src/engine/tenants/lookup.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import { invoice31, nextRnc, seedIssuer, testEngine } from '../../helpers.js';

// `ecf` carries the tenant's small store key instead of its id (migration 0021): every query finds
// the key from the id, so two tenants must never see each other's e-CF through it.
describe('the tenant key of ecf', () => {
  it("keeps two tenants' e-CF apart: rows, list, get, search and counts", async () => {
    const engine = await testEngine();
    const a = (await seedIssuer(engine)).tenant;
    const b = (await seedIssuer(engine)).tenant;
    const buyer = { rnc: '101010101', name: 'Ferretería Ñoño SRL' };
    const mine = [
      (await issueEcf(engine, a.id, { idempotencyKey: 'k1', payload: invoice31({ buyer }) })).ecf,
      (await issueEcf(engine, a.id, { idempotencyKey: 'k2', payload: invoice31({ buyer }) })).ecf,
    ];
    // The same idempotency key, e-NCF and buyer as the other tenant's first.
    const theirs = (await issueEcf(engine, b.id, { idempotencyKey: 'k1', payload: invoice31({ buyer }) })).ecf;
    expect(theirs.encf).toBe(mine[0]!.encf);
    expect(theirs.id).not.toBe(mine[0]!.id);

    const keyA = await tenantKey(engine.db, a.id);
    const keyB = await tenantKey(engine.db, b.id);
    expect(keyA).not.toBe(keyB);
    const stored = await engine.db.selectFrom('tenants').select(['id', 'store_key']).where('id', 'in', [a.id, b.id]).execute();
    expect(new Map(stored.map((t) => [t.id, Number(t.store_key)]))).toEqual(new Map([[a.id, keyA], [b.id, keyB]]));
    const rows = await engine.db.selectFrom('ecf').select(['id', 'tenant_key']).execute();
    expect(new Map(rows.map((r) => [r.id, Number(r.tenant_key)]))).toEqual(new Map([[mine[0]!.id, keyA], [mine[1]!.id, keyA], [theirs.id, keyB]]));

    const ids = async (tenantId: string, query: Record<string, unknown>) => {
      const page = await listEcf(engine, tenantId, query);
      return { total: page.totalCount, ids: page.items.map((e) => e.id).sort() };
    };
    const mineIds = mine.map((e) => e.id).sort();
    for (const query of [{}, { Type: 31 }, { Status: 'signed' }, { Environment: 'test' }, { Search: 'E31' }, { Search: 'ferre' }, { Search: '1010' }, { MinAmount: '1' }, { From: '2026-03-01', To: '2026-03-31' }]) {
      expect(await ids(a.id, query), JSON.stringify(query)).toEqual({ total: 2, ids: mineIds });
      expect(await ids(b.id, query), JSON.stringify(query)).toEqual({ total: 1, ids: [theirs.id] });
    }
    await expect(getEcf(engine, b.id, mine[0]!.id)).rejects.toMatchObject({ code: 'Ecf.NotFound' });
    await expect(ecfXml(engine, b.id, mine[1]!.id)).rejects.toMatchObject({ code: 'Ecf.NotFound' });
    expect((await getEcf(engine, a.id, mine[0]!.id)).id).toBe(mine[0]!.id);
    expect((await findEcf(engine, b.id, mine[0]!.encf)).id).toBe(theirs.id);
    // The counts the list reads (kept per tenant by triggers) follow the key to the right tenant.
    const counts = await engine.db.selectFrom('ecf_counts').select(['tenant_id', 'n']).where('tenant_id', 'in', [a.id, b.id]).execute();
    expect(new Map(counts.map((c) => [c.tenant_id, Number(c.n)]))).toEqual(new Map([[a.id, 2], [b.id, 1]]));

    // A tenant that does not exist matches nothing.
    const nobody = '01900000-0000-7000-8000-000000000000';
    expect(await tenantKey(engine.db, nobody)).toBe(NO_TENANT_KEY);
    expect((await listEcf(engine, nobody, {})).totalCount).toBe(0);
  });

  it('gives each new tenant the next key, once, and remembers a key read in a transaction only if it commits', async () => {
    const engine = await testEngine();
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await createTenant(engine, { rnc: nextRnc(), legalName: `Tienda ${i} SRL` }));
    const keys = await Promise.all(created.map((t) => tenantKey(engine.db, t.id)));
    expect(keys.slice(1).map((k, i) => k - keys[i]!)).toEqual([1, 1]);

    const id = '01900000-0000-7000-8000-0000000000aa';
    await expect(
      inTransaction(engine.db, async (tx) => {
        await tx.insertInto('tenants').values({ id, organization_id: null, rnc: nextRnc(), legal_name: 'Fugaz SRL', trade_name: null, default_environment: 'test', created_at: '2026-03-10T14:00:00.000Z', updated_at: null, store_key: keys[2]! + 1 }).execute();
        expect(await tenantKey(tx, id)).toBe(keys[2]! + 1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await tenantKey(engine.db, id)).toBe(NO_TENANT_KEY);
    // The next tenant takes the key the rolled-back one had held in its transaction: it was never stored.
    const next = await createTenant(engine, { rnc: nextRnc(), legalName: 'Siguiente SRL' });
    expect(await tenantKey(engine.db, next.id)).toBe(keys[2]! + 1);
  });

  it('gives tenants created at the same moment distinct keys', async () => {
    const engine = await testEngine();
    const created = await Promise.all(Array.from({ length: 8 }, (_, i) => createTenant(engine, { rnc: nextRnc(), legalName: `A la vez ${i} SRL` })));
    const keys = await Promise.all(created.map((t) => tenantKey(engine.db, t.id)));
    expect(new Set(keys).size).toBe(8);
  });
});

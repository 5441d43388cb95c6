import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { runExportHandler } from '../../../src/engine/export/jobs.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { conversionPending } from '../../../src/engine/store/documents/convert.js';
import { listAttempts, recordAttempt } from '../../../src/engine/submission/attempts.js';
import { contingencyState } from '../../../src/engine/submission/contingency.js';
import { readStatusSnapshot } from '../../../src/engine/taxauth/authority-status.js';
import { STATUS_KEY_STATE, STATUS_SNAPSHOT_STATE, statusKeyInfo } from '../../../src/engine/taxauth/status-key.js';
import { enqueue, pendingWork } from '../../../src/engine/work/queue.js';
import { invoice31, seedIssuer, seedTenant, testEngine } from '../../helpers.js';
import { emitEvent } from '../webhooks/harness.js';
import { damaged, expectNames } from './damaged-column.js';
import { deliverApprovalHandler } from '../../../src/engine/reception/deliver.js';
import { sendingStateOf } from '../../../src/engine/submission/sending.js';

/** Writes a platform_state row as a damaged store (or another program) would leave it. */
async function putState(engine: Engine, key: string, value: string): Promise<void> {
  const updated_at = engine.clock.now().toISOString();
  await engine.db
    .insertInto('platform_state')
    .values({ key, value, updated_at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at }))
    .execute();
}

describe('JSON columns of submission, the platform state, events and work are read through their schema', () => {
  it("an attempt's messages read back, and name ecf_attempts.messages, the e-CF and the attempt when damaged", async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const { ecf } = await issueEcf(engine, tenant.id, { idempotencyKey: 'attempt-messages', payload: invoice31() });
    await inTransaction(engine.db, (tx) => recordAttempt(tx, engine.clock.now(), { ecfId: ecf.id, outcome: 'rejected', statusCode: 2, messages: [{ code: 145, value: 'RNC comprador' }] }));
    expect((await listAttempts(engine, tenant.id, ecf.id))[0]!.messages).toEqual([{ code: 145, value: 'RNC comprador' }]);
    const { store_key } = await engine.db.selectFrom('ecf').select('store_key').where('id', '=', ecf.id).executeTakeFirstOrThrow();

    await engine.db.updateTable('ecf_attempts').set({ messages: '[{"code":"145","value":"RNC comprador"}]' }).where('ecf_key', '=', store_key).execute();
    expectNames(await damaged(() => listAttempts(engine, tenant.id, ecf.id)), `ecf_attempts.messages of e-CF ${ecf.id}, attempt 1`, '[0].code');
    await engine.db.updateTable('ecf_attempts').set({ messages: 'RNC comprador' }).where('ecf_key', '=', store_key).execute();
    expectNames(await damaged(() => listAttempts(engine, tenant.id, ecf.id)), `ecf_attempts.messages of e-CF ${ecf.id}, attempt 1`, 'not JSON');
  });

  it('the contingency state with an unknown source names platform_state.value of contingency', async () => {
    const engine = await testEngine();
    await putState(engine, 'contingency', '{"active":true,"source":"manual","changedAt":"2026-03-10T14:00:00.000Z","failingSince":null}');
    expect(await contingencyState(engine.db)).toMatchObject({ active: true, source: 'manual' });

    const other = await testEngine();
    await putState(other, 'contingency', '{"active":"yes","source":"operator","changedAt":null,"failingSince":null}');
    expectNames(await damaged(() => contingencyState(other.db)), 'platform_state.value of contingency', 'active');
  });

  it("the status key's record with a store the appliance does not know names its platform_state row", async () => {
    const engine = await testEngine();
    await putState(engine, STATUS_KEY_STATE, '{"store":"file","ref":"taxauth/status-api-key","setAt":"2026-03-10T14:00:00.000Z","hint":"…a1b2"}');
    expect(await statusKeyInfo(engine)).toEqual({ configured: true, store: 'file', setAt: '2026-03-10T14:00:00.000Z', hint: '…a1b2' });

    await putState(engine, STATUS_KEY_STATE, '{"store":"vault","ref":"taxauth/status-api-key","setAt":"2026-03-10T14:00:00.000Z","hint":"…a1b2"}');
    expectNames(await damaged(() => statusKeyInfo(engine)), `platform_state.value of ${STATUS_KEY_STATE}`, 'store');
  });

  it("the authority's status snapshot is a cache: one that does not fit its schema reads as none, to be asked again", async () => {
    const engine = await testEngine();
    const snapshot = {
      v: 1, checkedAt: '2026-03-10T14:00:00.000Z', url: 'https://status.example/', problems: [], error: null,
      services: [{ service: 'Recepción', status: 'Disponible', environment: 'test', available: true }],
      windows: [{ environment: null, ambiente: 'Todos', startsAt: '2026-03-11T13:00:00.000Z', endsAt: '2026-03-11T16:00:00.000Z' }],
      environments: { test: { status: 'Disponible', available: true }, cert: null, production: null },
    };
    await putState(engine, STATUS_SNAPSHOT_STATE, JSON.stringify(snapshot));
    expect(await readStatusSnapshot(engine)).toEqual(snapshot);

    for (const bad of [{ ...snapshot, windows: [{ environment: 'staging', ambiente: 'x', startsAt: 'a', endsAt: 'b' }] }, { ...snapshot, v: 2 }, { ...snapshot, environments: {} }]) {
      await putState(engine, STATUS_SNAPSHOT_STATE, JSON.stringify(bad));
      expect(await readStatusSnapshot(engine)).toBeNull();
    }
    await putState(engine, STATUS_SNAPSHOT_STATE, '{"v":1,');
    expect(await readStatusSnapshot(engine)).toBeNull();
  });

  it("a conversion cursor that does not fit names its platform_state row", async () => {
    const engine = await testEngine();
    await putState(engine, 'store.compress.ecf_documents', '{"after":0,"done":true,"converted":0,"damaged":0,"damagedRefs":[{"table":"ecf_documents","id":"e-1","encf":null}]}');
    await conversionPending(engine.db);

    await putState(engine, 'store.compress.ecf_documents', '{"after":0,"done":"yes","converted":0,"damaged":0,"damagedRefs":[]}');
    expectNames(await damaged(() => conversionPending(engine.db)), 'platform_state.value of store.compress.ecf_documents', 'done');
    await putState(engine, 'store.compress.ecf_documents', '{"after":0,"done":true,"converted":0,"damaged":1,"damagedRefs":[{"id":"e-1"}]}');
    expectNames(await damaged(() => conversionPending(engine.db)), 'platform_state.value of store.compress.ecf_documents', 'damagedRefs[0].table');
  });

  it("an event's data that is not JSON names events.data and the event", async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const event = await emitEvent(engine, tenant.id, 'ecf.accepted', { n: 1 });
    expect((await listEvents(engine.db, { tenantId: tenant.id })).map((e) => e.data.object)).toEqual([{ n: 1 }]);

    await engine.db.updateTable('events').set({ data: '{"n":1' }).where('id', '=', event.id).execute();
    expectNames(await damaged(() => listEvents(engine.db, { tenantId: tenant.id })), `events.data of event ${event.id}`, 'not JSON');
  });

  it("a work item's payload that is not JSON names work.payload and the item; an export's item without its export's id is named too", async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const id = await inTransaction(engine.db, (tx) => enqueue(tx, engine.clock.now(), { kind: 'export.run', tenantId: tenant.id, ref: 'x-1', payload: { export: 'x-1' } }));
    const [item] = await pendingWork(engine.db, 'export.run');
    expectNames(await damaged(() => runExportHandler(engine, item!)), `work.payload of work item ${id}`, 'id');

    await engine.db.updateTable('work').set({ payload: '{"id":' }).where('id', '=', id).execute();
    expectNames(await damaged(() => pendingWork(engine.db, 'export.run')), `work.payload of work item ${id}`, 'not JSON');
  });

  it("a commercial approval's delivery item without its target, and an e-CF's submission item in no phase, are named", async () => {
    const engine = await testEngine();
    const { tenant } = await seedTenant(engine);
    const id = await inTransaction(engine.db, (tx) => enqueue(tx, engine.clock.now(), { kind: 'acecf.deliver', tenantId: tenant.id, ref: 'a-1', payload: { approvalId: 'a-1' } }));
    const [item] = await pendingWork(engine.db, 'acecf.deliver');
    expectNames(await damaged(() => deliverApprovalHandler(engine, item!)), `work.payload of work item ${id}`, 'target');

    const ecf = await inTransaction(engine.db, (tx) => enqueue(tx, engine.clock.now(), { kind: 'ecf.submit', tenantId: tenant.id, ref: 'e-1', payload: { phase: 'send' } }));
    const [submit] = await pendingWork(engine.db, 'ecf.submit');
    expectNames(await damaged(() => sendingStateOf(submit!)), `work.payload (ecf.submit ${ecf})`, 'phase');
  });
});

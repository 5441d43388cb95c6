import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EVENT_API_VERSION,
  EVENT_TYPES,
  UNSUBSCRIBABLE,
  isEventType,
  typesMatching,
} from '../../../src/engine/events/catalogue.js';
import { emit, listEvents } from '../../../src/engine/events/outbox.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import { createTenant } from '../../../src/engine/tenants/tenants.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { join } from 'node:path';
import { nextRnc, sharedDir, testEngine } from '../../helpers.js';

const CONTRACT = join(sharedDir(), 'spec', 'service-contract.md');

/** The first column of every row of the table under `### Event types` in the contract. */
function contractEventTypes(): string[] {
  const lines = readFileSync(CONTRACT, 'utf8').split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === '### Event types');
  if (start < 0) throw new Error('no "### Event types" section in the contract');
  const types: string[] = [];
  let header = true;
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(line)) break;
    const t = line.trim();
    if (!t.startsWith('|')) {
      if (types.length > 0) break; // the table ended
      continue;
    }
    const first = t.split('|')[1]!.trim();
    if (header) {
      header = false; // "| Event | Emitted when |"
      continue;
    }
    if (/^:?-+:?$/.test(first)) continue; // separator row
    types.push(first.replace(/`/g, ''));
  }
  return types;
}

const ECF_TYPES = [
  'ecf.submitted',
  'ecf.accepted',
  'ecf.accepted_conditional',
  'ecf.rejected',
  'ecf.review',
  'ecf.failed',
  'ecf.duplicate_suspected',
];

async function tenant(engine: Engine) {
  return createTenant(engine, { rnc: nextRnc(), legalName: 'Panadería Doña Tata SRL' });
}

describe('event catalogue', () => {
  it('holds exactly the event types of the contract', () => {
    const documented = contractEventTypes();
    expect(documented.length).toBeGreaterThan(20);
    for (const t of documented) expect(t).toMatch(/^[a-z_]+\.[a-z_]+$/);
    expect(new Set(documented).size).toBe(documented.length);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect([...EVENT_TYPES].sort()).toEqual([...documented].sort());
  });

  it('matches subscription patterns', () => {
    expect(typesMatching('ecf.*').sort()).toEqual([...ECF_TYPES].sort());
    expect(typesMatching('ecf.*')).toHaveLength(7);

    const all = typesMatching('*');
    expect(all).not.toContain('webhook.ping');
    expect(all.sort()).toEqual(EVENT_TYPES.filter((t) => t !== 'webhook.ping').sort());
    expect(UNSUBSCRIBABLE.has('webhook.ping')).toBe(true);

    expect(typesMatching('webhook.ping')).toEqual([]);
    expect(typesMatching('webhook.*')).toEqual([]);
    expect(typesMatching('ecf.accepted')).toEqual(['ecf.accepted']);
    expect(typesMatching('sequence.*').sort()).toEqual(
      ['sequence.exhausted', 'sequence.expired', 'sequence.expiring', 'sequence.low'],
    );
    for (const unknown of ['ecf.voided', 'nope.*', 'nope', '', 'ecf', 'ecf.', '*.*', 'ECF.*', 'ecf.accepted*']) {
      expect(typesMatching(unknown), unknown).toEqual([]);
    }
    expect(isEventType('ecf.accepted')).toBe(true);
    expect(isEventType('ecf.voided')).toBe(false);
  });
});

describe('outbox', () => {
  it('records an emitted event in the transaction, with the contract envelope', async () => {
    const engine = await testEngine();
    const t = await tenant(engine);
    const object = { id: 'abc', encf: 'E310000000001', total: '118.00', lines: [{ n: 1 }], note: null };
    const envelope = await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), t.id, 'ecf.accepted', object));

    expect(envelope).not.toBeNull();
    expect(envelope!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(envelope).toEqual({
      id: envelope!.id,
      object: 'event',
      type: 'ecf.accepted',
      apiVersion: 1,
      createdAt: '2026-03-10T10:00:00.000-04:00',
      data: { object },
    });
    expect(EVENT_API_VERSION).toBe(1);

    const events = await listEvents(engine.db);
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({ ...envelope, seq: expect.any(Number), tenantId: t.id });
    const row = await engine.db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
    expect(row.created_at).toBe('2026-03-10T14:00:00.000Z');
    expect(row.fact_key).toBeNull();
    expect(JSON.parse(row.data)).toEqual(object);

    const second = await inTransaction(engine.db, (tx) => emit(tx, engine.clock.now(), t.id, 'ecf.rejected', {}));
    expect(second!.id).not.toBe(envelope!.id);
    const both = await listEvents(engine.db);
    expect(both.map((e) => e.type)).toEqual(['ecf.accepted', 'ecf.rejected']);
    expect(both[1]!.seq).toBeGreaterThan(both[0]!.seq);
  });

  it('keeps neither the event nor the fact when the transaction fails after emitting', async () => {
    const engine = await testEngine();
    const t = await tenant(engine);
    const boom = new Error('boom after emit');
    await expect(
      inTransaction(engine.db, async (tx) => {
        await tx.updateTable('tenants').set({ legal_name: 'Changed SRL' }).where('id', '=', t.id).execute();
        const env = await emit(tx, engine.clock.now(), t.id, 'tenant.emission_paused', { tenantId: t.id, paused: true });
        expect(env).not.toBeNull();
        // Inside the transaction both are visible.
        expect(await tx.selectFrom('events').select('id').execute()).toHaveLength(1);
        throw boom;
      }),
    ).rejects.toBe(boom);

    expect(await listEvents(engine.db)).toEqual([]);
    const row = await engine.db.selectFrom('tenants').select('legal_name').where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(row.legal_name).toBe('Panadería Doña Tata SRL');

    // The same work, committed, keeps both.
    await inTransaction(engine.db, async (tx) => {
      await tx.updateTable('tenants').set({ legal_name: 'Changed SRL' }).where('id', '=', t.id).execute();
      await emit(tx, engine.clock.now(), t.id, 'tenant.emission_paused', { tenantId: t.id, paused: true });
    });
    expect((await listEvents(engine.db)).map((e) => e.type)).toEqual(['tenant.emission_paused']);
    const changed = await engine.db.selectFrom('tenants').select('legal_name').where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(changed.legal_name).toBe('Changed SRL');
  });

  it('tells a fact with a factKey once', async () => {
    const engine = await testEngine();
    const t = await tenant(engine);
    const factKey = `certificate.expiring:${t.id}:30`;
    const first = await inTransaction(engine.db, (tx) =>
      emit(tx, engine.clock.now(), t.id, 'certificate.expiring', { days: 30 }, { factKey }),
    );
    expect(first).not.toBeNull();

    engine.clock.advance(60_000);
    const again = await inTransaction(engine.db, (tx) =>
      emit(tx, engine.clock.now(), t.id, 'certificate.expiring', { days: 30, second: true }, { factKey }),
    );
    expect(again).toBeNull();
    // Also within one transaction.
    const twice = await inTransaction(engine.db, async (tx) => [
      await emit(tx, engine.clock.now(), t.id, 'certificate.expiring', { days: 7 }, { factKey: `${factKey}:7` }),
      await emit(tx, engine.clock.now(), t.id, 'certificate.expiring', { days: 7 }, { factKey: `${factKey}:7` }),
    ]);
    expect(twice[0]).not.toBeNull();
    expect(twice[1]).toBeNull();

    const events = await listEvents(engine.db);
    expect(events).toHaveLength(2);
    expect(events[0]!.id).toBe(first!.id);
    expect(events[0]!.data.object).toEqual({ days: 30 });
    expect(events[0]!.createdAt).toBe('2026-03-10T10:00:00.000-04:00');
    expect(events[1]!.id).toBe(twice[0]!.id);

    // Events without a factKey are never deduplicated.
    await inTransaction(engine.db, async (tx) => {
      await emit(tx, engine.clock.now(), t.id, 'sequence.low', { n: 1 });
      await emit(tx, engine.clock.now(), t.id, 'sequence.low', { n: 1 });
    });
    expect((await listEvents(engine.db)).filter((e) => e.type === 'sequence.low')).toHaveLength(2);
  });

  it('lists events by tenant, oldest first, after a sequence number', async () => {
    const engine = await testEngine();
    const a = await tenant(engine);
    const b = await tenant(engine);
    await inTransaction(engine.db, async (tx) => {
      await emit(tx, engine.clock.now(), a.id, 'ecf.submitted', { n: 1 });
      await emit(tx, engine.clock.now(), b.id, 'ecf.submitted', { n: 2 });
      await emit(tx, engine.clock.now(), null, 'contingency.activated', { n: 3 });
      await emit(tx, engine.clock.now(), a.id, 'ecf.accepted', { n: 4 });
    });

    const ofA = await listEvents(engine.db, { tenantId: a.id });
    expect(ofA.map((e) => e.data.object)).toEqual([{ n: 1 }, { n: 4 }]);
    expect(ofA.every((e) => e.tenantId === a.id)).toBe(true);
    expect((await listEvents(engine.db, { tenantId: b.id })).map((e) => e.data.object)).toEqual([{ n: 2 }]);
    const platform = await listEvents(engine.db, { tenantId: null });
    expect(platform.map((e) => [e.type, e.tenantId])).toEqual([['contingency.activated', null]]);
    expect((await listEvents(engine.db)).map((e) => e.data.object)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);

    const afterFirst = await listEvents(engine.db, { tenantId: a.id, afterSeq: ofA[0]!.seq });
    expect(afterFirst.map((e) => e.data.object)).toEqual([{ n: 4 }]);
    expect(await listEvents(engine.db, { tenantId: '00000000-0000-4000-8000-000000000000' })).toEqual([]);
  });
});

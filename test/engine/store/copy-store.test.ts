import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/engine/clock.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ecfXml } from '../../../src/engine/ecf/queries.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { COPIED_TABLES, DERIVED_TABLES, EPHEMERAL_TABLES, SECRET_TABLES, copyStore } from '../../../src/engine/backup/copy-store.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { allowLoopback } from '../webhooks/harness.js';
import { TEST_SERVER_URL, invoice31, seedIssuer, tempDir } from '../../helpers.js';
import { createFromTemplate, databaseUrl, dropDatabase } from '../../postgres.js';

const clock = () => new ManualClock('2026-03-10T14:00:00.000Z');
const opened: Engine[] = [];

async function sqliteEngine(): Promise<Engine> {
  const engine = await openEngine({ dataDir: tempDir(), databaseUrl: null, clock: clock() });
  opened.push(engine);
  return engine;
}

async function postgresEngine(): Promise<Engine> {
  const server = TEST_SERVER_URL!;
  const name = await createFromTemplate(server);
  const engine = await openEngine({ dataDir: tempDir(), databaseUrl: databaseUrl(server, name), clock: clock() });
  opened.push({ ...engine, close: async () => { await engine.close(); await dropDatabase(server, name); } });
  return engine;
}

async function closeAll() {
  while (opened.length) await opened.pop()!.close();
}

/** A store with something in most tables: e-CF of two types (one travels as RFCE), queued work, events, settings. */
async function populated(engine: Engine) {
  // Secrets in the encrypted-file store, whose sealed bodies live beside SQLite and inside PostgreSQL.
  await setSetting(engine, 'secrets.store', 'file');
  const { tenant } = await seedIssuer(engine, { rangeSize: 40 });
  await allowLoopback(engine);
  await createWebhook(engine, tenant.id, { url: 'http://127.0.0.1:9/hooks', events: ['ecf.*'] });
  await setSetting(engine, 'duplicates.window_minutes', 30, tenant.id);
  const issued = [];
  for (let i = 0; i < 34; i++) {
    const payload = i % 3 === 0
      ? { type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: `Refresco ${i}`, quantity: 2, unitPrice: '95.00' }] }
      : invoice31({ internalNumber: `FAC-${i}`, lines: [{ name: `Cemento ${i}`, quantity: 1 + i, unitPrice: '450.00' }] });
    issued.push((await issueEcf(engine, tenant.id, { idempotencyKey: `key-${i}`, payload })).ecf);
  }
  // A twin (observar): one more e-CF and an ecf.duplicate_suspected event; 35 of 40 numbers of type 31 are not used, 32 has its own range.
  issued.push((await issueEcf(engine, tenant.id, { idempotencyKey: 'twin', payload: invoice31({ internalNumber: 'FAC-twin', lines: [{ name: 'Cemento 1', quantity: 2, unitPrice: '450.00' }] }) })).ecf);
  return { tenant, issued };
}

const counts = async (engine: Engine) =>
  Object.fromEntries(
    await Promise.all(
      [...COPIED_TABLES, ...DERIVED_TABLES].map(async ({ table }) => [table, Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(engine.db)).rows[0]!.n)] as const),
    ),
  );

/** The certificate's and the webhook's secrets, as each engine's encrypted-file store opens them (not from a cache). */
async function fileSecrets(engine: Engine): Promise<string[]> {
  const refs = [
    ...(await engine.db.selectFrom('certificates').select('secret_ref as ref').where('secret_store', '=', 'file').execute()),
    ...(await engine.db.selectFrom('webhook_endpoints').select('secret_ref as ref').where('secret_store', '=', 'file').execute()),
  ];
  return Promise.all(refs.map(async ({ ref }) => (await engine.secrets.of('file').get(ref))?.toString('base64') ?? `missing ${ref}`));
}

const targets = TEST_SERVER_URL ? (['postgres', 'sqlite'] as const) : (['sqlite'] as const);

describe('copying a store (ecf migrate-store)', () => {
  it.each(targets)('SQLite into %s and back: every row, the counts kept by triggers, the signed bytes; the copy keeps issuing where the source stopped', async (kind) => {
    try {
      const source = await sqliteEngine();
      const { tenant, issued } = await populated(source);
      const before = await counts(source);
      const middle = kind === 'postgres' ? await postgresEngine() : await sqliteEngine();
      const progress: string[] = [];
      const report = await copyStore(source, middle, { pageRows: 7, onProgress: (table) => progress.push(table) });
      expect(report).toMatchObject({ from: 'sqlite', to: kind, documentsVerified: issued.length, secretsCarried: 2, missingSecrets: [] });
      expect(Object.fromEntries(report.tables.map((t) => [t.table, t.rows]))).toEqual(Object.fromEntries(COPIED_TABLES.map(({ table }) => [table, before[table]])));
      expect(progress.filter((t) => t === 'ecf')).toHaveLength(Math.ceil(issued.length / 7));
      expect(await counts(middle)).toEqual(before);
      const secrets = await fileSecrets(source);
      expect(secrets).toHaveLength(2);
      expect(await fileSecrets(middle)).toEqual(secrets);
      for (const ecf of issued) {
        expect(createHash('sha256').update((await ecfXml(middle, tenant.id, ecf.id)).bytes).digest('hex')).toBe(ecf.documentHash);
      }

      // Back into a fresh SQLite file: the same rows again.
      const back = await sqliteEngine();
      expect(await copyStore(middle, back)).toMatchObject({ secretsCarried: 2, missingSecrets: [] });
      expect(await counts(back)).toEqual(before);
      expect(await fileSecrets(back)).toEqual(secrets);
      // Its certificate opens from the secrets carried back: it signs.
      expect((await issueEcf(back, tenant.id, { idempotencyKey: 'back-1', payload: invoice31({ internalNumber: 'FAC-back' }) })).created).toBe(true);

      // The copy goes on where the source stopped: the next number, new events after the copied ones.
      const next = await issueEcf(middle, tenant.id, { idempotencyKey: 'after-copy', payload: invoice31({ internalNumber: 'FAC-after' }) });
      const lastBefore = issued.filter((e) => e.type === 31).at(-1)!.encf;
      expect(Number(next.ecf.encf.slice(3))).toBe(Number(lastBefore.slice(3)) + 1);
      const replay = await issueEcf(middle, tenant.id, { idempotencyKey: 'key-1', payload: invoice31({ internalNumber: 'FAC-1', lines: [{ name: 'Cemento 1', quantity: 2, unitPrice: '450.00' }] }) });
      expect(replay).toMatchObject({ created: false, ecf: { id: issued[1]!.id } });
      // Its twin emits ecf.duplicate_suspected: the event numbering (an identity on PostgreSQL) continues after the copied events.
      const copiedEvents = (await listEvents(middle.db, { tenantId: tenant.id })).length;
      await issueEcf(middle, tenant.id, { idempotencyKey: 'after-copy-twin', payload: invoice31({ internalNumber: 'FAC-after-twin' }) });
      const events = await listEvents(middle.db, { tenantId: tenant.id });
      expect(events.length).toBe(copiedEvents + 1);
      expect(events.filter((e) => e.type === 'ecf.duplicate_suspected')).toHaveLength(2);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    } finally {
      await closeAll();
    }
  });

  it('knows every table of the store: a new table cannot be left out of a copy unnoticed', async () => {
    try {
      const engine = await sqliteEngine();
      const tables = (await engine.db.introspection.getTables()).map((t) => t.name).sort();
      expect([...COPIED_TABLES.map((t) => t.table), ...DERIVED_TABLES.map((t) => t.table), ...SECRET_TABLES, ...EPHEMERAL_TABLES].sort()).toEqual(tables);
    } finally {
      await closeAll();
    }
  });

  it('copies only into an empty store at the same migrations, and leaves that store as it was', async () => {
    try {
      const source = await sqliteEngine();
      await populated(source);
      const target = await sqliteEngine();
      await seedIssuer(target);
      const before = await counts(target);
      await expect(copyStore(source, target)).rejects.toMatchObject({ code: 'Store.TargetNotEmpty' });
      expect(await counts(target)).toEqual(before);

      const older = await openEngine({ dataDir: tempDir(), databaseUrl: null, migrate: false });
      opened.push(older);
      await expect(copyStore(source, older)).rejects.toMatchObject({ code: 'Store.MigrationMismatch' });
    } finally {
      await closeAll();
    }
  });

  it('refuses a copy whose target does not keep the bytes it was given', async () => {
    try {
      const source = await sqliteEngine();
      await populated(source);
      const target = await sqliteEngine();
      // A target that damages one signed document as it is written.
      await sql`create trigger damage after insert on ecf_documents when new.ecf_key = (select min(store_key) from ecf)
        begin update ecf_documents set xml = cast('<ECF/>' as blob) where ecf_key = new.ecf_key; end`.execute(target.db);
      await expect(copyStore(source, target)).rejects.toMatchObject({ code: 'Store.CopyMismatch', message: expect.stringMatching(/ecf_documents: the same \d+ rows in number, different in content.*no longer hashes to its documentHash/) });
    } finally {
      await closeAll();
    }
  });
});

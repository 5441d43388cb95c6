import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../src/engine/backup/backup.js';
import { copyStore } from '../../../src/engine/backup/copy-store.js';
import { restoreDataDir } from '../../../src/engine/backup/restore.js';
import { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { STORE, TEST_SERVER_URL, invoice31, seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { createFromTemplate, databaseUrl, dropDatabase } from '../../postgres.js';
import { wholeJournal } from './journal-tools.js';

const PASSPHRASE = 'contraseña de respaldo';
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!.close();
});

async function issuing(engine: Engine) {
  ensureSecretStoreKey(engine.dataDir);
  await setSetting(engine, 'secrets.store', 'file');
  const { tenant } = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  let n = 0;
  const issue = async () => (await issueEcf(engine, tenant.id, { idempotencyKey: `b-${++n}`, payload: invoice31({ internalNumber: `B-${n}` }) })).ecf;
  return { tenant, issue };
}

describe(`the journal through backup, restore and migrate-store on ${STORE}`, () => {
  it('a restored store keeps the chain as it was at the backup, verifiable, and goes on with a backup.restored entry naming both instants', async () => {
    const clock = new ManualClock('2026-03-10T14:00:00.000Z');
    const engine = await openEngine({ dataDir: testDataDir(), clock });
    closing.push(engine);
    const { tenant, issue } = await issuing(engine);
    for (let i = 0; i < 3; i++) await issue();
    const atBackup = await wholeJournal(engine, tenant.id);
    const file = join(tempDir(), 'nightly.ecfbak');
    const backup = await backupDataDir(engine, file, PASSPHRASE);
    clock.advance(3_600_000);
    await issue(); // after the backup: lost with the live store

    const dataDir = testDataDir('ecf-restored-');
    await restoreDataDir(file, dataDir, PASSPHRASE, { clock });
    const copy = await openEngine({ dataDir, clock });
    closing.push(copy);
    const restored = await wholeJournal(copy, tenant.id);
    expect(restored.slice(0, -1)).toEqual(atBackup);
    expect(restored.at(-1)).toMatchObject({ seq: atBackup.length + 1, kind: 'backup.restored', data: `backup=${backup.createdAt} restored=${clock.now().toISOString()}` });

    await setSetting(copy, 'retry.max', 2, tenant.id);
    expect((await wholeJournal(copy, tenant.id)).at(-1)).toMatchObject({ seq: atBackup.length + 2, kind: 'settings.changed' });
  });

  it.skipIf(!TEST_SERVER_URL)('migrate-store (SQLite to PostgreSQL) carries the chain and its heads: it recomputes the same there and goes on', async () => {
    const clock = new ManualClock('2026-03-10T14:00:00.000Z');
    const from = await openEngine({ dataDir: tempDir(), databaseUrl: null, clock });
    closing.push(from);
    const { tenant, issue } = await issuing(from);
    for (let i = 0; i < 4; i++) await issue();
    const server = TEST_SERVER_URL!;
    const name = await createFromTemplate(server);
    const to = await openEngine({ dataDir: tempDir(), databaseUrl: databaseUrl(server, name), clock });
    closing.push({ close: async () => { await to.close(); await dropDatabase(server, name); } });
    await copyStore(from, to);

    const before = await wholeJournal(from, tenant.id);
    expect(await wholeJournal(to, tenant.id)).toEqual(before);
    await setSetting(to, 'retry.max', 2, tenant.id);
    expect((await wholeJournal(to, tenant.id)).at(-1)).toMatchObject({ seq: before.length + 1, kind: 'settings.changed' });
  });
});

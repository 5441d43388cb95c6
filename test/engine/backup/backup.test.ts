import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../src/engine/backup/backup.js';
import { readHeader } from '../../../src/engine/backup/format.js';
import { restoreDataDir } from '../../../src/engine/backup/restore.js';
import { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { openEngine, type Engine } from '../../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { codeOf } from './code-of.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { cliFor } from '../../cli-runner.js';
import { confirmRangeAfterRestore } from '../../../src/engine/sequences/restore-hold.js';
import { STORE, invoice31, seedIssuer, tempDir, testDataDir, testEngine } from '../../helpers.js';

const PASSPHRASE = 'contraseña de respaldo';
const SLOW = 120_000;

/** A source whose secrets are in encrypted files under its own key: the restore gets a new key, as another machine would. */
async function source(rangeSize = 1000) {
  const engine = await testEngine();
  ensureSecretStoreKey(engine.dataDir);
  await setSetting(engine, 'secrets.store', 'file');
  const seeded = await seedIssuer(engine, { rangeSize });
  return { engine, ...seeded };
}

const issue = (engine: Engine, tenantId: string, i: number) =>
  issueEcf(engine, tenantId, { idempotencyKey: `k-${i}`, payload: invoice31({ lines: [{ name: `Artículo ${i}`, quantity: 1, unitPrice: '10.00' }] }) });

async function reopen(dataDir: string) {
  return openEngine({ dataDir, clock: new ManualClock('2026-03-10T15:00:00.000Z') });
}


describe(`backup and restore on ${STORE}`, () => {
  it('backs up while issuing and restores a consistent snapshot, with its certificate, on another machine', { timeout: SLOW }, async () => {
    const { engine, tenant } = await source();
    for (let i = 0; i < 5; i++) await issue(engine, tenant.id, i);
    await setSetting(engine, 'webhooks.allowed_private_cidrs', ['127.0.0.0/8']);
    await setSetting(engine, 'webhooks.development_mode', true);
    const webhook = await createWebhook(engine, tenant.id, { url: 'http://127.0.0.1:9/hook', events: ['ecf.*'] });
    const file = join(tempDir(), 'nightly.ecfbak');

    let issuing = true;
    let issued = 5;
    const writer = (async () => {
      while ((issuing && issued < 300) || issued < 10) await issue(engine, tenant.id, issued++);
    })();
    const result = await backupDataDir(engine, file, PASSPHRASE);
    issuing = false;
    await writer;
    expect(result).toMatchObject({ store: STORE, secrets: 2, missingSecrets: [] });
    expect(readHeader(file).manifest).toMatchObject({ format: 'ecf-backup', version: 1, store: STORE, secretCount: 2, schema: expect.stringMatching(/^\d{4}-/) });
    // The secrets are sealed: neither the certificate password nor the .p12 is readable in the file.
    const raw = readFileSync(file);
    expect(raw.includes(Buffer.from('clave-ñ'))).toBe(false);
    expect(raw.includes(Buffer.from(webhook.secret))).toBe(false);

    const target = testDataDir('ecf-restored-');
    const restored = await restoreDataDir(file, target, PASSPHRASE);
    expect(restored).toMatchObject({ store: STORE, secrets: 2, secretStore: 'file', migrated: [] });

    const copy = await reopen(target);
    try {
      // The webhook's signing secret came back too, under its name, in the new machine's store.
      const { secret_ref } = await copy.db.selectFrom('webhook_endpoints').select('secret_ref').executeTakeFirstOrThrow();
      expect((await copy.secrets.of('file').get(secret_ref))?.toString('utf8')).toContain(webhook.secret.replace(/^whsec_/, ''));
      if (STORE === 'sqlite') {
        const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(copy.db);
        expect(rows).toEqual([{ integrity_check: 'ok' }]);
      }
      const ecf = await copy.db.selectFrom('ecf').select(['encf', 'sequence_range_id']).orderBy('encf').execute();
      const documents = await copy.db.selectFrom('ecf_documents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(ecf.length).toBeGreaterThanOrEqual(5);
      expect(ecf.length).toBeLessThanOrEqual(issued);
      expect(Number(documents.n)).toBe(ecf.length);
      // One snapshot: the range pointer stands exactly after the last e-NCF stored with it.
      const range = await copy.db.selectFrom('sequence_ranges').selectAll().where('id', '=', ecf[0]!.sequence_range_id!).executeTakeFirstOrThrow();
      expect(range.next - range.range_from).toBe(ecf.length);
      // A restore holds every range (issue 32, point 7); nothing was issued after this backup, so the operator confirms it.
      expect(await codeOf(issue(copy, tenant.id, 1000))).toBe('Sequence.UnverifiedAfterRestore');
      await confirmRangeAfterRestore(copy, tenant.id, range.id);
      // The certificate came back through the sealed secrets: the copy signs.
      const next = await issue(copy, tenant.id, 1000);
      expect(next.created).toBe(true);
      expect(next.ecf.encf).toBe(`E31${String(range.next).padStart(10, '0')}`);
    } finally {
      await copy.close();
    }
  });

  it('refuses a wrong or short passphrase, an altered file, an existing file and a data directory in use', { timeout: SLOW }, async () => {
    const { engine, tenant } = await source();
    await issue(engine, tenant.id, 1);
    const dir = tempDir();
    const file = join(dir, 'b.ecfbak');
    expect(await codeOf(backupDataDir(engine, file, 'corta'))).toBe('passphrase:Backup.PassphraseTooShort');
    await backupDataDir(engine, file, PASSPHRASE);
    expect(await codeOf(backupDataDir(engine, file, PASSPHRASE))).toBe('Backup.FileExists');

    expect(await codeOf(restoreDataDir(file, tempDir(), 'otra contraseña'))).toBe('passphrase:Backup.WrongPassphrase');
    expect(await codeOf(restoreDataDir(file, engine.dataDir, PASSPHRASE))).toBe('Restore.DataDirInUse');
    const notBackup = join(dir, 'x.ecfbak');
    writeFileSync(notBackup, 'hola\n');
    expect(await codeOf(restoreDataDir(notBackup, tempDir(), PASSPHRASE))).toBe('Backup.NotABackup');

    const altered = Buffer.from(readFileSync(file));
    altered.writeUInt8(altered.readUInt8(altered.length - 100) ^ 0xff, altered.length - 100);
    const alteredFile = join(dir, 'altered.ecfbak');
    writeFileSync(alteredFile, altered);
    const target = testDataDir();
    expect(await codeOf(restoreDataDir(alteredFile, target, PASSPHRASE))).toBe('Backup.Damaged');
    // Nothing was written for the refused restores.
    expect(await codeOf(restoreDataDir(file, target, PASSPHRASE))).toBe('no error');
  });

  it('ecf backup and ecf restore round-trip through the CLI with the passphrase on stdin', { timeout: SLOW }, async () => {
    const { engine, tenant } = await source();
    for (let i = 0; i < 3; i++) await issue(engine, tenant.id, i);
    await engine.close();
    const file = join(tempDir(), 'cli.ecfbak');
    const made = await cliFor(engine.dataDir).json(['backup', file, '--passphrase-stdin'], `${PASSPHRASE}\n`);
    expect(made).toMatchObject({ file, store: STORE, secrets: 1 });
    // On PostgreSQL the target data directory's database-url names a database that does not exist yet.
    const target = testDataDir('ecf-cli-restored-');
    const restored = await cliFor(target).json(['restore', file, '--passphrase-stdin'], PASSPHRASE);
    expect(restored).toMatchObject({ from: STORE, store: STORE, secrets: 1, secretStore: 'file', rangesHeld: { count: 10 } });
    // What was restored is checked in-process: each run of the binary costs seconds on a busy machine.
    const copy = await reopen(target);
    try {
      expect(await copy.db.selectFrom('ecf').select('encf').where('tenant_id', '=', tenant.id).execute()).toHaveLength(3);
    } finally {
      await copy.close();
    }
    // Asking for the passphrase is the CLI's alone, the same on either store: checked once, on SQLite.
    if (STORE === 'sqlite') {
      const refused = await cliFor(tempDir()).ecf(['restore', file]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--passphrase-stdin');
    }
  });
});

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backupDataDir } from '../../../src/engine/backup/backup.js';
import { openBackup } from '../../../src/engine/backup/format.js';
import { writeBackupV1 } from '../../fixtures/backup-v1-writer.js';
import { restoreDataDir } from '../../../src/engine/backup/restore.js';
import { ManualClock } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { openEngine } from '../../../src/engine/engine.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { codeOf } from './code-of.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { createWebhook } from '../../../src/engine/webhooks/endpoints.js';
import { cliFor } from '../../cli-runner.js';
import { setNextNumber } from '../../../src/engine/sequences/index.js';
import { STORE, TEST_SERVER_URL, invoice31, seedIssuer, tempDir, testDataDir, testEngine } from '../../helpers.js';
import { databaseUrl, freshDatabaseName } from '../../postgres.js';

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
    const opened = await openBackup(file, PASSPHRASE);
    expect(opened).toMatchObject({ version: 2, manifest: { store: STORE, schema: expect.stringMatching(/^\d{4}-/) } });
    expect(opened.manifest.secrets).toHaveLength(2);
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
      // A restore holds every range (issue 32, point 7); nothing was issued after this backup, so the operator confirms its number.
      expect(await codeOf(issue(copy, tenant.id, 1000))).toBe('Sequence.UnverifiedAfterRestore');
      const confirmed = await setNextNumber(copy, { tenantId: tenant.id, environment: range.environment, type: range.type, next: range.next });
      expect(confirmed).toMatchObject({ releasedAfterRestore: true, next: range.next });
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
      expect(await copy.db.selectFrom('ecf').select('encf').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).execute()).toHaveLength(3);
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

  // Issue 32, point 10: restored by ECF_DATABASE_URL alone, the data directory did not know its store, and the
  // next command without the variable opened a new, empty SQLite file there.
  it.runIf(STORE === 'postgres')('a restore onto PostgreSQL records its database in the data directory, and refuses a data directory that names another', { timeout: SLOW }, async () => {
    const { engine, tenant } = await source();
    for (let i = 0; i < 2; i++) await issue(engine, tenant.id, i);
    const file = join(tempDir(), 'pg.ecfbak');
    await backupDataDir(engine, file, PASSPHRASE);

    // A database of its own (dropped after the test), named only by the restore's environment.
    const target = testDataDir('ecf-restored-by-env-');
    const url = readFileSync(join(target, 'database-url'), 'utf8').trim();
    rmSync(join(target, 'database-url'));
    const restored = await cliFor(target, { ECF_DATABASE_URL: url }).json(['restore', file, '--passphrase-stdin'], PASSPHRASE);
    expect(restored).toMatchObject({ store: 'postgres', databaseUrlRecorded: true });
    expect(readFileSync(join(target, 'database-url'), 'utf8').trim()).toBe(url);

    // Without the variable, the next engine there opens the restored database, not a new SQLite file.
    expect(process.env.ECF_DATABASE_URL).toBeUndefined();
    const copy = await reopen(target);
    try {
      expect(copy.dialect).toBe('postgres');
      expect(await copy.db.selectFrom('ecf').select('encf').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).execute()).toHaveLength(2);
    } finally {
      await copy.close();
    }
    expect(existsSync(join(target, 'ecf.sqlite'))).toBe(false);

    // A data directory whose database-url names another database is refused before anything is written.
    const other = testDataDir('ecf-names-another-');
    const named = readFileSync(join(other, 'database-url'), 'utf8');
    expect(await codeOf(restoreDataDir(file, other, PASSPHRASE, { databaseUrl: databaseUrl(TEST_SERVER_URL!, freshDatabaseName()) }))).toBe('Restore.DatabaseUrlConflict');
    expect(readFileSync(join(other, 'database-url'), 'utf8')).toBe(named);
    expect(existsSync(join(other, 'secret-store.key'))).toBe(false);
  });

  // Issue 32, point 11: the database inside a backup was in clear; only the secrets were sealed.
  it('seals the whole file: nothing of the store is readable without the passphrase, and a cut or edited file is refused', { timeout: SLOW }, async () => {
    const { engine, tenant } = await source();
    for (let i = 0; i < 3; i++) await issue(engine, tenant.id, i);
    const file = join(tempDir(), 'sealed.ecfbak');
    const made = await backupDataDir(engine, file, PASSPHRASE);
    // Bigger than one chunk, so the checks below cut and alter a file of several.
    expect(made.databaseBytes).toBeGreaterThan(3 * 64 * 1024);
    const raw = readFileSync(file);
    const [magic, header] = raw.subarray(0, raw.indexOf('\n', raw.indexOf('\n') + 1)).toString('utf8').split('\n');
    expect(magic).toBe('ECF-BACKUP 2');
    // The readable header says how to open the file, and nothing of what is in it.
    expect(Object.keys(JSON.parse(header!)).sort()).toEqual(['chunkBytes', 'cipher', 'format', 'kdf', 'version']);
    for (const clear of ['SQLite format 3', 'CREATE TABLE', tenant.rnc, 'Ferretería Ñoño', 'E310000000001', 'Artículo 1', 'sqlite', made.createdAt]) {
      expect(raw.includes(Buffer.from(clear, 'utf8')), clear).toBe(false);
    }

    const dir = tempDir();
    const variant = (name: string, bytes: Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    };
    const bodyStart = raw.indexOf('\n', raw.indexOf('\n') + 1) + 1;
    const record = 64 * 1024 + 16;
    // Cut at a chunk's end: every chunk left opens, but none of them is the last.
    const cut = variant('cut.ecfbak', raw.subarray(0, bodyStart + 2 * record));
    expect(await codeOf(restoreDataDir(cut, testDataDir(), PASSPHRASE))).toBe('Backup.Damaged');
    const dropped = variant('dropped.ecfbak', Buffer.concat([raw.subarray(0, bodyStart + record), raw.subarray(bodyStart + 2 * record)]));
    expect(await codeOf(restoreDataDir(dropped, testDataDir(), PASSPHRASE))).toBe('Backup.Damaged');
    // The header is the additional data of every chunk: an edited one opens nothing.
    const edited = variant('edited.ecfbak', Buffer.from(raw.toString('latin1').replace('"cipher":"aes-256-gcm"', '"cipher":"aes-256-gcm" '), 'latin1'));
    expect(await codeOf(restoreDataDir(edited, testDataDir(), PASSPHRASE))).toBe('passphrase:Backup.WrongPassphrase');

    const target = testDataDir('ecf-restored-sealed-');
    expect(await restoreDataDir(file, target, PASSPHRASE)).toMatchObject({ format: 2, from: STORE, store: STORE, secrets: 1 });
    const copy = await reopen(target);
    try {
      expect(await copy.db.selectFrom('ecf').select('encf').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).execute()).toHaveLength(3);
    } finally {
      await copy.close();
    }
  });

  it('still restores a backup of the old format, whose database is in clear (format 1)', { timeout: SLOW }, async () => {
    // The old format was written from a SQLite file; it restores onto the store of this run.
    const old = await openEngine({ dataDir: tempDir('ecf-v1-source-'), databaseUrl: null, clock: new ManualClock('2026-03-10T14:00:00.000Z') });
    let tenantId: string;
    try {
      ensureSecretStoreKey(old.dataDir);
      await setSetting(old, 'secrets.store', 'file');
      tenantId = (await seedIssuer(old)).tenant.id;
      for (let i = 0; i < 2; i++) await issue(old, tenantId, i);
      const file = join(tempDir(), 'old.ecfbak');
      await writeBackupV1(old, file, PASSPHRASE);
      expect(readFileSync(file).includes(Buffer.from('SQLite format 3'))).toBe(true);

      expect(await codeOf(restoreDataDir(file, testDataDir(), 'otra contraseña'))).toBe('passphrase:Backup.WrongPassphrase');
      const target = testDataDir('ecf-restored-v1-');
      expect(await restoreDataDir(file, target, PASSPHRASE)).toMatchObject({ format: 1, from: 'sqlite', store: STORE, secrets: 1, secretStore: 'file' });
      const copy = await reopen(target);
      try {
        expect(await copy.db.selectFrom('ecf').select('encf').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenantId)).orderBy('encf').execute()).toEqual([{ encf: 'E310000000001' }, { encf: 'E310000000002' }]);
        // Held as every restore holds its ranges; confirmed, its certificate (back through the old sealed part) signs the next number.
        await setNextNumber(copy, { tenantId, environment: 'test', type: 31, next: 3 });
        expect((await issue(copy, tenantId, 99)).ecf.encf).toBe('E310000000003');
      } finally {
        await copy.close();
      }
    } finally {
      await old.close();
    }
  });
});

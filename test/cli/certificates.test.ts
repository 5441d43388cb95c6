import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor } from '../cli-runner.js';
import { DATABASE_FILE, DATABASE_URL_FILE } from '../../src/engine/data-dir.js';
import { openEngine } from '../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { createTenant } from '../../src/engine/tenants/tenants.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { STORE, tempDir, testDataDir } from '../helpers.js';

/**
 * `ecf cert …` and `ecf doctor` end to end: the built binary (`npm test`
 * builds dist first) as a child process, stdin a pipe (never a TTY), over a
 * data directory prepared in-process. Each spawn costs about half a second.
 */

const SLOW = 120_000;
const DAY = 24 * 60 * 60 * 1000;

const cli = (dataDir: string) => cliFor(dataDir);

/** A data directory as `ecf init` leaves it, with the tenants given; the engine closed again. */
async function dataDirWith(...tenants: { rnc: string; legalName: string }[]) {
  const dataDir = testDataDir('ecf-cli-cert-');
  const engine = await openEngine({ dataDir });
  try {
    ensureSecretStoreKey(dataDir);
    const created = [];
    for (const t of tenants) created.push(await createTenant(engine, t));
    return { dataDir, tenants: created };
  } finally {
    await engine.close();
  }
}

async function addTenant(dataDir: string, rnc: string, legalName: string) {
  const engine = await openEngine({ dataDir });
  try {
    return await createTenant(engine, { rnc, legalName });
  } finally {
    await engine.close();
  }
}

describe('ecf cert', () => {
  it(
    'imports with a password on stdin, lists, shows, refuses to revoke unconfirmed, then revokes',
    async () => {
      const { dataDir, tenants } = await dataDirWith({ rnc: '131234567', legalName: 'Ferretería Ñoño SRL' });
      const tenant = tenants[0]!;
      const { ecf, json } = cli(dataDir);

      const password = 'contraseña-ñoña 1';
      const now = Date.now();
      const identity = makeIdentity({
        commonName: 'ANA PÉREZ',
        serialNumber: 'IDCDO-00112345678',
        notBefore: new Date(now - DAY),
        notAfter: new Date(now + 365 * DAY),
      });
      const p12 = join(tempDir('ecf-cli-p12-'), 'firma.p12');
      writeFileSync(p12, makeP12(identity, password));

      // A wrong password is the engine's validation error: exit 2 and its code on stderr.
      const wrong = await ecf(['cert', 'import', p12, '--password-stdin'], 'contrasena-nona 1\n');
      expect(wrong.code, wrong.stderr).toBe(2);
      expect(wrong.stderr).toContain('Error [Certificate.WrongPassword]');

      // Without a TTY and without --password-stdin there is nobody to ask.
      const unasked = await ecf(['cert', 'import', p12]);
      expect(unasked.code, unasked.stderr).toBe(2);
      expect(unasked.stderr).toContain('Certificate.PasswordRequired');
      expect(unasked.stderr).toContain('--password-stdin');

      // The only tenant is taken when --tenant is left out; one trailing newline is not part of the password.
      const imported = await json(['cert', 'import', p12, '--password-stdin'], `${password}\n`);
      expect(imported).toMatchObject({
        tenantId: tenant.id,
        status: 'active',
        subject: { commonName: 'ANA PÉREZ', holderId: '00112345678' },
        revokedAt: null,
      });
      expect(['keychain', 'file']).toContain(imported.secretStore);
      // The holder is not the tenant's RNC: said, not refused.
      expect(imported.warnings).toHaveLength(1);

      expect(await json(['cert', 'list'])).toEqual([imported]);
      expect(await json(['cert', 'show', imported.id, '--tenant', '131234567'])).toEqual(imported);

      const unconfirmed = await ecf(['cert', 'revoke', imported.id]);
      expect(unconfirmed.code, unconfirmed.stderr).toBe(2);
      expect(unconfirmed.stderr).toContain('Error [Certificate.ConfirmationRequired]');

      const revoked = await json(['cert', 'revoke', imported.id, '--tenant', tenant.id, '--yes']);
      expect(revoked).toMatchObject({ id: imported.id, status: 'revoked' });
      expect(revoked.revokedAt).not.toBeNull();

      // With a second tenant, leaving out --tenant no longer names one.
      await addTenant(dataDir, '40212345678', 'Juan Ñoño');
      const ambiguous = await ecf(['cert', 'import', p12, '--password-stdin'], password);
      expect(ambiguous.code, ambiguous.stderr).toBe(2);
      expect(ambiguous.stderr).toContain('Error [Tenant.Required]: There are 2 tenants; choose one with --tenant.');
    },
    SLOW,
  );

  it(
    'names the file it cannot read',
    async () => {
      const { dataDir } = await dataDirWith({ rnc: '131234567', legalName: 'Ferretería Ñoño SRL' });
      const missing = join(dataDir, 'no-such.p12');
      const r = await cli(dataDir).ecf(['cert', 'import', missing, '--password-stdin'], 'x');
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('Error [Certificate.FileUnreadable]');
      expect(r.stderr).toContain(missing);
    },
    SLOW,
  );
});

describe('ecf doctor', () => {
  it(
    'passes on a fresh data directory and fails, still printing its JSON, once the database is corrupted',
    async () => {
      const { dataDir } = await dataDirWith({ rnc: '131234567', legalName: 'Ferretería Ñoño SRL' });
      const { ecf } = cli(dataDir);

      const healthy = await ecf(['doctor', '--offline', '--json']);
      expect(healthy.code, healthy.stderr + healthy.stdout).toBe(0);
      const { checks } = JSON.parse(healthy.stdout) as { checks: { check: string; status: string; detail: string }[] };
      const byName = Object.fromEntries(checks.map((c) => [c.check, c]));
      expect(Object.keys(byName)).toEqual(expect.arrayContaining(['data-dir', 'database', 'migrations', 'secret-store', 'keychain']));
      for (const c of checks) expect(['ok', 'warn']).toContain(c.status);
      expect(byName['data-dir']!.status).toBe('ok');
      expect(byName['database']).toMatchObject({ status: 'ok' });
      expect(byName['migrations']).toMatchObject({ status: 'ok' });
      // The store in use follows the keychain: there when one answers, else encrypted files with a 0600 key.
      expect(byName['secret-store']!.detail).toContain('secrets.store is auto');
      if (byName['keychain']!.status === 'ok') {
        expect(byName['secret-store']!.detail).toContain('new secrets go to keychain');
      } else {
        expect(byName['secret-store']!.detail).toContain('new secrets go to file');
        expect(byName['secret-key']).toMatchObject({ status: 'ok' });
      }

      if (STORE === 'sqlite') {
        // Garbage over a few pages in the middle of the (closed) database file.
        const file = join(dataDir, DATABASE_FILE);
        const pageSize = 4096;
        const pages = Math.floor(statSync(file).size / pageSize);
        expect(pages).toBeGreaterThan(4);
        const fd = openSync(file, 'r+');
        try {
          const first = Math.floor(pages / 2) - 1;
          for (let p = first; p < first + 3; p++) writeSync(fd, randomBytes(pageSize), 0, pageSize, p * pageSize);
        } finally {
          closeSync(fd);
        }
      } else {
        // A server that does not answer (port 1 on loopback).
        writeFileSync(join(dataDir, DATABASE_URL_FILE), 'postgres://postgres@127.0.0.1:1/ecf\n');
      }

      const broken = await ecf(['doctor', '--offline', '--json']);
      expect(broken.code, broken.stderr).toBe(1);
      const after = (JSON.parse(broken.stdout) as { checks: { check: string; status: string; detail: string }[] }).checks;
      expect(after.find((c) => c.check === 'database')).toMatchObject({ status: 'fail' });
    },
    SLOW,
  );
});

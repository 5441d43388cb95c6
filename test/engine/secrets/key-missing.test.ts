import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { cliFor } from '../../cli-runner.js';
import { STORE, seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { startServe } from '../../serve-process.js';

/**
 * Issue 32, point 9: with `secret-store.key` gone, `ecf serve` and even `ecf
 * doctor` made a new key in silence, and the certificates sealed under the
 * old one could no longer be opened. Now nothing makes a key while sealed
 * secrets remain: the store refuses, serve refuses to start, the doctor
 * reports; each says what to put back and where.
 */
const SLOW = 120_000;

/** A data directory with a certificate sealed under its key file, which is then moved away. */
async function keyLost() {
  const dataDir = testDataDir('ecf-key-lost-');
  const engine = await openEngine({ dataDir });
  let certificateRef: string;
  try {
    ensureSecretStoreKey(dataDir);
    await setSetting(engine, 'secrets.store', 'file');
    await seedIssuer(engine);
    certificateRef = (await engine.db.selectFrom('certificates').select('secret_ref').executeTakeFirstOrThrow()).secret_ref;
  } finally {
    await engine.close();
  }
  const keyFile = join(dataDir, 'secret-store.key');
  const keptAside = join(tempDir(), 'secret-store.key');
  renameSync(keyFile, keptAside);
  return { dataDir, keyFile, keptAside, certificateRef };
}

/** `ecf doctor --offline --json`: its checks, whatever it exits with (other checks may fail on a bare store). */
async function doctorChecks(dataDir: string) {
  const run = await cliFor(dataDir).ecf(['doctor', '--offline', '--json']);
  return JSON.parse(run.stdout) as { checks: { check: string; status: string; detail: string }[] };
}

describe(`a missing secret-store key on ${STORE}`, () => {
  it('is never made anew while secrets sealed under it remain: the store refuses, naming the file, and opens again once it is put back', { timeout: SLOW }, async () => {
    const { dataDir, keyFile, keptAside, certificateRef } = await keyLost();
    const engine = await openEngine({ dataDir });
    try {
      const store = engine.secrets.of('file');
      const refused = await store.get(certificateRef).then(() => null, (e: unknown) => e as { code: string; message: string });
      expect(refused).toMatchObject({ code: 'SecretStore.KeyMissing' });
      expect(refused!.message).toContain(keyFile);
      expect(refused!.message).toContain(STORE === 'postgres' ? 'sealed_secrets' : join(dataDir, 'secrets'));
      // Sealing a new secret would have made the key: refused too.
      await expect(store.put('another', Buffer.from('x'))).rejects.toMatchObject({ code: 'SecretStore.KeyMissing' });
      // The readiness check (GET /readyz) fails with the same reason.
      const { runReadiness } = await import('../../../src/engine/health/index.js');
      const check = (await runReadiness(engine)).checks.find((c) => c.name === 'secret-store');
      expect(check).toMatchObject({ status: 'fail', detail: expect.stringContaining(keyFile) });
      expect(existsSync(keyFile)).toBe(false);

      renameSync(keptAside, keyFile);
      expect(JSON.parse((await store.get(certificateRef))!.toString('utf8'))).toMatchObject({ password: 'clave-ñ' });
    } finally {
      await engine.close();
    }
  });

  it('ecf doctor reports it without making a key; ecf serve refuses to start', { timeout: SLOW }, async () => {
    const { dataDir, keyFile } = await keyLost();
    const doctor = await doctorChecks(dataDir);
    const secretKey = doctor.checks.find((c) => c.check === 'secret-key');
    expect(secretKey).toMatchObject({ status: 'fail', detail: expect.stringContaining(`Put the key back at ${keyFile}`) });
    expect(existsSync(keyFile)).toBe(false);

    const served = await startServe(dataDir, { args: ['--no-jobs'] }).then(
      ({ child }) => {
        child.kill('SIGKILL');
        return 'it listened';
      },
      (err: Error) => err.message,
    );
    expect(served).toContain('SecretStore.KeyMissing');
    expect(served).toContain(keyFile);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('with nothing sealed yet, ecf doctor still makes no key; the first secret stored does', { timeout: SLOW }, async () => {
    const dataDir = testDataDir('ecf-no-key-yet-');
    const engine = await openEngine({ dataDir });
    await setSetting(engine, 'secrets.store', 'file');
    await engine.close();
    const keyFile = join(dataDir, 'secret-store.key');
    const doctor = await doctorChecks(dataDir);
    expect(doctor.checks.find((c) => c.check === 'secret-key')).toMatchObject({ status: 'ok', detail: expect.stringContaining('not made yet') });
    expect(existsSync(keyFile)).toBe(false);

    const again = await openEngine({ dataDir });
    try {
      await seedIssuer(again);
      expect(existsSync(keyFile)).toBe(true);
    } finally {
      await again.close();
    }
  });
});

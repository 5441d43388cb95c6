import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { getEcf } from '../../src/engine/ecf/index.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { BIN } from '../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';

/**
 * `ecf issue` leaves as soon as its answer is out (bin/ecf.js), and whatever is still under
 * way when the process dies must never cost the store anything: each run is killed with
 * SIGKILL the moment its JSON answer arrives (while the store is closing, or the process
 * tearing down), then the store opens, holds that e-CF signed, and passes integrity_check.
 * The real binary as a child process, on both stores.
 */

const SLOW = 180_000;
const RUNS = 4;

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(e)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete e[k];
  return e;
}

/** Runs `ecf issue FILE --json` and kills it with SIGKILL once its whole answer has been printed. */
function issueThenKill(dataDir: string, file: string): Promise<{ answer: any; killed: boolean; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'issue', file, '--json', '--data-dir', dataDir], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answer: any;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (answer !== undefined) return;
      try {
        answer = JSON.parse(stdout);
      } catch {
        return; // not all of it yet
      }
      child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (_code, signal) => done({ answer: answer ?? stdout, killed: signal === 'SIGKILL', stderr }));
  });
}

describe('ecf issue killed right after it answers', () => {
  it('leaves the e-CF it reported stored and the store whole, every time', { timeout: SLOW }, async () => {
    const dataDir = testDataDir('ecf-cli-exit-');
    const seeding = await openEngine({ dataDir });
    let tenantId: string;
    try {
      ensureSecretStoreKey(dataDir);
      tenantId = (await seedIssuer(seeding)).tenant.id;
    } finally {
      await seeding.close();
    }
    const files = tempDir('ecf-cli-exit-files-');
    const reported: { id: string; encf: string }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const file = join(files, `factura-${i}.json`);
      const invoice = invoice31();
      invoice.lines[0]!.name = `${invoice.lines[0]!.name} ${i}`;
      writeFileSync(file, JSON.stringify(invoice));
      const { answer, stderr } = await issueThenKill(dataDir, file);
      expect(answer, stderr).toMatchObject({ issued: 1, failed: 0 });
      const ecf = answer.results[0].ecf;
      expect(ecf).toMatchObject({ status: 'signed', encf: `E31000000000${i + 1}` });
      reported.push(ecf);
    }

    const engine = await openEngine({ dataDir });
    try {
      for (const { id, encf } of reported) expect(await getEcf(engine, tenantId, id)).toMatchObject({ id, encf, status: 'signed' });
      if (engine.dialect === 'sqlite') {
        const { rows } = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(engine.db);
        expect(rows).toEqual([{ integrity_check: 'ok' }]);
      }
    } finally {
      await engine.close();
    }
  });
});

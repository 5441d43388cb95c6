import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { dominicanMonth } from '../../src/engine/clock.js';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { newId } from '../../src/engine/ids.js';
import { inTransaction } from '../../src/engine/store/database.js';
import { BIN, cliEnv, cliFor } from '../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';

const SLOW = 120_000;

/** A tenant with `copies` more e-CF (row and documents copied from one issued now, each its own e-NCF): enough that an export takes a while. */
async function storeWith(copies: number) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir });
  try {
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'x-0', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    const documents = await engine.db.selectFrom('ecf_documents').selectAll().where('ecf_key', '=', template.store_key).executeTakeFirstOrThrow();
    for (let done = 0; done < copies; done += 500) {
      await inTransaction(engine.db, async (tx) => {
        for (let i = done; i < Math.min(copies, done + 500); i++) {
          const encf = `E31${String(5000 + i).padStart(10, '0')}`;
          const row = await tx.insertInto('ecf').values({ ...template, store_key: undefined, id: newId(), encf, idempotency_key: `copy-${i}`, internal_number: null } as never).returning('store_key').executeTakeFirstOrThrow();
          await tx.insertInto('ecf_documents').values({ ...documents, ecf_key: row.store_key }).execute();
        }
      });
    }
    return { dataDir, tenantId: tenant.id, month: dominicanMonth(new Date(template.issued_at)) };
  } finally {
    await engine.close();
  }
}

describe('ecf export and ecf export verify', () => {
  it('exports a month and verifies it; a file changed in the ZIP fails verify, named, exit 1', async () => {
    const { dataDir, tenantId, month } = await storeWith(20);
    const { ecf, json } = cliFor(dataDir);
    const out = join(tempDir('ecf-export-cli-'), 'mes.zip');
    const report = await json(['export', '--tenant', tenantId, '--month', month, '-o', out]);
    expect(report).toMatchObject({ issued: 21, file: out });
    const verified = await json(['export', 'verify', out]);
    expect(verified).toMatchObject({ ok: true, problems: [], documents: 21, ledgerRows: 21 });
    const text = await ecf(['export', 'verify', out]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('the export holds');

    const bad = await ecf(['export', '--tenant', tenantId, '--month', '2026-13', '-o', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr + bad.stdout).toContain('month');

    // A byte of the first document's compressed data changed in place: named, exit 1.
    const bytes = readFileSync(out);
    const at = bytes.indexOf(Buffer.from('issued/')) + 200;
    bytes[at] = bytes[at]! ^ 0xff;
    const damaged = out.replace('.zip', '-damaged.zip');
    writeFileSync(damaged, bytes);
    const failed = await ecf(['export', 'verify', damaged]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/FAILED issued\/\d+\/E31\d+\.xml: /);
  }, SLOW);

  it('killed with SIGKILL mid-export: nothing under the final name; the next export succeeds and verifies', async () => {
    const { dataDir, tenantId, month } = await storeWith(4000);
    const dir = tempDir('ecf-export-kill-');
    const out = join(dir, 'mes.zip');
    const child = spawn(process.execPath, [BIN, 'export', '--tenant', tenantId, '--month', month, '-o', out, '--data-dir', dataDir], { env: cliEnv(), stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Killed once its archive has bytes on disk: the export is under way.
    while (!(existsSync(`${out}.partial`) && statSync(`${out}.partial`).size > 0) && child.exitCode === null) await sleep(5);
    child.kill('SIGKILL');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toContain('mes.zip.partial');

    const { json } = cliFor(dataDir);
    expect(await json(['export', '--tenant', tenantId, '--month', month, '-o', out])).toMatchObject({ issued: 4001 });
    expect(readdirSync(dir)).toEqual(['mes.zip']);
    expect(await json(['export', 'verify', out, '--skip-signatures'])).toMatchObject({ ok: true, documents: 4001 });
  }, SLOW);
});

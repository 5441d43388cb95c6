import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, cliFor } from '../../cli-runner.js';
import { tempDir } from '../../helpers.js';
import { storeWith } from './copies.js';

const SLOW = 120_000;

// A process test: `ecf export` (the built bundle) in a child process, killed with SIGKILL.
describe('the export killed mid-way', () => {
  it('killed with SIGKILL mid-export: nothing under the final name; the next export succeeds and verifies', async () => {
    const { dataDir, tenantId, month } = await storeWith(2000);
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
    expect(await json(['export', '--tenant', tenantId, '--month', month, '-o', out])).toMatchObject({ issued: 2001 });
    expect(readdirSync(dir)).toEqual(['mes.zip']);
    expect(await json(['export', 'verify', out, '--skip-signatures'])).toMatchObject({ ok: true, documents: 2001 });
  }, SLOW);
});

import { spawn } from 'node:child_process';
import { openEngine } from '../../../../src/engine/engine.js';
import type { Engine } from '../../../../src/engine/engine-types.js';
import { BIN, cliEnv } from '../../../cli-runner.js';

/** Documents the conversion has committed so far, from its cursors in platform_state. */
async function convertedSoFar(engine: Engine): Promise<number> {
  const rows = await engine.db.selectFrom('platform_state').select('value').where('key', 'like', 'store.compress.%').execute();
  return rows.reduce((n, r) => n + (JSON.parse(r.value) as { converted: number }).converted, 0);
}

/**
 * `ecf store compress --batch 1` in a child, killed with SIGKILL once at least
 * `after` documents are committed: wherever it is then (compressing, inside a
 * transaction, between two).
 */
export async function compressKilled(dataDir: string, after: number): Promise<void> {
  const watcher = await openEngine({ dataDir });
  try {
    await new Promise<void>((done, fail) => {
      const child = spawn(process.execPath, [BIN, 'store', 'compress', '--batch', '1', '--data-dir', dataDir], { env: cliEnv(), stdio: 'ignore' });
      let exited = false;
      child.on('error', fail);
      child.on('close', () => {
        exited = true;
        done();
      });
      const poll = async () => {
        while (!exited && (await convertedSoFar(watcher)) < after) await new Promise((r) => setTimeout(r, 2));
        if (!exited) child.kill('SIGKILL');
      };
      poll().catch(fail);
    });
  } finally {
    await watcher.close();
  }
}


import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { BIN, cliFor } from '../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';
import { NO_DRAIN } from '../serve-process.js';

/** `ecf serve --watch DIR`: the server issues dropped files too, and its API sees the e-CF. */
describe('ecf serve --watch', () => {
  it('issues a file dropped into DIR/inbox while serving the API', { timeout: 120_000 }, async () => {
    const dataDir = testDataDir('ecf-serve-watch-');
    const engine = await openEngine({ dataDir });
    let key: string;
    try {
      ensureSecretStoreKey(dataDir);
      key = (await seedIssuer(engine)).keys.consultor;
    } finally {
      await engine.close();
    }
    const dir = tempDir('ecf-serve-watch-dir-');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete env[k];
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--no-jobs', '--log-level', 'warn', '--watch', dir, '--data-dir', dataDir, ...NO_DRAIN], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      await vi.waitFor(() => expect(out).toMatch(/serving (http:\/\/\S+)\/api\/v1/), { timeout: 60_000, interval: 50 });
      expect(out).toContain(`watching ${dir}/inbox`);
      const base = /serving (http:\/\/\S+)\/api\/v1/.exec(out)![1]!;
      writeFileSync(join(dir, 'inbox', 'pedido-1.json'), JSON.stringify(invoice31({ internalNumber: 'S-1' })));
      await vi.waitFor(() => expect(existsSync(join(dir, 'done', 'pedido-1.result.json'))).toBe(true), { timeout: 60_000, interval: 50 });
      const result = JSON.parse(readFileSync(join(dir, 'done', 'pedido-1.result.json'), 'utf8'));
      const fetched = await fetch(`${base}/api/v1/ecf/${result.id}`, { headers: { 'x-api-key': key } });
      expect(fetched.status).toBe(200);
      expect(await fetched.json()).toMatchObject({ id: result.id, encf: result.encf, internalNumber: 'S-1' });
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code, out).toBe(0);
    expect(existsSync(join(dir, '.ecf-watch.lock'))).toBe(false);
  });
});

describe('ecf watch --once', () => {
  it('finishes what waits in the inbox, reports each file and exits 1 when one failed', { timeout: 120_000 }, async () => {
    const dataDir = testDataDir('ecf-watch-once-');
    const engine = await openEngine({ dataDir });
    try {
      ensureSecretStoreKey(dataDir);
      await seedIssuer(engine);
    } finally {
      await engine.close();
    }
    const dir = tempDir('ecf-watch-once-dir-');
    const { ecf, json } = cliFor(dataDir);
    const empty = await json(['watch', dir, '--once']);
    expect(empty).toMatchObject({ dir, done: 0, failed: 0, results: [] });
    writeFileSync(join(dir, 'inbox', 'a.json'), JSON.stringify(invoice31({ internalNumber: 'O-1' })));
    writeFileSync(join(dir, 'inbox', 'b.json'), 'no');
    const r = await ecf(['watch', dir, '--once', '--settle', '0']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^done\/a\.json: E31\d{10} signed$/m);
    expect(r.stdout).toMatch(/^failed\/b\.json: Error \[Watch\.NotJson\]/m);
    const again = await json(['watch', dir, '--once']);
    expect(again).toMatchObject({ done: 0, failed: 0 });
  });
});

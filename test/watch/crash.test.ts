import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { ecfXml } from '../../src/engine/ecf/queries.js';
import type { WatchResult } from '../../src/watch/folder.js';
import { BIN } from '../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';

/**
 * `ecf watch` as a real process: 100 files dropped while it runs (valid,
 * invalid, written slowly, one duplicate), the process killed with SIGKILL
 * part-way and started again. Every valid file ends in done once with its
 * results, every invalid one in failed with its reason, none is lost, and
 * the database holds one e-CF per sale.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startWatch(dataDir: string, dir: string): ChildProcess & { output: () => string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('ECF_') && k !== 'ECF_IN_KEYRING_SESSION' && k !== 'ECF_REQUIRE_KEYCHAIN') delete env[k];
  const child = spawn(process.execPath, [BIN, 'watch', dir, '--settle', '1000', '--data-dir', dataDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return Object.assign(child, { output: () => out });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

/** Writes a file in pieces with pauses, as a slow writer would. */
async function writeSlowly(file: string, text: string, pieces = 5): Promise<void> {
  const fd = openSync(file, 'w');
  try {
    const size = Math.ceil(text.length / pieces);
    for (let i = 0; i < text.length; i += size) {
      writeSync(fd, text.slice(i, i + size));
      await sleep(40);
    }
  } finally {
    closeSync(fd);
  }
}

describe('ecf watch, killed and started again', () => {
  it('issues each valid file once, fails each invalid one with its reason, loses none', { timeout: 600_000 }, async () => {
    const dataDir = testDataDir('ecf-watch-data-');
    const engine = await openEngine({ dataDir });
    let tenantId: string;
    try {
      ensureSecretStoreKey(dataDir);
      tenantId = (await seedIssuer(engine)).tenant.id;
    } finally {
      await engine.close();
    }
    const dir = tempDir('ecf-watch-dir-');
    const inbox = join(dir, 'inbox');

    const valid: string[] = [];
    const invalid = new Map<string, string>(); // name -> expected error code
    const files: [string, string][] = [];
    for (let i = 1; i <= 84; i++) {
      const name = `venta-${String(i).padStart(3, '0')}.json`;
      valid.push(name);
      // Half carry an internalNumber; for the others the file name (the idempotency key) alone prevents a second e-CF.
      files.push([name, JSON.stringify(i <= 42 ? invoice31({ internalNumber: `V-${i}` }) : invoice31({ lines: [{ name: `Cemento gris ${i}`, quantity: i, unitPrice: "350.00" }] }))]);
    }
    // One duplicate: another file for sale V-10 (same internalNumber): done, but no second e-CF.
    valid.push('venta-010-otra-vez.json');
    files.push(['venta-010-otra-vez.json', JSON.stringify(invoice31({ internalNumber: 'V-10' }))]);
    for (let i = 1; i <= 8; i++) {
      const name = `invalida-${i}.json`;
      invalid.set(name, 'Validation.Failed');
      files.push([name, JSON.stringify(invoice31({ internalNumber: `X-${i}`, lines: [], buyer: { rnc: '12' } }))]);
    }
    for (let i = 1; i <= 3; i++) {
      invalid.set(`roto-${i}.json`, 'Watch.NotJson');
      files.push([`roto-${i}.json`, `{"type": 31, "lines": [ ${i}`]);
    }
    const slow = ['lenta-1.json', 'lenta-2.json', 'lenta-3.json'];
    valid.push(...slow);
    invalid.set('leeme.txt', 'Watch.NotJsonFile');
    expect(files.length + slow.length + 1).toBe(100);

    let watcher = startWatch(dataDir, dir);
    try {
      await vi.waitFor(() => expect(existsSync(inbox)).toBe(true), { timeout: 60_000, interval: 50 });
      for (const [name, text] of files) writeFileSync(join(inbox, name), text);
      writeFileSync(join(inbox, 'leeme.txt'), 'not a payload');
      const slowWrites = slow.map((name, i) => writeSlowly(join(inbox, name), JSON.stringify(invoice31({ internalNumber: `L-${i + 1}` }))));

      // Kill it part-way, while files are still waiting.
      await vi.waitFor(() => expect(readdirSync(join(dir, 'done')).filter((n) => n.endsWith('.result.json')).length).toBeGreaterThanOrEqual(15), {
        timeout: 300_000,
        interval: 20,
      });
      watcher.kill('SIGKILL');
      await exited(watcher);
      await Promise.all(slowWrites);
      const finishedAtKill = readdirSync(join(dir, 'done')).filter((n) => n.endsWith('.result.json')).length + readdirSync(join(dir, 'failed')).filter((n) => n.endsWith('.result.json')).length;
      expect(finishedAtKill).toBeLessThan(100);
      expect(existsSync(join(dir, '.ecf-watch.lock'))).toBe(true); // left behind by the killed process; the next one takes it over

      watcher = startWatch(dataDir, dir);
      await vi.waitFor(
        () => {
          expect(readdirSync(inbox)).toEqual([]);
          expect(readdirSync(join(dir, 'processing'))).toEqual([]);
          const done = readdirSync(join(dir, 'done')).filter((n) => n.endsWith('.result.json')).length;
          const failed = readdirSync(join(dir, 'failed')).filter((n) => n.endsWith('.result.json')).length;
          expect(done + failed).toBe(100);
        },
        { timeout: 400_000, interval: 100 },
      );
    } finally {
      watcher.kill('SIGTERM');
      await exited(watcher);
    }

    const doneNames = readdirSync(join(dir, 'done'));
    const failedNames = readdirSync(join(dir, 'failed'));
    // Every valid file once in done (no NAME~2 copies), with its XML, PDF and result.
    const doneDrops = doneNames.filter((n) => !/\.(xml|pdf|result\.json)$/.test(n));
    expect(doneDrops.sort()).toEqual([...valid].sort());
    expect(failedNames.filter((n) => !n.endsWith('.result.json')).sort()).toEqual([...invalid.keys()].sort());

    const check = await openEngine({ dataDir });
    try {
      const ids = new Map<string, string>();
      for (const name of valid) {
        const stem = name.slice(0, -5);
        const r = JSON.parse(readFileSync(join(dir, 'done', `${stem}.result.json`), 'utf8')) as WatchResult;
        expect(r, name).toMatchObject({ ok: true, file: name, idempotencyKey: `watch:${name}` });
        expect(r.encf).toMatch(/^E31\d{10}$/);
        expect(readFileSync(join(dir, 'done', `${stem}.xml`)).equals((await ecfXml(check, tenantId, r.id!)).bytes), name).toBe(true);
        expect(readFileSync(join(dir, 'done', `${stem}.pdf`)).subarray(0, 5).toString(), name).toBe('%PDF-');
        ids.set(name, r.id!);
      }
      expect(ids.get('venta-010-otra-vez.json')).toBe(ids.get('venta-010.json'));
      expect(new Set(ids.values()).size).toBe(valid.length - 1);
      for (const [name, code] of invalid) {
        const stem = name.endsWith('.json') ? name.slice(0, -5) : name;
        const r = JSON.parse(readFileSync(join(dir, 'failed', `${stem}.result.json`), 'utf8')) as WatchResult;
        expect(r, name).toMatchObject({ ok: false, file: name, error: { code } });
        expect(r.error!.message.length).toBeGreaterThan(0);
        if (code === 'Validation.Failed') expect(r.error!.errors!.length).toBeGreaterThan(1);
      }

      // The database: one e-CF per sale, no internal number or e-NCF twice, and nothing beyond the dropped files.
      const rows = await check.db.selectFrom('ecf').select(['id', 'encf', 'internal_number', 'idempotency_key']).execute();
      expect(rows).toHaveLength(valid.length - 1);
      expect(new Set(rows.map((r) => r.encf)).size).toBe(rows.length);
      const numbered = rows.filter((r) => r.internal_number !== null);
      expect(numbered).toHaveLength(42 + 3);
      expect(new Set(numbered.map((r) => r.internal_number)).size).toBe(numbered.length);
      expect(new Set(rows.map((r) => r.idempotency_key)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids.values()));
    } finally {
      await check.close();
    }
  });
});

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN } from '../cli-runner.js';

/**
 * bin/ecf.js turns on Node's module compile cache (bin/compile-cache.js) before it loads the
 * bundle: where it writes, that NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE are obeyed,
 * and that a corrupt cache or two starts at once never change what a command does. The real
 * binary as a child process; only on a Node that has the cache (22.1 and later: CI's Node 24).
 */

const SLOW = 120_000;
const hasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `ecf <args>` with only the cache variables `env` gives (the caller's own are dropped). */
function ecf(args: string[], env: Record<string, string>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', 'CACHE_DIRECTORY', 'XDG_CACHE_HOME']) delete base[k];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/**
 * What is run each time: the manifest-only path, and a command whose module graph (the issue
 * command and the engine chunks it imports) loads and then refuses its flags before any store opens.
 */
const COMMANDS = [['--version'], ['issue', 'a.json', 'b.json', '--idempotency-key', 'k', '--json']];

const runAll = (env: Record<string, string>) => Promise.all(COMMANDS.map((args) => ecf(args, env)));

/** Every file under `dir`, recursively ([] when it does not exist). */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

// module.enableCompileCache exists from Node 22.1: skipped on an older Node, where bin/ecf.js runs without it.
describe.skipIf(!hasCache)('the compile cache of bin/ecf.js', () => {
  it('is written under $XDG_CACHE_HOME/ecf, and corrupt entries leave every command as it was', { timeout: SLOW }, async () => {
    const xdg = tempDir();
    const env = { XDG_CACHE_HOME: xdg };
    const first = await runAll(env);
    expect(first[0]!.code).toBe(0);
    expect(first[1]!.code).toBe(2);
    expect(JSON.parse(first[1]!.stdout).error.code).toBe('Issue.KeyForOneFile');
    const cached = files(join(xdg, 'ecf'));
    expect(cached.length).toBeGreaterThan(0);
    // The same again from the cache.
    expect(await runAll(env)).toEqual(first);

    // Garbage in the middle of every entry, same length.
    for (const f of cached) {
      const bytes = readFileSync(f);
      for (let i = Math.floor(bytes.length / 3); i < bytes.length; i += 7) bytes[i] = bytes[i]! ^ 0xa5;
      writeFileSync(f, bytes);
    }
    expect(await runAll(env)).toEqual(first);
    // Cut short (a write that died halfway), then empty.
    for (const f of files(join(xdg, 'ecf'))) truncateSync(f, Math.floor(statSync(f).size / 2));
    expect(await runAll(env)).toEqual(first);
    for (const f of files(join(xdg, 'ecf'))) truncateSync(f, 0);
    expect(await runAll(env)).toEqual(first);
    // A file where the cache's folder should be: the start goes on without a cache.
    const blocked = tempDir();
    writeFileSync(join(blocked, 'ecf'), 'not a folder');
    expect(await runAll({ XDG_CACHE_HOME: blocked })).toEqual(first);
  });

  it('four starts at once on an empty cache all answer alike, and the cache they leave works', { timeout: SLOW }, async () => {
    const env = { XDG_CACHE_HOME: tempDir() };
    const together = await Promise.all([1, 2, 3, 4].map(() => runAll(env)));
    for (const r of together) expect(r).toEqual(together[0]);
    expect(files(join(env.XDG_CACHE_HOME, 'ecf')).length).toBeGreaterThan(0);
    expect(await runAll(env)).toEqual(together[0]);
  });

  it('goes where NODE_COMPILE_CACHE or systemd (CACHE_DIRECTORY) says, and nowhere with NODE_DISABLE_COMPILE_CACHE', { timeout: SLOW }, async () => {
    const xdg = tempDir();
    const chosen = tempDir();
    await ecf(['--version'], { XDG_CACHE_HOME: xdg, NODE_COMPILE_CACHE: chosen });
    expect(files(chosen).length).toBeGreaterThan(0);
    expect(files(join(xdg, 'ecf'))).toEqual([]);

    const systemd = tempDir();
    await ecf(['--version'], { XDG_CACHE_HOME: xdg, CACHE_DIRECTORY: systemd });
    expect(files(systemd).length).toBeGreaterThan(0);
    expect(files(join(xdg, 'ecf'))).toEqual([]);

    const r = await ecf(['--version'], { XDG_CACHE_HOME: xdg, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.code).toBe(0);
    expect(files(xdg)).toEqual([]);
  });
});

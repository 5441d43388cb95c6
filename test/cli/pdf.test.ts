import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { invoice31, seedIssuer, tempDir, testDataDir } from '../helpers.js';
import { pdfInfo, pdfText } from '../engine/representation/read-back.js';
import { runEcf } from '../cli-runner.js';

/**
 * `ecf pdf` end to end: the built program, run in-process
 * (test/cli-runner.ts), over a data directory holding one issued e-CF, from
 * a working directory of the test's own (where the default file lands).
 */


interface Result {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

function run(args: string[], cwd: string): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ECF_DATA_DIR;
  return runEcf(args, { env, cwd });
}

describe('ecf pdf', () => {
  it('writes {RNC}{e-NCF}.pdf, a chosen file or stdout, in the layout asked for; refuses unknown e-CF and layouts', async () => {
    const dataDir = testDataDir('ecf-cli-pdf-');
    const engine = await openEngine({ dataDir });
    let encf: string;
    let rnc: string;
    try {
      ensureSecretStoreKey(dataDir);
      const { tenant } = await seedIssuer(engine);
      rnc = tenant.rnc;
      encf = (await issueEcf(engine, tenant.id, { idempotencyKey: 'k', payload: invoice31() })).ecf.encf;
    } finally {
      await engine.close();
    }
    const cwd = tempDir('ecf-cli-pdf-out-');
    const ecf = (args: string[]) => run([...args, '--data-dir', dataDir], cwd);

    // Without -o: the file named like the download, in the current directory; the tenant's default layout (letter).
    const plain = await ecf(['pdf', encf]);
    expect(plain.code, plain.stderr).toBe(0);
    const named = join(cwd, `${rnc}${encf}.pdf`);
    expect(plain.stdout.toString()).toContain(`${encf}: letter, 1 page`);
    expect(existsSync(named)).toBe(true);
    expect(pdfInfo(readFileSync(named)).size).toEqual([612, 792]);
    expect(pdfText(readFileSync(named))).toContain(`e-NCF: ${encf}`);

    // --layout and -o, with --json.
    const roll = await ecf(['pdf', encf, '--layout', 'pos', '-o', 'ticket.pdf', '--json']);
    expect(roll.code, roll.stderr).toBe(0);
    const result = JSON.parse(roll.stdout.toString());
    const bytes = readFileSync(join(cwd, 'ticket.pdf'));
    expect(result).toMatchObject({ encf, layout: 'pos', pages: 1, bytes: bytes.length, file: 'ticket.pdf' });
    expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(pdfInfo(bytes).size[0]).toBeCloseTo(226.77, 1);

    // -o - : the bytes alone on stdout, the same as the file.
    const piped = await ecf(['pdf', encf, '--layout', 'pos', '-o', '-']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.equals(bytes)).toBe(true);

    const unknown = await ecf(['pdf', 'E319999999999']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('Error [Ecf.NotFound]');
    const badLayout = await ecf(['pdf', encf, '--layout', 'a4']);
    expect(badLayout.code).toBe(2);
    expect(badLayout.stderr).toMatch(/letter, pos, pos58/);
  }, 120_000);
});

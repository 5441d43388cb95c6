import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor } from '../cli-runner.js';
import { tempDir } from '../helpers.js';
import { storeWith } from '../engine/export/copies.js';

const SLOW = 120_000;

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
});

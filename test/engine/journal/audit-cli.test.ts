import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../../src/engine/engine.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { JOURNAL_KINDS } from '../../../src/engine/journal/index.js';
import { ensureSecretStoreKey } from '../../../src/engine/secrets/key-file.js';
import { tenantKey } from '../../../src/engine/tenants/lookup.js';
import { runEcf } from '../../cli-runner.js';
import { invoice31, seedIssuer, testDataDir } from '../../helpers.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('ecf audit verify', () => {
  it('exits 0 on a journal that verifies, and 1 naming the tenant, seq, kind and e-NCF of the first broken entry', async () => {
    const dataDir = testDataDir('ecf-cli-audit-');
    const engine = await openEngine({ dataDir });
    let rnc: string;
    let entries: number;
    try {
      ensureSecretStoreKey(dataDir);
      const { tenant } = await seedIssuer(engine);
      rnc = tenant.rnc;
      for (let i = 1; i <= 3; i++) await issueEcf(engine, tenant.id, { idempotencyKey: `a-${i}`, payload: invoice31({ internalNumber: `A-${i}` }) });
      entries = (await engine.db.selectFrom('journal').select((b) => b.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n as number;
    } finally {
      await engine.close();
    }
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.ECF_DATA_DIR;
    const ok = await runEcf(['audit', 'verify', '--data-dir', dataDir, '--json'], { env, cwd: ROOT });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(String(ok.stdout))).toMatchObject({ broken: 0, entries: Number(entries!), tenants: [{ rnc, entries: Number(entries!), ecf: 3, problem: null }] });

    const again = await openEngine({ dataDir });
    let seq: number;
    try {
      const key = await tenantKey(again.db, (await again.db.selectFrom('tenants').select('id').executeTakeFirstOrThrow()).id);
      const ecf = await again.db.selectFrom('ecf').select('store_key').where('encf', '=', 'E310000000002').executeTakeFirstOrThrow();
      seq = Number((await again.db.selectFrom('journal').select('seq').where('tenant_key', '=', key).where('kind', '=', JOURNAL_KINDS['ecf.issued']).where('ecf_key', '=', ecf.store_key).executeTakeFirstOrThrow()).seq);
      await again.db.updateTable('journal').set({ at: 1 }).where('tenant_key', '=', key).where('seq', '=', seq).execute();
    } finally {
      await again.close();
    }
    const broken = await runEcf(['audit', 'verify', '--data-dir', dataDir, '--tenant', rnc!], { env, cwd: ROOT });
    expect(broken.code, broken.stderr).toBe(1);
    expect(String(broken.stdout)).toMatch(new RegExp(`BROKEN tenant ${rnc!} \\([0-9a-f-]+\\) seq ${seq!} ecf.issued e-NCF E310000000002: its stored link`));
    expect(String(broken.stdout)).toContain('1 tenant(s) BROKEN');
  });
});

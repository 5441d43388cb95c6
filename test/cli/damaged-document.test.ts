import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { ensureSecretStoreKey } from '../../src/engine/secrets/key-file.js';
import { runEcf } from '../cli-runner.js';
import { invoice31, seedIssuer, testDataDir } from '../helpers.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('ecf xml over a damaged stored document', () => {
  it('prints one clear line naming the e-CF and exits 1, writing none of the bytes', async () => {
    const dataDir = testDataDir('ecf-cli-damaged-');
    const engine = await openEngine({ dataDir });
    let ecf;
    try {
      ensureSecretStoreKey(dataDir);
      const { tenant } = await seedIssuer(engine);
      ecf = (await issueEcf(engine, tenant.id, { idempotencyKey: 'damaged', payload: invoice31() })).ecf;
      const id = ecf.id;
      const { xml } = await engine.db.selectFrom('ecf_documents').select('xml').where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', id)).executeTakeFirstOrThrow();
      const flipped = Buffer.from(xml);
      flipped[xml.length - 20]! ^= 0x04;
      await engine.db.updateTable('ecf_documents').set({ xml: flipped }).where('ecf_key', '=', (eb) => eb.selectFrom('ecf').select('store_key').where('id', '=', id)).execute();
    } finally {
      await engine.close();
    }
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.ECF_DATA_DIR;
    const r = await runEcf(['xml', ecf.id, '--data-dir', dataDir], { env, cwd: ROOT });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toContain('Error [Store.DocumentDamaged]');
    expect(r.stderr).toContain(`ecf_documents.xml ${ecf.id} (e-NCF ${ecf.encf}) is damaged`);
  });
});

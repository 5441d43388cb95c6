import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFor } from '../cli-runner.js';
import { openEngine } from '../../src/engine/engine.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { invoice31, seedIssuer, testDataDir } from '../helpers.js';

/** `ecf issue` honours the tenant's issuing.wait_for_verdict_seconds, as POST /api/v1/ecf does. */
describe('ecf issue and the tenant’s wait for the verdict', () => {
  it('answers signed when the tenant does not wait, and with the verdict when it does', async () => {
    const sandbox = await startSandbox();
    try {
      const dataDir = testDataDir();
      const engine = await openEngine({ dataDir });
      const { tenant } = await seedIssuer(engine);
      await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
      await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
      await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
      await engine.close();
      const { ecf } = cliFor(dataDir);
      const issue = async (name: string) => {
        const file = join(dataDir, `${name}.json`);
        writeFileSync(file, JSON.stringify(invoice31({ internalNumber: name })));
        const run = await ecf(['issue', file, '--tenant', tenant.id, '--json']);
        expect(run.code, run.stderr).toBe(0);
        return JSON.parse(run.stdout).results[0].ecf as { status: string; taxauth: { statusCode: number } };
      };

      expect((await issue('no-wait')).status).toBe('signed');

      const again = await openEngine({ dataDir });
      await setSetting(again, 'issuing.wait_for_verdict_seconds', 10, tenant.id);
      await again.close();
      expect(await issue('wait')).toMatchObject({ status: 'accepted', taxauth: { statusCode: 1 } });
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { cliFor } from '../cli-runner.js';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { getEcf } from '../../src/engine/ecf/queries.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { runDueWork } from '../../src/engine/work/run.js';
import { WORK_HANDLERS } from '../../src/engine/work-handlers.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { invoice31, seedIssuer, testDataDir } from '../helpers.js';


const ecf = (dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}) => cliFor(dataDir, env).ecf([...args, '--json']);

describe('ecf attempts | status | retry | contingency | taxauth check', () => {
  it('shows the submission history and state, refuses a retry the authority consumed, switches contingency, checks the connection', async () => {
    const sandbox = await startSandbox();
    try {
      const dataDir = testDataDir();
      const engine = await openEngine({ dataDir });
      const { tenant } = await seedIssuer(engine);
      await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
      await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
      const issued = (await issueEcf(engine, tenant.id, { idempotencyKey: 'cli', payload: invoice31() })).ecf;
      sandbox.control.script({ encf: issued.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Rechazado por prueba' }] }] });
      // The real clock: the first status query is due two seconds after sending.
      for (let i = 0; i < 40 && (await getEcf(engine, tenant.id, issued.id)).status === 'signed'; i++) {
        await runDueWork(engine, { owner: 'cli-test', handlers: WORK_HANDLERS });
        await new Promise((r) => setTimeout(r, 250));
      }
      await engine.close();

      const attempts = await ecf(dataDir, ['attempts', issued.encf]);
      expect(attempts.code, attempts.stderr).toBe(0);
      expect(JSON.parse(attempts.stdout)).toEqual([expect.objectContaining({ attempt: 1, outcome: 'rejected', statusCode: 2 })]);
      const status = JSON.parse((await ecf(dataDir, ['status', issued.encf])).stdout);
      expect(status).toMatchObject({ encf: issued.encf, status: 'rejected', taxauth: { sequenceUsed: true } });
      const retry = await ecf(dataDir, ['retry', issued.encf]);
      expect(retry.code).toBe(4);
      expect(JSON.parse(retry.stdout).error.code).toBe('Ecf.SequenceConsumed');
      expect(JSON.parse((await ecf(dataDir, ['contingency', 'on'])).stdout)).toMatchObject({ active: true, source: 'manual' });
      expect(JSON.parse((await ecf(dataDir, ['contingency', 'off'])).stdout)).toMatchObject({ active: false });
      const check = await ecf(dataDir, ['taxauth', 'check', '--env', 'test'], { ECF_TAXAUTH_SANDBOX_URL: sandbox.url });
      expect(check.code, check.stderr).toBe(0);
      const result = JSON.parse(check.stdout);
      expect(result).toMatchObject({ environment: 'test', ok: true, authenticated: true, error: null });
      for (const token of sandbox.control.issuedTokens()) expect(check.stdout + check.stderr).not.toContain(token);
    } finally {
      await sandbox.close();
    }
  }, 120_000);
});

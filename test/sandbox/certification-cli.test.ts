import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPaso2Workbook, readPaso3Workbook } from '../../src/engine/certification/workbook.js';
import { openEngine } from '../../src/engine/engine.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliFor } from '../cli-runner.js';
import { seedTenant, tempDir, testDataDir } from '../helpers.js';

/** A data directory with one tenant whose cert environment is `certUrl`. */
async function tenantWithCert(certUrl: string) {
  const dataDir = testDataDir();
  const engine = await openEngine({ dataDir });
  const { tenant } = await seedTenant(engine);
  await setSetting(engine, 'taxauth.url.cert', certUrl);
  await engine.close();
  return { dataDir, tenant, out: tempDir(), ...cliFor(dataDir) };
}

// Each `ecf` run starts a whole process (several seconds on a busy machine): two per test.
describe('ecf certify workbook (the built binary)', { timeout: 60_000 }, () => {
  it("writes the sandbox's Paso 2 and 3 workbooks for the tenant's RNC, making the set on first use", async () => {
    const sandbox = await startSandbox();
    try {
      const { tenant, out, json } = await tenantWithCert(`${sandbox.url}/certecf`);

      const two = await json(['certify', 'workbook', '--paso', '2', '--out', join(out, 'paso2.xlsx'), '--variant', 'section8']);
      expect(two).toMatchObject({ rnc: tenant.rnc, paso: 2, variant: 'section8', newSet: true, sandbox: sandbox.url });
      const paso2 = await readPaso2Workbook(readFileSync(join(out, 'paso2.xlsx')));
      expect(paso2.rows.filter((r) => r.sheet === 'ECF')).toHaveLength(8);
      expect(paso2.rows.every((r) => r.cells.RNCEmisor === tenant.rnc)).toBe(true);

      // The same set for Paso 3 (no variant: the one the sandbox holds).
      const three = await json(['certify', 'workbook', '--paso', '3', '--out', join(out, 'paso3.xlsx')]);
      expect(three).toMatchObject({ paso: 3, variant: 'section8', newSet: false });
      const paso3 = await readPaso3Workbook(readFileSync(join(out, 'paso3.xlsx')));
      expect(paso3.rows.every((r) => r.cells.RNCComprador === tenant.rnc)).toBe(true);
      expect(sandbox.control.certification.progress(tenant.rnc)?.paso2.ecf.text).toBe('0/7 Comprobantes Aceptados');
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a cert environment that is the tax authority, naming the portal button, and says how to start the sandbox when nothing answers', async () => {
    const real = await tenantWithCert('https://ecf.dgii.gov.do/CerteCF');
    const refused = await real.ecf(['certify', 'workbook', '--paso', '2', '--out', join(real.out, 'real.xlsx')]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('Certification.NotSandbox');
    expect(refused.stderr).toContain('DESCARGAR COMPROBANTES');
    expect(existsSync(join(real.out, 'real.xlsx'))).toBe(false);

    const down = await tenantWithCert('http://127.0.0.1:9/certecf');
    const answer = await down.ecf(['certify', 'workbook', '--paso', '2', '--out', join(down.out, 'down.xlsx')]);
    expect(answer.code).toBe(6);
    expect(answer.stderr).toContain('cannot be reached');
    expect(answer.stderr).toContain('ecf sandbox');
  });
});

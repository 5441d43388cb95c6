import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPaso2Workbook, readPaso3Workbook } from '../../src/engine/certification/workbook.js';
import { openEngine } from '../../src/engine/engine.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliFor } from '../cli-runner.js';
import { seedTenant, tempDir, testDataDir } from '../helpers.js';

describe('ecf certify workbook (the built binary)', () => {
  it("writes the sandbox's Paso 2 and 3 workbooks for the tenant's RNC, making the set on first use, and refuses a cert environment that is the tax authority", async () => {
    const sandbox = await startSandbox();
    try {
      const dataDir = testDataDir();
      const engine = await openEngine({ dataDir });
      const { tenant } = await seedTenant(engine);
      await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
      await engine.close();
      const out = tempDir();
      const { json, ecf } = cliFor(dataDir);

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

      // A cert environment that is the tax authority: refused, naming the portal's button; nothing is written.
      const e2 = await openEngine({ dataDir });
      await setSetting(e2, 'taxauth.url.cert', 'https://ecf.dgii.gov.do/CerteCF');
      await e2.close();
      const refused = await ecf(['certify', 'workbook', '--paso', '2', '--out', join(out, 'real.xlsx')]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain('Certification.NotSandbox');
      expect(refused.stderr).toContain('DESCARGAR COMPROBANTES');

      // Something that is not the sandbox (nothing listens there): unavailable, saying how to start it.
      const e3 = await openEngine({ dataDir });
      await setSetting(e3, 'taxauth.url.cert', 'http://127.0.0.1:9/certecf');
      await e3.close();
      const down = await ecf(['certify', 'workbook', '--paso', '2', '--out', join(out, 'down.xlsx')]);
      expect(down.code).toBe(6);
      expect(down.stderr).toContain('cannot be reached');
    } finally {
      await sandbox.close();
    }
  });
});

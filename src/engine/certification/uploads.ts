import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../engine.js';
import { EngineError } from '../errors.js';
import { loadCases } from './cases.js';
import { uploadFileName } from './rules.js';
import { recordPaso, requireCertification } from './state.js';

/**
 * The full consumo e-CF 32 (under DOP 250,000) of Paso 2: they are not sent
 * to the authority's reception; the person uploads them in the portal's
 * "Facturas de consumo < 250Mil" box. These are the exact signed bytes whose
 * security code went into the RFCE already sent (NOTES §9), never re-signed.
 */
export async function writeConsumoUploads(engine: Engine, tenantId: string, dir: string): Promise<{ dir: string; files: string[] }> {
  const cases = (await loadCases(engine, tenantId, 2)).filter((c) => c.phase === 'upload');
  if (cases.length === 0) throw new EngineError('conflict', 'Certification.NoConsumoCases', 'The imported Paso 2 workbook has no consumo e-CF 32 under DOP 250,000 (no RFCE rows).');
  const unbuilt = cases.filter((c) => !c.xml);
  if (unbuilt.length > 0) {
    throw new EngineError('conflict', 'Certification.NotPrepared', `The consumo e-CF are not built yet (${unbuilt.map((c) => c.encf).join(', ')}): run \`ecf certify run\` first.`);
  }
  mkdirSync(dir, { recursive: true });
  const files = cases.map((c) => {
    const name = uploadFileName(c.cells['RNCEmisor'] ?? '', c.encf);
    writeFileSync(join(dir, name), c.xml!);
    return name;
  });
  const paso2 = (await requireCertification(engine, tenantId)).pasos[2];
  await recordPaso(engine, tenantId, 2, { state: paso2.state, detail: { uploads: { dir, files } } });
  return { dir, files };
}

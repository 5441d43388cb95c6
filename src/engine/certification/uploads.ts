import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { caseXml, loadCases } from './cases.js';
import { rfceStandings, type RfceStanding } from './consumo-binding.js';
import { uploadFileName } from './rules.js';
import { recordPaso, requireCertification } from './state.js';

/**
 * The full consumo e-CF 32 (under DOP 250,000) of Paso 2: they are not sent
 * to the authority's reception; the person uploads them in the portal's
 * "Facturas de consumo < 250Mil" box, which takes a file only when its
 * security code is the one its accepted RFCE carries (NOTES §9). So only
 * after every RFCE is accepted, and always the exact signed bytes whose code
 * went into the accepted RFCE, whatever generation signed them
 * (consumo-binding.ts): never a later signature of the same row.
 */
export async function writeConsumoUploads(engine: Engine, tenantId: string, dir: string): Promise<{ dir: string; files: string[] }> {
  const cases = (await loadCases(engine, tenantId, 2)).filter((c) => c.phase === 'upload');
  if (cases.length === 0) throw new EngineError('conflict', 'Certification.NoConsumoCases', 'The imported Paso 2 workbook has no consumo e-CF 32 under DOP 250,000 (no RFCE rows).');
  const standings = await rfceStandings(engine.db, tenantId, cases[0]!.generation);
  const bound = cases.map((c) => standings.get(c.encf) ?? ({ encf: c.encf, standing: 'unsent' } as const));
  const missing = bound.filter((s) => s.standing !== 'accepted');
  if (missing.length > 0) {
    throw new EngineError(
      'conflict',
      'Certification.RfceNotAccepted',
      `The portal takes a consumo e-CF only once the authority has accepted its RFCE, whose security code the file must carry. ` +
        `Not accepted: ${missing.map((s) => `the RFCE of ${s.encf} (${WHY[s.standing]})`).join(', ')}. ` +
        'Run `ecf certify run` until every RFCE is accepted, then write the files again; nothing was written.',
    );
  }
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const s of bound) {
    const { ecf32 } = (s as Extract<RfceStanding, { standing: 'accepted' }>).binding;
    const c = cases.find((x) => x.encf === s.encf)!;
    const name = uploadFileName(c.cells['RNCEmisor'] ?? '', c.encf);
    writeFileSync(join(dir, name), await caseXml(engine, { ...ecf32, xmlSha256: ecf32.xml_sha256 }));
    files.push(name);
  }
  const paso2 = (await requireCertification(engine, tenantId)).pasos[2];
  await recordPaso(engine, tenantId, 2, { state: paso2.state, detail: { uploads: { dir, files } } });
  return { dir, files };
}

const WHY: Record<Exclude<RfceStanding['standing'], 'accepted'>, string> = {
  unsent: 'not sent yet',
  pending: 'sent, verdict not known yet',
  rejected: 'rejected',
};

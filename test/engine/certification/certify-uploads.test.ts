import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { runCertificationSet } from '../../../src/engine/certification/run.js';
import { caseXml, loadCases } from '../../../src/engine/certification/cases.js';
import { certificationReport } from '../../../src/engine/certification/report.js';
import { writeConsumoUploads } from '../../../src/engine/certification/uploads.js';
import { tempDir } from '../../helpers.js';
import { sandboxSetHarness } from './certify-harness.js';

type Portal = { paso2: { ecf: { accepted: number; encfs: string[] }; rfce: { accepted: number }; consumo: { accepted: number } } };

/** Uploads a file in the sandbox's "Facturas de consumo < 250Mil" box, as the person does in the portal. */
async function uploadConsumo(base: string, file: string): Promise<{ accepted: boolean; messages: string[] }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)], { type: 'text/xml' }), file.split('/').at(-1));
  return (await (await fetch(`${base}/consumo`, { method: 'POST', body: form })).json()) as { accepted: boolean; messages: string[] };
}

// Whole Paso 2 sets signed and sent over loopback: well under a minute alone, more on a busy machine.
describe('ecf certify uploads and the counters after a rejection (issue 32, points 1, 2 and 5)', { timeout: 120_000 }, () => {
  it('refuses to write the consumo files while an RFCE is not accepted, naming it, and writes nothing', async () => {
    const h = await sandboxSetHarness('section8');
    await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    const cases = await loadCases(h.engine, h.tenant.id, 2);
    const rfce = cases.filter((c) => c.phase === 'rfce');
    const dir = join(tempDir(), 'consumo');
    await expect(writeConsumoUploads(h.engine, h.tenant.id, dir)).rejects.toMatchObject({ code: 'Certification.RfceNotAccepted' });

    // A run stopped by a rejected ordinary e-CF: the consumo 32s are built, but no RFCE went out.
    const target = cases.find((c) => c.phase === 'ecf')!;
    h.sandbox.control.script({ encf: target.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    expect((await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait })).outcome).toBe('stopped');
    const built = (await loadCases(h.engine, h.tenant.id, 2)).filter((c) => c.phase === 'upload');
    expect(built.every((c) => c.xml !== null)).toBe(true);
    const refused = writeConsumoUploads(h.engine, h.tenant.id, dir);
    await expect(refused).rejects.toMatchObject({ code: 'Certification.RfceNotAccepted', kind: 'conflict' });
    const message = await refused.catch((e: Error) => e.message);
    for (const r of rfce) expect(message).toContain(`the RFCE of ${r.encf} (not sent yet)`);
    expect(message).toContain('ecf certify run');
    expect(existsSync(dir)).toBe(false);
  });

  it('sends no e-CF after one whose rejection it knows, and counts as the portal does what went out before it knew', async () => {
    const h = await sandboxSetHarness('section8');
    await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    const ordinary = (await loadCases(h.engine, h.tenant.id, 2)).filter((c) => c.phase === 'ecf');
    expect(ordinary.length).toBeGreaterThanOrEqual(5);
    // The second e-CF the run sends is rejected, its verdict hidden for two result queries ("En Proceso").
    const target = ordinary[1]!;
    h.sandbox.control.script({ encf: target.encf, outcomes: [{ kind: 'inProcess', queries: 2, then: { kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] } }] });
    const sent: string[] = [];
    const result = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait, onEvent: (e) => void (e.type === 'sent' && sent.push(e.case.encf)) });
    expect(result.outcome).toBe('stopped');
    expect(result.rejected.map((r) => r.encf)).toEqual([target.encf]);
    // Before each e-CF the run asks about those still out: two went out while the verdict was "En Proceso",
    // none once it was known.
    expect(sent).toEqual(ordinary.slice(0, 4).map((c) => c.encf));
    const portal = (await h.progress()) as unknown as Portal;
    // The portal restarted the counter at the rejection: only the two sent after it count.
    expect(portal.paso2.ecf.encfs.sort()).toEqual(ordinary.slice(2, 4).map((c) => c.encf).sort());
    expect(result.counts.ecf.accepted).toBe(2);
    expect(portal.paso2.ecf.accepted).toBe(2);
    expect((await certificationReport(h.engine, h.tenant.id)).counts.ecf.accepted).toBe(portal.paso2.ecf.accepted);
  });

  it('a rejection known at once: nothing more goes out, and the counter is 0 as in the portal', async () => {
    const h = await sandboxSetHarness('section8');
    await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    const ordinary = (await loadCases(h.engine, h.tenant.id, 2)).filter((c) => c.phase === 'ecf');
    const target = ordinary[1]!;
    h.sandbox.control.script({ encf: target.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    const sent: string[] = [];
    const result = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait, onEvent: (e) => void (e.type === 'sent' && sent.push(e.case.encf)) });
    expect(result.outcome).toBe('stopped');
    expect(sent).toEqual([ordinary[0]!.encf, target.encf]);
    const portal = (await h.progress()) as unknown as Portal;
    expect(portal.paso2.ecf.accepted).toBe(0);
    expect(result.counts.ecf.accepted).toBe(0);
  });

  it('a late Paso 2 reset: the consumo files handed out are the bytes whose codes the accepted RFCE carry, and the portal takes them', async () => {
    const h = await sandboxSetHarness('full');
    const first = await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    expect(first.kept).toEqual([]);
    const cases = await loadCases(h.engine, h.tenant.id, 2);
    const note = cases.find((c) => c.phase === 'note')!;
    h.sandbox.control.script({ encf: note.encf, outcomes: [{ kind: 'reject', messages: [{ code: 614, value: 'El eNCF modificado no ha sido emitido' }] }] });
    const stopped = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait });
    expect(stopped.outcome).toBe('stopped');
    expect(stopped.counts.rfce).toEqual({ accepted: 4, total: 4 });
    const gen1 = (await loadCases(h.engine, h.tenant.id, 2)).filter((c) => c.phase === 'upload' || c.phase === 'rfce');

    // A new import a day later: a new generation, the same rows.
    h.engine.clock.advance(24 * 3600_000);
    const again = await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2-again.xlsx');
    expect(again.generation).toBe(2);
    expect([...again.kept].sort()).toEqual(gen1.filter((c) => c.phase === 'rfce').map((c) => c.encf).sort());
    const sent: string[] = [];
    const second = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait, onEvent: (e) => void (e.type === 'sent' && sent.push(e.case.encf)) });
    expect(second.outcome).toBe('done');
    // The accepted RFCE are not sent again (the authority keeps them).
    expect(sent.filter((e) => gen1.some((c) => c.kind === 'rfce' && c.encf === e))).toEqual([]);

    const dir = tempDir();
    const written = await writeConsumoUploads(h.engine, h.tenant.id, dir);
    expect(written.files).toHaveLength(4);
    for (const f of readdirSync(dir)) {
      const old = gen1.find((c) => c.phase === 'upload' && f === `${h.rnc}${c.encf}.xml`)!;
      expect(readFileSync(join(dir, f)).equals(await caseXml(h.engine, old))).toBe(true);
      expect(await uploadConsumo(h.base, join(dir, f))).toMatchObject({ accepted: true, messages: [] });
    }
    const portal = (await h.progress()) as unknown as Portal & { paso2: { done: boolean } };
    expect(portal.paso2).toMatchObject({ done: true, ecf: { accepted: 21 }, rfce: { accepted: 4 }, consumo: { accepted: 4 } });
    const report = await certificationReport(h.engine, h.tenant.id);
    expect(report.counts).toMatchObject({ ecf: { accepted: 21, total: 21 }, rfce: { accepted: 4, total: 4 }, uploads: 4 });
    expect(report.pasos.find((p) => p.paso === 2)!.state).toBe('done');
  });
});

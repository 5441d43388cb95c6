import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSimulation } from '../../../src/engine/certification/simulation.js';
import { PRINT_SLOTS, renderPrintSlots } from '../../../src/engine/certification/print-slots.js';
import { getCertification } from '../../../src/engine/certification/state.js';
import { pdfText, qrCodes, renderPages } from '../representation/read-back.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { seedIssuer, tempDir, testDataDir } from '../../helpers.js';
import { cliFor } from '../../cli-runner.js';
import { openEngine } from '../../../src/engine/engine.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { startCertification } from '../../../src/engine/certification/state.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { certificationHarness } from './simulation-harness.js';

describe('Pasos 5–6: one printed representation per portal slot, 10 MB in all', () => {
  it('renders the 11 slots from accepted simulation e-CF, named by slot, each showing its e-NCF and the certecf QR host; records Paso 5', async () => {
    const h = await certificationHarness();
    const sim = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(sim.complete).toBe(true);
    const out = join(tempDir(), 'pdfs');
    const r = await renderPrintSlots(h.engine, h.tenant.id, { outDir: out });
    expect(r.complete).toBe(true);
    expect(r.missing).toEqual([]);
    expect(r.files.map((f) => f.label)).toEqual(['31', '33', '34', '41', '43', '44', '45', '46', '47', '32 >=RD$250mil', '32 < RD$250mil']);
    expect(readdirSync(out).sort()).toEqual(r.files.map((f) => f.file).sort());
    expect(r.files.map((f) => f.file.replace(/_E\d{12}\.pdf$/, ''))).toEqual([
      '01_tipo-31', '02_tipo-33', '03_tipo-34', '04_tipo-41', '05_tipo-43', '06_tipo-44', '07_tipo-45', '08_tipo-46', '09_tipo-47', '10_tipo-32-mayor-o-igual-250mil', '11_tipo-32-menor-250mil',
    ]);
    const accepted = new Set(sim.slots.flatMap((s) => s.documents.filter((d) => d.status === 'accepted').map((d) => d.encf)));
    let total = 0;
    for (const f of r.files) {
      const pdf = readFileSync(join(out, f.file));
      total += pdf.length;
      expect(pdf.length).toBe(f.bytes);
      expect(f.file).toContain(f.encf);
      expect(accepted.has(f.encf)).toBe(true);
      expect(f.encf.slice(1, 3)).toBe(f.slot.slice(0, 2));
      const text = pdfText(pdf);
      expect(text, f.file).toContain(f.encf);
    }
    // The QR a phone reads points at the certification host the documents were sent to.
    const first = r.files[0]!;
    const [png] = renderPages(readFileSync(join(out, first.file)), { dpi: 200 });
    const qr = (await getEcf(h.engine, h.tenant.id, first.ecfId)).qrUrl;
    expect(qr).toMatch(/^https:\/\/ecf\.dgii\.gov\.do\/certecf\/consultatimbre\?/);
    expect(qrCodes(png!)).toEqual([qr]);
    expect(r.totalBytes).toBe(total);
    expect(total).toBeLessThanOrEqual(10_000_000);
    const paso5 = (await getCertification(h.engine, h.tenant.id))!.pasos[5];
    expect(paso5).toMatchObject({ state: 'done', detail: { files: r.files.map((f) => f.file), totalBytes: total } });

    const roll = await renderPrintSlots(h.engine, h.tenant.id, { outDir: join(tempDir(), 'roll'), layout: 'roll' });
    expect(roll.files).toHaveLength(11);
    expect(pdfText(readFileSync(join(roll.outDir, roll.files[0]!.file)))).toContain(roll.files[0]!.encf);
  });

  it('refuses when the total is over the limit, with every size, and writes nothing', async () => {
    const h = await certificationHarness();
    await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    const out = join(tempDir(), 'too-big');
    const err = await renderPrintSlots(h.engine, h.tenant.id, { outDir: out, maxTotalBytes: 20_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'Certification.PrintTooLarge', kind: 'too_large' });
    const message = (err as Error).message;
    expect(message).toMatch(/The 11 PDFs add up to \d+ bytes .* over the portal's 20000 bytes/);
    for (const s of PRINT_SLOTS) expect(message).toContain(`${s.label}: `);
    expect(existsSync(out)).toBe(false);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[5].state).toBe('failed');
  });

  it('names each slot without an accepted simulation e-CF and prints the others', async () => {
    const h = await certificationHarness();
    // Every 46 rejected: the slot stays empty.
    for (const encf of ['E460000000011', 'E460000000012']) {
      h.sandbox.control.script({ encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Rechazado' }] }] });
    }
    await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    const out = join(tempDir(), 'partial');
    const r = await renderPrintSlots(h.engine, h.tenant.id, { outDir: out });
    expect(r.complete).toBe(false);
    // The rejections stopped the run before the notes: 33, 34 and 46 have no accepted e-CF.
    expect(r.missing).toEqual([{ slot: '33', label: '33' }, { slot: '34', label: '34' }, { slot: '46', label: '46' }]);
    expect(r.files).toHaveLength(8);
    expect(r.note).toContain('"33", "34", "46"');
    expect(statSync(out).isDirectory()).toBe(true);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[5]).toMatchObject({ state: 'in_progress', detail: { missing: ['33', '34', '46'] } });
  });
});

describe('ecf certify simulate | print (the built binary)', () => {
  /** A data directory with a tenant ready to issue, its cert environment the sandbox, its certification started. */
  async function dataDirWithSandbox() {
    const sandbox = await startSandbox();
    closing.push(() => sandbox.close());
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    await setSetting(engine, 'taxauth.url.cert', `${sandbox.url}/certecf`);
    await setSetting(engine, 'taxauth.fc_url.cert', `${sandbox.url}/certecf`);
    await startCertification(engine, tenant.id);
    return { dataDir, engine, tenant };
  }
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closing.length) await closing.pop()!();
  });

  it('simulate issues the quota with --json, and nothing the second time', async () => {
    const { dataDir, engine } = await dataDirWithSandbox();
    await engine.close();
    const { json } = cliFor(dataDir);
    const first = await json(['certify', 'simulate', '--wait', '30']);
    expect(first).toMatchObject({ complete: true, accepted: 25, total: 25, issuedNow: 25, round: 1 });
    const again = await json(['certify', 'simulate']);
    expect(again).toMatchObject({ complete: true, issuedNow: 0 });
  }, 120_000);

  it('print writes the 11 PDFs and shows them by slot', async () => {
    const { dataDir, engine, tenant } = await dataDirWithSandbox();
    expect((await runSimulation(engine, tenant.id, { waitSeconds: 30 })).complete).toBe(true);
    await engine.close();
    const out = join(tempDir(), 'slots');
    const people = await cliFor(dataDir).ecf(['certify', 'print', '--out', out, '--layout', 'roll']);
    expect(people.code, people.stderr).toBe(0);
    expect(people.stdout).toContain('32 >=RD$250mil');
    expect(people.stdout).toMatch(/11 files, \d+ bytes of 10000000 allowed/);
    expect(readdirSync(out)).toHaveLength(11);
  }, 120_000);

  it('exits 1 and names the empty slots when nothing was simulated', async () => {
    const dataDir = testDataDir();
    const engine = await openEngine({ dataDir });
    const { tenant } = await seedIssuer(engine);
    await startCertification(engine, tenant.id);
    await engine.close();
    const r = await cliFor(dataDir).ecf(['certify', 'print', '--out', join(tempDir(), 'none')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('slot "32 < RD$250mil": no accepted simulation e-CF, no file');
  }, 60_000);
});

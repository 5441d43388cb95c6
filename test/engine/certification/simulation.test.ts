import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumoFileName, runSimulation } from '../../../src/engine/certification/simulation.js';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { ecfXml } from '../../../src/engine/ecf/queries.js';
import { SIMULATION_EXAMPLES } from '../../../src/engine/certification/simulation-examples.js';
import { SIMULATION_SLOTS } from '../../../src/engine/certification/simulation-slots.js';
import { getCertification } from '../../../src/engine/certification/state.js';
import { certificationReport, reportText } from '../../../src/engine/certification/report.js';
import { listRanges } from '../../../src/engine/sequences/ranges.js';
import { getEcf } from '../../../src/engine/ecf/queries.js';
import { tempDir } from '../../helpers.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { PASO2_ENCFS, certificationHarness } from './simulation-harness.js';
import { paso4Needs } from '../../../src/engine/certification/paso4-needs.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { setNextNumber } from '../../../src/engine/sequences/next-number.js';
import { setEmitterProfile } from '../../../src/engine/tenants/emitter-profile.js';
import { emitterProfile } from '../../helpers.js';

const QUOTA: Record<string, number> = { '31': 4, '32': 2, '32-rfce': 4, '33': 1, '34': 2, '41': 2, '43': 2, '44': 2, '45': 2, '46': 2, '47': 2 };
const sequentialOf = (encf: string) => Number(encf.slice(3));

describe('Paso 4: the simulation quota, issued through the normal path in cert (sandbox over HTTP)', () => {
  it('issues the quota per type with new e-NCFs above the Paso 2 ones, notes modifying accepted simulation e-CF, and records Paso 4', async () => {
    const h = await certificationHarness();
    const r = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(r.complete).toBe(true);
    expect(r.accepted).toBe(25);
    expect(r.issuedNow).toBe(25);
    expect(Object.fromEntries(r.slots.map((s) => [s.slot, s.accepted]))).toEqual(QUOTA);
    expect(r.slots.every((s) => s.source === 'examples')).toBe(true);

    const docs = r.slots.flatMap((s) => s.documents.map((d) => ({ ...d, slot: s.slot })));
    // Every e-NCF new: above the highest the Paso 2 workbook used for its type.
    for (const d of docs) {
      const type = d.encf.slice(1, 3);
      const paso2 = PASO2_ENCFS.filter((e) => e.slice(1, 3) === type).map(sequentialOf);
      expect(sequentialOf(d.encf), d.encf).toBeGreaterThan(Math.max(...paso2));
    }
    expect(new Set(docs.map((d) => d.encf)).size).toBe(25);
    // Through the normal path, in cert: the sandbox's certecf received each one (the 32s under 250,000 as RFCE).
    for (const d of docs) {
      const ecf = await getEcf(h.engine, h.tenant.id, d.id);
      expect(ecf).toMatchObject({ environment: 'cert', status: 'accepted' });
      expect(ecf.submitsRfce).toBe(d.slot === '32-rfce');
      expect(h.sandbox.control.submissions({ encf: d.encf, environment: 'certecf' }).length, d.encf).toBeGreaterThanOrEqual(1);
    }
    // The notes modify accepted simulation e-CF (of type 31, as the examples ask), each a different one.
    const notes = docs.filter((d) => d.slot === '33' || d.slot === '34');
    const originals = new Set(docs.filter((d) => d.slot === '31').map((d) => d.encf));
    expect(notes).toHaveLength(3);
    for (const n of notes) expect(originals.has(n.modifies!)).toBe(true);
    expect(new Set(notes.map((n) => n.modifies)).size).toBe(3);

    // Ranges added in cert, from just above the Paso 2 numbers to the portal's 10,000,000.
    const cert = (await listRanges(h.engine, h.tenant.id)).filter((x) => x.environment === 'cert');
    expect(cert.find((x) => x.type === 31)).toMatchObject({ rangeFrom: 10, rangeTo: 10_000_000, expiresOn: '2028-12-31' });
    expect(cert.find((x) => x.type === 32)).toMatchObject({ rangeFrom: 22, rangeTo: 10_000_000, expiresOn: null });
    expect(r.rangesAdded).toHaveLength(10);

    const paso4 = (await getCertification(h.engine, h.tenant.id))!.pasos[4];
    expect(paso4.state).toBe('done');
    expect(paso4.detail).toMatchObject({ round: 1, accepted: 25, total: 25 });
    const recorded = Object.values(paso4.detail!.slots as Record<string, { ids: string[] }>).flatMap((s) => s.ids);
    expect(recorded.sort()).toEqual(docs.map((d) => d.id).sort());
    expect(r.consumo).toHaveLength(4);

    // `ecf certify status` shows the Paso 4 counters as the portal lays them out.
    const status = await certificationReport(h.engine, h.tenant.id);
    expect(status.simulation).toMatchObject({ round: 1, accepted: 25, total: 25 });
    expect(reportText(status)).toContain(
      'Paso 4 (round 1): 25/25 accepted; 31 4/4, 32 >=RD$250mil 2/2, 33 1/1, 34 2/2, 41 2/2, 43 2/2, 44 2/2, 45 2/2, 46 2/2, 47 2/2, 32 < RD$250mil 4/4',
    );
  });

  it('with the cert ranges `ecf init` loads and no emitter profile: everything missing is told at once, nothing issued, and the `ecf sequence next` it names leads to 25/25', async () => {
    const h = await certificationHarness();
    // As `ecf init --env cert --range 31:1-10000@… --range 32:1-10000` loads them: the Paso 2 numbers are inside.
    await addRange(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: 31, rangeFrom: 1, rangeTo: 10_000, expiresOn: '2028-12-31' });
    await addRange(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: 32, rangeFrom: 1, rangeTo: 10_000, expiresOn: null });
    await h.engine.db.deleteFrom('emitter_profiles').where('tenant_id', '=', h.tenant.id).execute();

    const needs = await paso4Needs(h.engine, h.tenant.id);
    expect(needs.map((n) => [n.code, n.fix])).toEqual([
      ['EmitterProfile.Missing', `ecf tenant profile ${h.tenant.rnc} --address "…" --municipality 010100 --province 010000`],
      ['Certification.RangeReusesPaso2', `ecf sequence next --tenant ${h.tenant.rnc} --env cert --type 31 --set 10`],
      ['Certification.RangeReusesPaso2', `ecf sequence next --tenant ${h.tenant.rnc} --env cert --type 32 --set 22`],
    ]);
    expect(needs[1]!.message).toContain('refuses an annulment of used ones (1105)');
    const refused = runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    await expect(refused).rejects.toMatchObject({ code: 'Certification.Paso4NotReady' });
    await expect(refused).rejects.toThrow(/emitter profile[\s\S]*--type 31 --set 10[\s\S]*--type 32 --set 22/);
    expect(await h.engine.db.selectFrom('ecf').select('id').execute()).toEqual([]);

    // Doing what it said, through the same engine functions the commands call.
    await setEmitterProfile(h.engine, h.tenant.id, emitterProfile);
    for (const n of needs.filter((x) => x.code === 'Certification.RangeReusesPaso2')) {
      const [, type, next] = /--type (\d+) --set (\d+)/.exec(n.fix)!;
      await setNextNumber(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: type!, next: next! });
    }
    expect(await paso4Needs(h.engine, h.tenant.id)).toEqual([]);
    const r = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(r.accepted).toBe(25);
    const issued = r.slots.flatMap((s) => s.documents.map((d) => d.encf));
    expect(issued.filter((e) => e.startsWith('E31')).map(sequentialOf)).toEqual([10, 11, 12, 13]);
    expect(issued.filter((e) => e.startsWith('E32')).map(sequentialOf).sort((a, b) => a - b)).toEqual([22, 23, 24, 25, 26, 27]);
  });

  it('a second run issues nothing; a rejection counts nothing, sends no notes, and the next run issues the whole quota again in a new round with new e-NCFs', async () => {
    const h = await certificationHarness();
    // The first 43 the run issues (E430000000012, after Paso 2's 11) is rejected.
    h.sandbox.control.script({ encf: 'E430000000012', outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    const first = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(first).toMatchObject({ complete: false, restartsNext: true, round: 1, accepted: 21, issuedNow: 22 });
    expect(first.rejected).toEqual([expect.objectContaining({ slot: '43', encf: 'E430000000012', status: 'rejected', messages: [{ code: 1999, value: 'Monto inválido' }] })]);
    expect(first.slots.filter((s) => s.slot === '33' || s.slot === '34').flatMap((s) => s.documents)).toEqual([]);
    expect(first.note).toMatch(/does not count, and the portal restarts the simulation counters on a rejection, so no notes were sent.*round 2/);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[4]).toMatchObject({ state: 'failed', detail: { round: 1, restartsNext: true } });
    const firstEncfs = new Set(first.slots.flatMap((s) => s.documents.map((d) => d.encf)));

    const second = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(second).toMatchObject({ complete: true, round: 2, accepted: 25, issuedNow: 25, restartsNext: false });
    const secondDocs = second.slots.flatMap((s) => s.documents);
    for (const d of secondDocs) expect(firstEncfs.has(d.encf), d.encf).toBe(false);
    expect(second.slots.find((s) => s.slot === '43')!.documents.map((d) => d.encf)).toEqual(['E430000000014', 'E430000000015']);
    expect(second.rangesAdded).toEqual([]);

    const submissionsBefore = h.sandbox.control.submissions().length;
    const third = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(third).toMatchObject({ complete: true, round: 2, issuedNow: 0, accepted: 25 });
    expect(h.sandbox.control.submissions().length).toBe(submissionsBefore);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[4]).toMatchObject({ state: 'done', detail: { round: 2 } });
  });

  it('sends no notes while an e-CF sent before is still in process; the next run waits for it and then sends them', async () => {
    const h = await certificationHarness();
    // In process for 8 status queries (a second allows at most 4, a query every 250 ms; the poll ladder's 11 would end in review).
    h.sandbox.control.script({ encf: 'E410000000008', outcomes: [{ kind: 'inProcess', queries: 8, then: { kind: 'accept' } }] });
    const started = h.engine.clock.now().getTime();
    const first = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 1, pace: h.pace });
    // The pauses between queries ran on the engine's clock (the pace given), not on the real one.
    expect(h.pace.paused).toBeGreaterThan(0);
    expect(h.engine.clock.now().getTime()).toBeGreaterThan(started);
    expect(first.complete).toBe(false);
    expect(first.pending.map((d) => d.encf)).toContain('E410000000008');
    expect(first.slots.filter((s) => s.slot === '33' || s.slot === '34').flatMap((s) => s.documents)).toEqual([]);
    expect(first.slots.find((s) => s.slot === '34')!.waiting).toMatch(/waits until every e-CF sent before has a final verdict \(.*E410000000008/);
    expect(first.note).toMatch(/still waiting for a verdict/);
    const second = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(second).toMatchObject({ complete: true, issuedNow: 3 });
  });

  it('an e-CF accepted with conditions does not count: the next run issues another in its place, in the same round', async () => {
    const h = await certificationHarness();
    h.sandbox.control.script({ encf: 'E440000000006', outcomes: [{ kind: 'conditional', messages: [{ code: 4001, value: 'Observación' }] }] });
    const first = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(first).toMatchObject({ complete: false, restartsNext: false, accepted: 24 });
    expect(first.conditional).toEqual([expect.objectContaining({ slot: '44', encf: 'E440000000006', status: 'accepted_conditional' })]);
    const second = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(second).toMatchObject({ complete: true, round: 1, issuedNow: 1 });
    expect(second.slots.find((s) => s.slot === '44')!.documents.map((d) => [d.position, d.attempt, d.encf, d.status])).toEqual([
      [1, 1, 'E440000000006', 'accepted_conditional'],
      [1, 2, 'E440000000008', 'accepted'],
      [2, 1, 'E440000000007', 'accepted'],
    ]);
  });

  it('--restart starts a new round by hand: everything is issued again with new e-NCFs', async () => {
    const h = await certificationHarness();
    const first = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    const again = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace, restart: true });
    expect(again).toMatchObject({ complete: true, round: 2, issuedNow: 25 });
    const before = new Set(first.slots.flatMap((s) => s.documents.map((d) => d.encf)));
    for (const d of again.slots.flatMap((s) => s.documents)) expect(before.has(d.encf)).toBe(false);
  });

  it('takes payloads from a folder by type and amount (32 split at 250,000), and the examples for slots it lacks', async () => {
    const h = await certificationHarness();
    const dir = join(tempDir(), 'payloads');
    mkdirSync(dir);
    const mine31 = (i: number) => ({ type: 31, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Cliente Propio SRL' }, internalNumber: 'F-1', lines: [{ name: `Producto propio ${i}`, quantity: 1, unitPrice: `${100 + i}.00` }] });
    writeFileSync(join(dir, 'a-31.json'), JSON.stringify(mine31(1)));
    writeFileSync(join(dir, 'b-31.json'), JSON.stringify(mine31(2)));
    writeFileSync(join(dir, 'big-32.json'), JSON.stringify({ type: 32, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Cliente Grande SRL' }, lines: [{ name: 'Generador', quantity: 1, unitPrice: '300000.00' }] }));
    writeFileSync(join(dir, 'small-32.json'), JSON.stringify({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Café', quantity: 1, unitPrice: '80.00' }] }));
    writeFileSync(join(dir, 'note-34.json'), JSON.stringify({ type: 34, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Cliente Grande SRL' }, reference: { modifiedNcf: 'E32', modificationCode: '3' }, lines: [{ name: 'Descuento posterior', quantity: 1, unitPrice: '1000.00' }] }));
    const r = await runSimulation(h.engine, h.tenant.id, { payloadDir: dir, waitSeconds: 30, pace: h.pace });
    expect(r.complete).toBe(true);
    const source = Object.fromEntries(r.slots.map((s) => [s.slot, s.source]));
    expect(source).toMatchObject({ '31': 'payloads', '32': 'payloads', '32-rfce': 'payloads', '34': 'payloads', '33': 'examples', '41': 'examples' });
    // Two files fill four positions in turn; the internalNumber is left out so each is a new e-CF.
    const buyers31 = await Promise.all(r.slots.find((s) => s.slot === '31')!.documents.map((d) => getEcf(h.engine, h.tenant.id, d.id)));
    expect(buyers31.map((e) => [e.buyerName, e.montoTotal, e.internalNumber])).toEqual([
      ['Cliente Propio SRL', 119.18, null],
      ['Cliente Propio SRL', 120.36, null],
      ['Cliente Propio SRL', 119.18, null],
      ['Cliente Propio SRL', 120.36, null],
    ]);
    // The 34s modify the 32s at or above 250,000 the folder asked for.
    const big = new Set(r.slots.find((s) => s.slot === '32')!.documents.map((d) => d.encf));
    for (const n of r.slots.find((s) => s.slot === '34')!.documents) expect(big.has(n.modifies!)).toBe(true);
  });

  it('a payload the issuing path refuses stops the run naming the slot and the file; what was issued stays counted', async () => {
    const h = await certificationHarness();
    await setSetting(h.engine, 'duplicates.mode', 'rechazar', h.tenant.id);
    const dir = tempDir();
    writeFileSync(join(dir, 'only-31.json'), JSON.stringify({ type: 31, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Cliente SRL' }, lines: [{ name: 'Producto', quantity: 1, unitPrice: '100.00' }] }));
    const err = await runSimulation(h.engine, h.tenant.id, { payloadDir: dir, waitSeconds: 30, pace: h.pace }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'Ecf.DuplicateSuspected' });
    expect((err as Error).message).toMatch(/^Slot "31", e-CF 2 of 4 \(only-31\.json\): This e-CF matches E310000000010/);
    await setSetting(h.engine, 'duplicates.mode', 'observar', h.tenant.id);
    const r = await runSimulation(h.engine, h.tenant.id, { payloadDir: dir, waitSeconds: 30, pace: h.pace });
    expect(r).toMatchObject({ complete: true, issuedNow: 24 });
    expect(r.slots.find((s) => s.slot === '31')!.documents.map((d) => d.encf)).toEqual(['E310000000010', 'E310000000011', 'E310000000012', 'E310000000013']);
  });

  it('refuses a folder with an invalid payload before issuing anything, naming the file and the field', async () => {
    const h = await certificationHarness();
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ type: 31, lines: [] }));
    writeFileSync(join(dir, 'junk.json'), '{ not json');
    const err = await runSimulation(h.engine, h.tenant.id, { payloadDir: dir, pace: h.pace }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'Validation.Failed' });
    const paths = (err as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths.some((p) => p.startsWith('bad.json: '))).toBe(true);
    expect(paths).toContain('junk.json');
    expect(h.sandbox.control.submissions()).toHaveLength(0);
  });

  it("against the sandbox's certification mode: new e-NCFs above the imported workbook's, and the portal's Paso 4 counters full once the consumo XMLs are uploaded", async () => {
    const h = await certificationHarness({ paso2Cases: false });
    await h.sandbox.control.certification.start(h.tenant.rnc, 'full');
    const book = h.sandbox.control.certification.workbook(h.tenant.rnc, 2)!;
    await importWorkbook(h.engine, h.tenant.id, book.bytes, book.fileName);
    const setEncfs = (await h.engine.db.selectFrom('certification_cases').select('encf').where('tenant_id', '=', h.tenant.id).where('paso', '=', 2).execute()).map((c) => c.encf);
    expect(setEncfs.length).toBeGreaterThan(0);

    const r = await runSimulation(h.engine, h.tenant.id, { waitSeconds: 30, pace: h.pace });
    expect(r.complete).toBe(true);
    for (const d of r.slots.flatMap((s) => s.documents)) {
      const sameType = setEncfs.filter((e) => e.slice(1, 3) === d.encf.slice(1, 3)).map(sequentialOf);
      expect(sequentialOf(d.encf), d.encf).toBeGreaterThan(Math.max(0, ...sameType));
      expect(h.sandbox.control.certification.inSet(h.tenant.rnc, d.encf)).toBe(false);
    }
    for (const c of r.consumo) {
      const { bytes } = await ecfXml(h.engine, h.tenant.id, c.id);
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'application/xml' }), consumoFileName(h.tenant.rnc, c.encf));
      const res = await fetch(`${h.sandbox.url}/_sandbox/certification/${h.tenant.rnc}/consumo`, { method: 'POST', body: form });
      expect(await res.json()).toMatchObject({ accepted: true, paso: 4 });
    }
    const progress = h.sandbox.control.certification.progress(h.tenant.rnc)!;
    expect(progress.paso4.types.filter((t) => t.accepted < t.required)).toEqual([]);
    expect(progress.paso4.done).toBe(true);
  });

  it('the built-in examples cover every slot with its quota', () => {
    for (const slot of SIMULATION_SLOTS) expect(SIMULATION_EXAMPLES[slot.id], slot.id).toHaveLength(slot.quota);
  });
});

import { describe, expect, it } from 'vitest';
import { importWorkbook } from '../../../src/engine/certification/import.js';
import { runCertificationSet, type RunEvent } from '../../../src/engine/certification/run.js';
import { caseXml, loadCases } from '../../../src/engine/certification/cases.js';
import { certificationReport, reportText } from '../../../src/engine/certification/report.js';
import { getCertification } from '../../../src/engine/certification/state.js';
import { writeConsumoUploads } from '../../../src/engine/certification/uploads.js';
import { tempDir } from '../../helpers.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxSetHarness } from './certify-harness.js';

describe('ecf certify: Paso 2 and Paso 3 against the sandbox’s certification mode', () => {
  it('imports the workbook (rows out of order), sends it in a valid order, and every case is accepted; then the approvals', async () => {
    const h = await sandboxSetHarness('full');
    const summary = await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    expect(summary.problems).toEqual([]);
    expect(summary).toMatchObject({ paso: 2, generation: 1, total: 29, uploads: 4 });
    expect(summary.byKind).toEqual({ ecf31: 4, ecf32: 6, ecf33: 1, ecf34: 2, ecf41: 2, ecf43: 2, ecf44: 2, ecf45: 2, ecf46: 2, ecf47: 2, rfce: 4 });

    const sent: string[] = [];
    const result = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait, onEvent: (e) => void (e.type === 'sent' && sent.push(e.case.encf)) });
    expect(result.rejected).toEqual([]);
    expect(result.outcome).toBe('done');
    expect(result.counts).toMatchObject({ ecf: { accepted: 21, total: 21 }, rfce: { accepted: 4, total: 4 }, uploads: 4 });
    // Ordinary e-CF first, then the RFCE, then the notes, each after its original.
    const cases = await loadCases(h.engine, h.tenant.id, 2);
    // Each case sent once: 21 e-CF to reception and 4 RFCE; the 4 full consumo 32s are not sent.
    expect(sent.length).toBe(25);
    expect(new Set(sent).size).toBe(25);
    const at = (encf: string) => sent.indexOf(encf);
    const notes = cases.filter((c) => c.phase === 'note');
    const ordinary = cases.filter((c) => c.phase === 'ecf');
    const rfce = cases.filter((c) => c.phase === 'rfce');
    for (const n of notes) expect(at(n.encf)).toBeGreaterThan(at(n.modifiesEncf!));
    expect(Math.min(...rfce.map((c) => at(c.encf)))).toBeGreaterThan(Math.max(...ordinary.map((c) => at(c.encf))));
    expect(Math.min(...notes.map((c) => at(c.encf)))).toBeGreaterThan(Math.max(...rfce.map((c) => at(c.encf))));
    // The workbook's own order was not a valid one.
    const rowOrder = cases.filter((c) => c.sheet === 'ECF').sort((a, b) => a.row - b.row);
    expect(rowOrder.findIndex((c) => c.phase === 'note')).toBeLessThan(rowOrder.map((c) => c.phase).lastIndexOf('ecf'));
    const portal = await h.progress();
    expect(JSON.stringify(portal)).toContain('21/21');

    // The consumo uploads: the exact signed bytes whose code the RFCE carries.
    const dir = tempDir();
    const written = await writeConsumoUploads(h.engine, h.tenant.id, dir);
    expect(written.files.sort()).toEqual(cases.filter((c) => c.phase === 'upload').map((c) => `${h.rnc}${c.encf}.xml`).sort());
    for (const f of readdirSync(dir)) {
      const c = cases.find((x) => f === `${h.rnc}${x.encf}.xml` && x.phase === 'upload')!;
      expect(readFileSync(join(dir, f)).equals(await caseXml(h.engine, c))).toBe(true);
      const rfce = cases.find((x) => x.kind === 'rfce' && x.encf === c.encf)!;
      expect(rfce.securityCode).toBe(c.securityCode);
    }
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[2].state).toBe('done');
    // Done on the appliance's side; the portal's counter is the word that counts.
    expect(reportText(await certificationReport(h.engine, h.tenant.id))).toMatch(/\[x\] Paso 2: .* \(done here, confirm in the portal, /);

    const approvals = await importWorkbook(h.engine, h.tenant.id, await h.workbook(3), 'paso3.xlsx');
    expect(approvals.problems).toEqual([]);
    expect(approvals).toMatchObject({ paso: 3, total: 11, byKind: { acecf: 11 } });
    const paso3 = await runCertificationSet(h.engine, h.tenant.id, { paso: 3, wait: h.wait });
    expect(paso3.rejected).toEqual([]);
    expect(paso3).toMatchObject({ outcome: 'done', counts: { approvals: { accepted: 11, total: 11 } } });
    const report = await certificationReport(h.engine, h.tenant.id);
    expect(report.pasos.filter((p) => p.state === 'done').map((p) => p.paso)).toEqual([2, 3]);
    expect(report.next).toMatch(/^Paso 1 /);
  });

  it('stops at the first rejection with the authority’s messages and the row, explains the reset, and runs a new import to the end', async () => {
    const h = await sandboxSetHarness('section8');
    await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx');
    const target = (await loadCases(h.engine, h.tenant.id, 2)).find((c) => c.kind === 'ecf41')!;
    h.sandbox.control.script({ encf: target.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    const first = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait });
    expect(first.outcome).toBe('stopped');
    expect(first.rejected).toEqual([expect.objectContaining({ sheet: 'ECF', row: target.row, encf: target.encf, messages: [{ code: 1999, value: 'Monto inválido' }] })]);
    expect(first.note).toMatch(/reiniciadas/);
    // Nothing after the rejection: no RFCE and no note went out.
    const after = await loadCases(h.engine, h.tenant.id, 2);
    expect(after.filter((c) => c.phase === 'note' || c.phase === 'rfce').every((c) => c.state === 'prepared')).toBe(true);
    expect((await getCertification(h.engine, h.tenant.id))!.pasos[2].state).toBe('failed');
    // Running again without a new import changes nothing and says the same.
    expect((await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait })).outcome).toBe('stopped');

    const again = await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2-again.xlsx');
    expect(again.generation).toBe(2);
    const second = await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait });
    expect(second.rejected).toEqual([]);
    expect(second.outcome).toBe('done');
    expect(second.counts).toMatchObject({ ecf: { accepted: 7, total: 7 }, rfce: { accepted: 1, total: 1 }, uploads: 1 });
  });

  it('a second run beside the first is refused at once, saying who runs, and sends nothing; a send without an answer is waited for aloud', async () => {
    const h = await sandboxSetHarness('section8');
    expect((await importWorkbook(h.engine, h.tenant.id, await h.workbook(2), 'paso2.xlsx')).problems).toEqual([]);
    const [first] = (await loadCases(h.engine, h.tenant.id, 2)).filter((c) => c.phase === 'ecf');
    h.sandbox.control.script({ encf: first!.encf, outcomes: [{ kind: 'lostResponse' }] });

    // Run A stops at its first wait until let go; meanwhile B starts.
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let waiting!: () => void;
    const inWait = new Promise<void>((resolve) => (waiting = resolve));
    let gated = false;
    const events: RunEvent[] = [];
    const a = runCertificationSet(h.engine, h.tenant.id, {
      paso: 2,
      onEvent: (e) => events.push(e),
      wait: async (ms) => {
        if (!gated) {
          gated = true;
          waiting();
          await gate;
        }
        await h.wait(ms);
      },
    });
    await inWait;
    const received = h.sandbox.control.submissions({ environment: 'certecf' }).length;
    const b = runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait });
    await expect(b).rejects.toMatchObject({ kind: 'conflict', code: 'Certification.RunInProgress' });
    await expect(b).rejects.toThrow(`process ${process.pid} on `);
    expect(h.sandbox.control.submissions({ environment: 'certecf' }).length).toBe(received);

    // A's unanswered send: it says which case it waits on and until when, before it waits.
    const settling = events.find((e) => e.type === 'settling');
    expect(settling).toMatchObject({ type: 'settling', encfs: [first!.encf] });
    const sentAt = (await loadCases(h.engine, h.tenant.id, 2)).find((c) => c.id === first!.id)!.sentAt!;
    expect(settling?.type === 'settling' && Date.parse(settling.until) - Date.parse(sentAt)).toBe(3 * 2000 + 5000);
    letGo();
    expect((await a).outcome).toBe('done');
    expect(events.filter((e) => e.type === 'prepared')).toEqual([{ type: 'prepared', count: (await loadCases(h.engine, h.tenant.id, 2)).length }]);
    // Once A has ended, a run may start again: nothing left to send.
    expect((await runCertificationSet(h.engine, h.tenant.id, { paso: 2, wait: h.wait })).outcome).toBe('done');
  });

  it('refuses a workbook of another taxpayer and a row its schema refuses, naming each row, and stores nothing', async () => {
    const h = await sandboxSetHarness('section8');
    const other = await sandboxSetHarness('section8');
    const foreign = await importWorkbook(h.engine, h.tenant.id, await other.workbook(2), 'other.xlsx');
    expect(foreign.generation).toBeNull();
    // Said once for the whole workbook, naming the rows, not once per row.
    const rnc = foreign.problems.filter((p) => p.column === 'RNCEmisor');
    expect(rnc).toEqual([
      {
        sheet: 'ECF, RFCE',
        row: null,
        column: 'RNCEmisor',
        message: `RNCEmisor is ${other.rnc}, not this tenant's RNC ${h.rnc}: this workbook is for another taxpayer. (9 rows: ECF rows 2–9; RFCE row 2)`,
      },
    ]);
    expect(await loadCases(h.engine, h.tenant.id, 2)).toEqual([]);
  });
});

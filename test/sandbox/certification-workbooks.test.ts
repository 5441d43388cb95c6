import { describe, expect, it } from 'vitest';
import { readPaso2Workbook, readPaso3Workbook } from '../../src/engine/certification/workbook.js';
import { certificationSources } from '../../src/sandbox/certification/sources.js';
import { RNC_A, certificationHarness } from './certification-harness.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe("the sandbox hands out generated workbooks, and a whole set sent in a valid order completes Pasos 2 and 3", () => {
  for (const [variant, counts] of [
    ['section8', { ecf: 7, rfce: 1, acecf: 4 }],
    ['full', { ecf: 21, rfce: 4, acecf: 11 }],
  ] as const) {
    it(`${variant}: downloads both workbooks, sends every row verbatim (notes last, consumo by RFCE and the portal box) and ends with every counter full`, async () => {
      const h = await certificationHarness({ sources: certificationSources });
      expect((await h.control('/start', 'POST', { variant })).status).toBe(201);
      const start = (await h.control('')).body;
      expect(start.paso2.ecf.text).toBe(`0/${counts.ecf} Comprobantes Aceptados`);
      expect(start.paso2.rfce.text).toBe(`0/${counts.rfce} Resúmenes de Consumo Aceptados`);
      expect(start.paso2.consumo.text).toBe(`0/${counts.rfce} Comprobantes Aceptados`);
      expect(start.paso3.text).toBe(`0/${counts.acecf} Aprobaciones comerciales aceptadas`);

      const book2 = await h.control('/paso2.xlsx');
      expect(book2.headers.get('content-type')).toBe(XLSX);
      expect(book2.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="${RNC_A}-\\d{14}\\.xlsx"`));
      const paso2 = await readPaso2Workbook(book2.body as Buffer);
      const paso3 = await readPaso3Workbook((await h.control('/paso3.xlsx')).body as Buffer);
      expect(paso2.problems.filter((p) => p.level === 'error')).toEqual([]);

      const ecfRows = paso2.rows.filter((r) => r.sheet === 'ECF');
      const rfceRows = paso2.rows.filter((r) => r.sheet === 'RFCE');
      const encfOf = (cells: Record<string, string>) => cells.ENCF!;
      const consumo = new Set(rfceRows.map((r) => encfOf(r.cells)));
      const isNote = (encf: string) => encf.startsWith('E33') || encf.startsWith('E34');

      for (const row of ecfRows.filter((r) => !isNote(encfOf(r.cells)) && !consumo.has(encfOf(r.cells)))) {
        const encf = encfOf(row.cells);
        const verdict = await h.sendEcf(h.build(h.kindOf(encf), row.cells).xml, encf);
        expect(verdict, `row ${row.row} ${encf}`).toMatchObject({ codigo: 1 });
      }
      for (const row of rfceRows) {
        const encf = encfOf(row.cells);
        const full = h.build('ecf32', ecfRows.find((r) => encfOf(r.cells) === encf)!.cells);
        expect(await h.sendRfce(h.build('rfce', row.cells, full.securityCode).xml, encf), `RFCE ${encf}`).toMatchObject({ codigo: 1 });
        expect(await h.uploadConsumo(full.xml, encf), `consumo ${encf}`).toMatchObject({ accepted: true, paso: 2 });
      }
      for (const row of ecfRows.filter((r) => isNote(encfOf(r.cells)))) {
        const encf = encfOf(row.cells);
        expect(await h.sendEcf(h.build(h.kindOf(encf), row.cells).xml, encf), `note ${encf}`).toMatchObject({ codigo: 1 });
      }
      for (const row of paso3.rows) {
        const answer = await h.sendApproval(h.build('acecf', row.cells).xml, row.cells.eNCF!);
        expect(answer, `ACECF row ${row.row}`).toMatchObject({ codigo: '01' });
      }

      const end = (await h.control('')).body;
      expect(end.paso2).toMatchObject({
        ecf: { text: `${counts.ecf}/${counts.ecf} Comprobantes Aceptados` },
        rfce: { text: `${counts.rfce}/${counts.rfce} Resúmenes de Consumo Aceptados` },
        consumo: { text: `${counts.rfce}/${counts.rfce} Comprobantes Aceptados` },
        done: true,
      });
      expect(end.paso3).toMatchObject({ text: `${counts.acecf}/${counts.acecf} Aprobaciones comerciales aceptadas`, done: true });
      expect(end.restarts).toBe(0);
      expect(end.messages).toEqual([expect.objectContaining({ text: 'No existen mensajes' })]);
    });
  }
});

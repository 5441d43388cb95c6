import { describe, expect, it } from 'vitest';
import { compareWithRow } from '../../src/sandbox/certification/compare.js';
import { RNC_A, certificationHarness } from './certification-harness.js';

const RESET = 'Las pruebas de datos de eCF han sido reiniciadas debido a que se han rechazado comprobantes';

describe('the sandbox certification mode judges a set field by field, over HTTP', () => {
  it('hands out a set and counts nothing yet, as the portal shows it', async () => {
    const h = await certificationHarness();
    expect((await h.control('')).status).toBe(404);
    const started = await h.control('/start', 'POST', { variant: 'section8' });
    expect(started.status).toBe(201);
    const progress = (await h.control('')).body;
    expect(progress).toMatchObject({
      rnc: RNC_A,
      variant: 'section8',
      paso2: { ecf: { text: '0/7 Comprobantes Aceptados' }, rfce: { text: '0/1 Resúmenes de Consumo Aceptados' }, consumo: { text: '0/1 Comprobantes Aceptados' }, done: false },
      paso3: { text: '0/4 Aprobaciones comerciales aceptadas', done: false },
      paso9: null,
      paso11: null,
      messages: [{ text: 'No existen mensajes' }],
    });
    expect(progress.paso4.types.find((t: { type: string }) => t.type === '31')).toMatchObject({ text: '31: 0/4' });
    expect((await h.control('/start', 'POST', { variant: 'half' })).status).toBe(400);
  });

  it('accepts a document built verbatim from its row, and rejects one with 385 instead of 385.00, naming the field, then resets the counter', async () => {
    const h = await certificationHarness();
    await h.control('/start', 'POST', { variant: 'section8' });
    const e31 = h.row('ECF', 'E310000000001');
    const accepted = await h.sendEcf(h.build('ecf31', e31.cells).xml, 'E310000000001');
    expect(accepted).toMatchObject({ codigo: 1, estado: 'Aceptado', mensajes: [] });
    expect((await h.control('')).body.paso2.ecf).toMatchObject({ accepted: 1, text: '1/7 Comprobantes Aceptados', encfs: ['E310000000001'] });

    const e43 = h.row('ECF', 'E430000000001');
    const wrong = await h.sendEcf(h.build('ecf43', { ...e43.cells, 'MontoItem[1]': '385' }).xml, 'E430000000001');
    expect(wrong.codigo).toBe(2);
    expect(wrong.mensajes).toEqual([
      {
        codigo: 0,
        valor: 'La propiedad MontoItem[1] no es valida debido a que el valor enviado (385) no coincide con el valor (385.00) del conjunto de datos entregados.',
      },
    ]);
    const after = (await h.control('')).body;
    expect(after.paso2.ecf).toMatchObject({ accepted: 0, text: '0/7 Comprobantes Aceptados' });
    expect(after.restarts).toBe(1);
    expect(after.messages.at(-1).text).toContain(RESET);
    expect(after.messages.at(-1).text).toContain('E430000000001');

    // A cell the row does not have is a difference too (a default the set did not contain).
    const extra = await h.sendEcf(h.build('ecf43', { ...e43.cells, 'TelefonoEmisor[1]': '809-000-0001' }).xml, 'E430000000001');
    expect(extra.mensajes.map((m) => m.valor)).toEqual([
      'La propiedad TelefonoEmisor[1] no es valida debido a que el valor enviado (809-000-0001) no coincide con el valor () del conjunto de datos entregados.',
    ]);
    // Sent again as given after the reset: accepted; once more in the same run: 1209, neither a reset nor a second count.
    expect((await h.sendEcf(h.build('ecf43', e43.cells).xml, 'E430000000001')).codigo).toBe(1);
    const again = await h.sendEcf(h.build('ecf43', e43.cells).xml, 'E430000000001');
    expect(again.codigo).toBe(2);
    expect(again.mensajes[0]!.codigo).toBe(1209);
    expect((await h.control('')).body.paso2.ecf.accepted).toBe(1);
    expect((await h.control('')).body.restarts).toBe(2);
  });

  it('answers 614 to a note sent before its original is accepted in the run, and accepts it after', async () => {
    const h = await certificationHarness();
    await h.control('/start', 'POST', { variant: 'section8' });
    const note = h.build('ecf33', h.row('ECF', 'E330000000001').cells).xml;
    const early = await h.sendEcf(note, 'E330000000001');
    expect(early.codigo).toBe(2);
    expect(early.mensajes).toEqual([{ codigo: 614, valor: 'El eNCF modificado no ha sido emitido' }]);
    expect((await h.sendEcf(h.build('ecf32', h.row('ECF', 'E320000000001').cells).xml, 'E320000000001')).codigo).toBe(1);
    expect((await h.sendEcf(note, 'E330000000001')).codigo).toBe(1);

    // A rejection wipes the acceptances: the other note's original, accepted before it, no longer counts.
    expect((await h.sendEcf(h.build('ecf31', h.row('ECF', 'E310000000001').cells).xml, 'E310000000001')).codigo).toBe(1);
    await h.script('E410000000001', [{ kind: 'reject' }]);
    expect((await h.sendEcf(h.build('ecf41', h.row('ECF', 'E410000000001').cells).xml, 'E410000000001')).codigo).toBe(2);
    const late = await h.sendEcf(h.build('ecf34', h.row('ECF', 'E340000000001').cells).xml, 'E340000000001');
    expect(late.mensajes.map((m) => m.codigo)).toEqual([614]);
  });

  it('keeps the RFCE counter through an e-CF reset, and takes the full consumo XML in the portal box with its RFCE security code', async () => {
    const h = await certificationHarness();
    await h.control('/start', 'POST', { variant: 'section8' });
    const full = h.build('ecf32', h.row('ECF', 'E320000000002').cells);
    // The full consumo e-CF is not for recepcion.
    expect((await h.sendEcf(full.xml, 'E320000000002')).codigo).toBe(2);
    // An RFCE whose data differs from its row: rejected, and the e-CF counter is not touched.
    expect((await h.sendEcf(h.build('ecf31', h.row('ECF', 'E310000000001').cells).xml, 'E310000000001')).codigo).toBe(1);
    const bad = h.build('rfce', { ...h.row('RFCE', 'E320000000002').cells, MontoTotal: '2360' }, full.securityCode);
    const refusedRfce = await h.sendRfce(bad.xml, 'E320000000002');
    expect(refusedRfce.codigo).toBe(2);
    expect(refusedRfce.mensajes.map((m) => m.valor)).toEqual([
      'La propiedad MontoTotal no es valida debido a que el valor enviado (2360) no coincide con el valor (2360.00) del conjunto de datos entregados.',
    ]);
    expect((await h.control('')).body.paso2.ecf.text).toBe('1/7 Comprobantes Aceptados');
    const rfce = h.build('rfce', h.row('RFCE', 'E320000000002').cells, full.securityCode);
    expect(await h.sendRfce(rfce.xml, 'E320000000002')).toMatchObject({ codigo: 1, estado: 'Aceptado' });
    expect((await h.control('')).body.paso2.rfce.text).toBe('1/1 Resúmenes de Consumo Aceptados');

    // An e-CF rejected by a script: the e-CF counter restarts, the RFCE counter stays.
    await h.script('E470000000001', [{ kind: 'reject', messages: [{ code: 1999, value: 'rechazo programado' }] }]);
    expect((await h.sendEcf(h.build('ecf47', h.row('ECF', 'E470000000001').cells).xml, 'E470000000001')).mensajes).toEqual([{ codigo: 1999, valor: 'rechazo programado' }]);
    const progress = (await h.control('')).body;
    expect(progress.paso2.ecf.text).toBe('0/7 Comprobantes Aceptados');
    expect(progress.paso2.rfce.text).toBe('1/1 Resúmenes de Consumo Aceptados');

    // The portal box: another signature of the same data does not carry the RFCE's code; the one signed first does.
    // (Signed a minute later: the same data and time would give the same signature.)
    const other = h.build('ecf32', h.row('ECF', 'E320000000002').cells, undefined, new Date(Date.now() + 60_000));
    const refused = await h.uploadConsumo(other.xml, 'E320000000002');
    expect(refused.accepted).toBe(false);
    expect(refused.messages[0]).toContain('no coincide con el CodigoSeguridadeCF');
    const taken = await h.uploadConsumo(full.xml, 'E320000000002');
    expect(taken).toMatchObject({ accepted: true, paso: 2, messages: [] });
    expect(taken.progress.paso2.consumo.text).toBe('1/1 Comprobantes Aceptados');
    // Sent again in the same run: 1209, and the counter stays.
    const verdict = await h.sendRfce(rfce.xml, 'E320000000002');
    expect(verdict.mensajes[0]!.codigo).toBe(1209);
    expect((await h.control('')).body.paso2.rfce.accepted).toBe(1);
  });

  it('judges the Paso 3 approvals against their rows (the amount as a number, the time as given), and counts the simulation per type', async () => {
    const h = await certificationHarness();
    await h.control('/start', 'POST', { variant: 'section8' });
    const cells = (estado: string, change: Record<string, string> = {}) => {
      const row = h.row('ACEECF_Generadas', 'E310000000001', estado);
      return { ...row.cells, MontoTotal: '1430.00', ...change };
    };
    expect(await h.sendApproval(h.build('acecf', cells('1')).xml, 'E310000000001')).toMatchObject({ codigo: '01' });
    expect((await h.control('')).body.paso3.text).toBe('1/4 Aprobaciones comerciales aceptadas');
    const late = await h.sendApproval(h.build('acecf', cells('2', { FechaHoraAprobacionComercial: '25-11-2026 10:00:00' })).xml, 'E310000000001');
    expect(late.codigo).toBe('02');
    expect(late.mensaje).toEqual([
      'La propiedad FechaHoraAprobacionComercial no es valida debido a que el valor enviado (25-11-2026 10:00:00) no coincide con el valor (23-06-2026 17:45:47) del conjunto de datos entregados.',
    ]);
    expect((await h.control('')).body.paso3.text).toBe('0/4 Aprobaciones comerciales aceptadas');
    expect(await h.sendApproval(h.build('acecf', cells('2')).xml, 'E310000000001')).toMatchObject({ codigo: '01' });

    // Paso 4: a new e-NCF with the row's data is judged by the normal checks and counted for its type.
    const e31 = h.row('ECF', 'E310000000001').cells;
    const sim = h.build('ecf31', { ...e31, ENCF: 'E310000000101', CasoPrueba: `${RNC_A}E310000000101` }).xml;
    expect((await h.sendEcf(sim, 'E310000000101')).codigo).toBe(1);
    const progress = (await h.control('')).body;
    expect(progress.paso4.types.find((t: { type: string }) => t.type === '31')).toMatchObject({ accepted: 1, required: 4, text: '31: 1/4', encfs: ['E310000000101'] });
    expect(progress.paso2.ecf.accepted).toBe(0);
    // Outside certecf nothing is judged against the set.
    expect(progress.paso3.text).toBe('1/4 Aprobaciones comerciales aceptadas');
  });

  it('resets every counter on request, and forgets the sets with the sandbox', async () => {
    const h = await certificationHarness();
    await h.control('/start', 'POST', { variant: 'section8' });
    expect((await h.sendEcf(h.build('ecf31', h.row('ECF', 'E310000000001').cells).xml, 'E310000000001')).codigo).toBe(1);
    const reset = await h.control('/reset', 'POST');
    expect(reset.body.paso2.ecf.text).toBe('0/7 Comprobantes Aceptados');
    expect((await h.sendEcf(h.build('ecf31', h.row('ECF', 'E310000000001').cells).xml, 'E310000000001')).codigo).toBe(1);
    h.sandbox.control.reset();
    expect((await h.control('')).status).toBe(404);
  });
});

describe('compareWithRow', () => {
  it('matches headers trimmed and in any casing, skips CasoPrueba and what the applicant adds, and names an element no column holds', () => {
    const row = { sheet: 'ECF' as const, row: 2, cells: { CasoPrueba: 'x', 'NumeroContenedor ': 'C-1', 'MontosubRecargo[1][1]': '5.00', ENCF: 'E310000000001' } };
    expect(compareWithRow(row, { NumeroContenedor: 'C-1', 'MontoSubRecargo[1][1]': '5.00', eNCF: 'E310000000001', FechaHoraFirma: 'now' }, { added: ['FechaHoraFirma'] })).toEqual([]);
    expect(compareWithRow(row, { NumeroContenedor: 'C-1', 'MontosubRecargo[1][1]': '5', ENCF: 'E310000000001', '/ECF/Encabezado/Otro': '' }).map((m) => m.value)).toEqual([
      'La propiedad MontosubRecargo[1][1] no es valida debido a que el valor enviado (5) no coincide con el valor (5.00) del conjunto de datos entregados.',
      'El elemento ECF/Encabezado/Otro no corresponde a ninguna propiedad del conjunto de datos entregados.',
    ]);
    // Paso 3's MontoTotal is a number in the workbook: compared as an amount when asked.
    const approval = { sheet: 'ACEECF_Generadas' as const, row: 2, cells: { MontoTotal: '1430' } };
    expect(compareWithRow(approval, { MontoTotal: '1430.00' }, { asAmount: ['MontoTotal'] })).toEqual([]);
    expect(compareWithRow(approval, { MontoTotal: '1430.01' }, { asAmount: ['MontoTotal'] })).toHaveLength(1);
  });
});

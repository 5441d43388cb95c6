import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { ecfXml } from '../../../src/engine/ecf/queries.js';
import { ValidationError } from '../../../src/engine/errors.js';
import { ecfRepresentation, parseLayout } from '../../../src/engine/representation/representation.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { setContingency } from '../../../src/engine/submission/contingency.js';
import { corpus } from '../documents/corpus.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { pageTexts, pdfInfo, pdfText, qrCodes, renderPages, squeeze } from './read-back.js';

/**
 * The printed representation read back by independent tools: pdftotext for
 * what a person reads, pdftoppm + zbarimg for what a phone scans. The
 * expected texts are written out here (titles from NOTES §17.3, amounts as
 * the signed XML has them, grouped by thousands), not taken from the
 * renderer.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const TITLES: Record<number, string> = {
  31: 'Factura de Crédito Fiscal Electrónica',
  32: 'Factura de Consumo Electrónica',
  33: 'Nota de Débito Electrónica',
  34: 'Nota de Crédito Electrónica',
  41: 'Comprobante Electrónico de Compras',
  43: 'Comprobante Electrónico para Gastos Menores',
  44: 'Comprobante Electrónico para Regímenes Especiales',
  45: 'Comprobante Electrónico Gubernamental',
  46: 'Comprobante Electrónico para Exportaciones',
  47: 'Comprobante Electrónico para Pagos al Exterior',
};

/** "8507.80" → "8,507.80", the way the paper writes amounts. */
const grouped = (text: string) => {
  const [whole, fraction] = text.split('.');
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
};

/** An element's text in the signed XML. */
const element = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

async function setup() {
  const engine = await testEngine();
  const seeded = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', seeded.tenant.id);
  let n = 0;
  const issue = async (payload: unknown) => {
    const { ecf } = await issueEcf(engine, seeded.tenant.id, { idempotencyKey: `k-${++n}`, payload });
    const xml = (await ecfXml(engine, seeded.tenant.id, ecf.id)).bytes.toString('utf8');
    return { ecf, xml };
  };
  const render = (id: string, layout?: string) => ecfRepresentation(engine, seeded.tenant.id, id, { layout });
  return { engine, issue, render, ...seeded };
}

/** The text of the whole PDF in drawing order, every run of white space one space: wrapped phrases read whole. */
const read = (pdf: Buffer) => pdfText(pdf, { raw: true }).replace(/\s+/g, ' ');

describe('the printed representation of an e-CF 31', () => {
  it('carries every key field on letter, 80 mm and 58 mm paper, and a QR that decodes to exactly the qrUrl', async () => {
    const { issue, render, tenant } = await setup();
    const { ecf, xml } = await issue(
      invoice31({
        internalNumber: 'FAC-0042',
        buyer: { rnc: '131880681', name: 'Constructora Peña & Muñoz SRL' },
        lines: [
          { name: 'Cemento gris', quantity: 10, unitPrice: '350.00', unitOfMeasure: '6', discount: '50.00' },
          { name: 'Varilla 3/8', quantity: '2.5', unitPrice: '185.50', description: 'Acero “corrugado” – año 2026' },
          { name: 'Libro escolar ñandú', quantity: 2, unitPrice: '650.00', taxTreatment: 'exempt' },
        ],
      }),
    );
    const expected = [
      'Ferretería Ñoño SRL',
      `RNC: ${tenant.rnc}`,
      'Dirección: Calle El Conde 12',
      'Santo Domingo de Guzmán, Distrito Nacional',
      TITLES[31],
      `e-NCF: ${ecf.encf}`,
      'Fecha Vencimiento: 31-12-2035',
      'Fecha Emisión: 10-03-2026',
      'Razón Social Cliente: Constructora Peña & Muñoz SRL',
      'RNC Cliente: 131880681',
      'No. Factura Interna: FAC-0042',
      'Cemento gris',
      'Varilla 3/8',
      'Acero “corrugado” – año 2026',
      'E Libro escolar ñandú',
      '-50.00',
      `Total ITBIS ${grouped(element(xml, 'TotalITBIS')!)}`,
      `Subtotal Exento ${grouped(element(xml, 'MontoExento')!)}`,
      `Total ${grouped(element(xml, 'MontoTotal')!)}`,
      `Código de Seguridad: ${ecf.securityCode}`,
      'Fecha de Firma Digital: 10-03-2026 10:00:00',
    ];
    expect(element(xml, 'FechaHoraFirma')).toBe('10-03-2026 10:00:00');

    for (const [layout, width, height] of [
      ['letter', 612, 792],
      ['pos', 226.77, undefined],
      ['pos58', 164.41, undefined],
    ] as const) {
      const r = await render(ecf.id, layout);
      expect(r).toMatchObject({ ecfId: ecf.id, encf: ecf.encf, issuerRnc: tenant.rnc, layout, pages: 1 });
      expect(r.pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const info = pdfInfo(r.pdf);
      expect(info.pages).toBe(1);
      expect(info.size[0]).toBeCloseTo(width, 1);
      if (height) expect(info.size[1]).toBeCloseTo(height, 1);
      else expect(info.size[1]).toBeGreaterThan(info.size[0]);
      expect(info.title).toBe(`${TITLES[31]} ${ecf.encf}`);
      expect(info.author).toBe('Ferretería Ñoño SRL');

      const text = read(r.pdf);
      for (const phrase of expected) expect(text, `${layout}: ${phrase}`).toContain(phrase);
      // 58 mm paper wraps the trade name's line; 80 mm and letter keep it whole.
      expect(text).toContain('Ferretería Ñoño');
      const [png] = renderPages(r.pdf, { dpi: layout === 'letter' ? 150 : 200 });
      expect(qrCodes(png!), layout).toEqual([ecf.qrUrl]);
    }
  });

  it('gives the same bytes for the same e-CF and layout (the PDF is dated at the signing instant)', async () => {
    const { issue, render, engine } = await setup();
    const { ecf } = await issue(invoice31());
    const first = await render(ecf.id, 'letter');
    engine.clock.advance(3_600_000);
    expect((await render(ecf.id, 'letter')).pdf.equals(first.pdf)).toBe(true);
    expect((await render(ecf.id, 'pos')).pdf.equals(first.pdf)).toBe(false);
  });
});

describe('every type of the corpus', () => {
  it('prints its title, e-NCF, total, security code and signature time on letter and on a roll; its QR decodes to its qrUrl', async () => {
    const { issue, render } = await setup();
    const decoded = new Set<number>();
    for (const c of corpus()) {
      const { ecf, xml } = await issue(c.payload);
      const type = ecf.type;
      for (const layout of ['letter', 'pos'] as const) {
        const r = await render(ecf.id, layout);
        const text = read(r.pdf);
        const where = `${c.name} (${layout})`;
        expect(text, where).toContain(TITLES[type]);
        expect(text, where).toContain(`e-NCF: ${ecf.encf}`);
        expect(text, where).toContain(`Total ${grouped(element(xml, 'MontoTotal')!)}`);
        expect(text, where).toContain(`Código de Seguridad: ${ecf.securityCode}`);
        expect(text, where).toContain(`Fecha de Firma Digital: ${element(xml, 'FechaHoraFirma')}`);
        // The sequence expiry: printed for every type but 32 and 34 (NOTES §17.2 A3).
        if (type === 32 || type === 34) expect(text, where).not.toContain('Fecha Vencimiento');
        else expect(text, where).toContain(`Fecha Vencimiento: ${element(xml, 'FechaVencimientoSecuencia')}`);
        // Type 43 has no buyer area; type 41's buyer is the supplier.
        if (type === 43) expect(text, where).not.toMatch(/Cliente|Proveedor/);
        if (type === 41) expect(text, where).toContain('Razón Social Proveedor: Constructora Ejemplo SRL');
        const name = element(xml, 'NombreItem')!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
        expect(text, where).toContain(name);
        if (layout === 'letter' && !decoded.has(type)) {
          decoded.add(type);
          const [png] = renderPages(r.pdf, { dpi: 150, last: 1 });
          expect(qrCodes(png!), where).toEqual([ecf.qrUrl]);
        }
      }
    }
    expect([...decoded].sort()).toEqual([31, 32, 33, 34, 41, 43, 44, 45, 46, 47]);
  }, 240_000);
});

describe('type 32, the consumer invoice', () => {
  it('under DOP 250,000 carries the consumer timbre (four parameters, fc host), no expiry and no client block, but still the code and the signature time', async () => {
    const { issue, render, tenant } = await setup();
    const { ecf } = await issue({ type: 32, incomeType: '01', payment: { condition: '1' }, lines: [{ name: 'Refresco 2L', quantity: 2, unitPrice: '95.00' }] });
    expect(ecf.submitsRfce).toBe(true);
    const url = new URL(ecf.qrUrl);
    expect(url.origin + url.pathname).toBe('https://fc.dgii.gov.do/testecf/consultatimbrefc');
    expect([...url.searchParams.keys()]).toEqual(['RncEmisor', 'ENCF', 'MontoTotal', 'CodigoSeguridad']);
    for (const layout of ['letter', 'pos', 'pos58']) {
      const r = await render(ecf.id, layout);
      const text = read(r.pdf);
      expect(text).toContain(TITLES[32]);
      expect(text).toContain(`RNC: ${tenant.rnc}`);
      expect(text).not.toContain('Fecha Vencimiento');
      expect(text).not.toContain('Cliente');
      expect(text).toContain(`Código de Seguridad: ${ecf.securityCode}`);
      expect(text).toContain('Fecha de Firma Digital: 10-03-2026 10:00:00');
      expect(text).toContain('Total 224.20');
      const [png] = renderPages(r.pdf, { dpi: 200 });
      expect(qrCodes(png!), layout).toEqual([ecf.qrUrl]);
    }
  });

  it('at DOP 250,000.00 carries the standard timbre and prints the buyer', async () => {
    const { issue, render } = await setup();
    const { ecf } = await issue({
      type: 32,
      incomeType: '01',
      payment: { condition: '1' },
      buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL' },
      lines: [{ name: 'Equipo', quantity: 1, unitPrice: '250000.00', taxTreatment: 'exempt' }],
    });
    expect(ecf.submitsRfce).toBe(false);
    expect(ecf.qrUrl).toMatch(/^https:\/\/ecf\.dgii\.gov\.do\/testecf\/consultatimbre\?RncEmisor=\d+&RncComprador=131880681&/);
    const r = await render(ecf.id, 'letter');
    const text = read(r.pdf);
    expect(text).toContain('Razón Social Cliente: Constructora Ejemplo SRL');
    expect(text).toContain('Total 250,000.00');
    expect(qrCodes(renderPages(r.pdf)[0]!)).toEqual([ecf.qrUrl]);
  });
});

describe('debit and credit notes', () => {
  it('print the modified NCF and the modification in words; the debit note its expiry date, the credit note none', async () => {
    const { issue, render } = await setup();
    const buyer = { rnc: '131880681', name: 'Constructora Ejemplo SRL' };
    const debit = await issue({
      type: 33, incomeType: '01', payment: { condition: '1' }, buyer,
      reference: { modifiedNcf: 'B0100000005', modifiedNcfDate: '2026-02-01', modificationCode: '3' },
      lines: [{ name: 'Ajuste de precio', quantity: 1, unitPrice: '100.00' }],
    });
    const credit = await issue({
      type: 34, incomeType: '01', payment: { condition: '1' }, buyer,
      reference: { modifiedNcf: 'E310000000005', modifiedNcfDate: '2026-02-01', modificationCode: '1' },
      lines: [{ name: 'Devolución cemento', quantity: 1, unitPrice: '350.00' }],
    });
    for (const layout of ['letter', 'pos']) {
      const d = read((await render(debit.ecf.id, layout)).pdf);
      expect(d).toContain(TITLES[33]);
      expect(d).toContain('NCF Modificado: B0100000005');
      expect(d).toContain('Corrige montos del NCF modificado');
      expect(d).toContain('Fecha NCF Modificado: 01-02-2026');
      expect(d).toContain('Fecha Vencimiento: 31-12-2035');
      const c = read((await render(credit.ecf.id, layout)).pdf);
      expect(c).toContain(TITLES[34]);
      expect(c).toContain('NCF Modificado: E310000000005');
      expect(c).toContain('Anula el NCF modificado');
      expect(c).not.toContain('Fecha Vencimiento');
    }
  });
});

describe('long documents', () => {
  it('a 300-line invoice paginates: header, table head, QR block and page number on every page; page totals before the last, the totals on the last', async () => {
    const { issue, render, tenant } = await setup();
    const lines = Array.from({ length: 300 }, (_, i) => ({ name: `Artículo número ${i + 1} con ñ`, quantity: 1 + (i % 3), unitPrice: `${(i % 40) + 1}.25` }));
    const { ecf, xml } = await issue(invoice31({ lines }));
    const r = await render(ecf.id, 'letter');
    expect(r.pages).toBeGreaterThanOrEqual(5);
    const pages = pageTexts(r.pdf).map(squeeze);
    expect(pages).toHaveLength(r.pages);
    const pngs = renderPages(r.pdf, { dpi: 150 });
    expect(pngs).toHaveLength(r.pages);
    const pageOfLine: number[] = [];
    pages.forEach((text, i) => {
      const where = `page ${i + 1}`;
      for (const phrase of [`RNC: ${tenant.rnc}`, TITLES[31], `e-NCF: ${ecf.encf}`, 'Razón Social Cliente', 'Descripción', 'Valor', `Código de Seguridad: ${ecf.securityCode}`, 'Fecha de Firma Digital: 10-03-2026 10:00:00', `Página No. ${i + 1} de ${r.pages}`]) {
        expect(text, `${where}: ${phrase}`).toContain(phrase);
      }
      const last = i === r.pages - 1;
      expect(text.includes('Monto Total Página'), where).toBe(!last);
      expect(text.includes('Subtotal Gravado'), where).toBe(last);
      for (const m of text.matchAll(/Artículo número (\d+) con ñ/g)) pageOfLine[Number(m[1]) - 1] = i;
      expect(qrCodes(pngs[i]!), where).toEqual([ecf.qrUrl]);
    });
    // Every line once, in order.
    expect(pageOfLine.filter((p) => p !== undefined)).toHaveLength(300);
    for (let k = 1; k < 300; k++) expect(pageOfLine[k]!).toBeGreaterThanOrEqual(pageOfLine[k - 1]!);
    expect(pages[r.pages - 1]).toContain(`Total ${grouped(element(xml, 'MontoTotal')!)}`);

    // A page's total is the sum of the values printed on it.
    const first = pages[0]!;
    const cents = [...first.matchAll(/Artículo número \d+ con ñ [\d,]+\.\d{2} 18% ([\d,]+\.\d{2})/g)].map((m) => Math.round(Number(m[1]!.replace(/,/g, '')) * 100));
    expect(cents).toHaveLength(pageOfLine.filter((p) => p === 0).length);
    const pageTotal = /Monto Total Página ([\d,]+\.\d{2})/.exec(first)![1]!;
    expect(pageTotal).toBe(grouped((cents.reduce((a, b) => a + b, 0) / 100).toFixed(2)));

    // On a roll the same invoice is one long page, its QR at the end.
    const roll = await render(ecf.id, 'pos');
    expect(roll.pages).toBe(1);
    const rollText = read(roll.pdf);
    expect(rollText).toContain('Artículo número 1 con ñ');
    expect(rollText).toContain('Artículo número 300 con ñ');
    const info = pdfInfo(roll.pdf);
    expect(info.size[1]).toBeGreaterThan(3000);
  }, 120_000);

  it('follows the pagination block of the payload: each declared page starts a sheet and shows the subtotals the XML gives it; subtotals are listed', async () => {
    const { issue, render } = await setup();
    const { ecf } = await issue(
      invoice31({
        lines: [
          { name: 'Cemento gris', quantity: 10, unitPrice: '350.00' },
          { name: 'Varilla 3/8', quantity: 20, unitPrice: '185.50' },
          { name: 'Arena lavada', quantity: 3, unitPrice: '1200.00' },
          { name: 'Transporte a obra', kind: 'service', quantity: 1, unitPrice: '1500.00' },
        ],
        subtotals: [
          { number: 1, order: 1, description: 'Materiales', lines: 3, montoGravadoTotal: '10810.00', totalItbis: '1945.80', amount: '12755.80' },
          { number: 2, order: 2, description: 'Servicios', lines: 1, montoGravadoTotal: '1500.00', totalItbis: '270.00', amount: '1770.00' },
        ],
        pagination: [
          { number: 1, lineFrom: 1, lineTo: 2, montoGravadoTotal: '7210.00', totalItbis: '1297.80', amount: '8507.80' },
          { number: 2, lineFrom: 3, lineTo: 4, montoGravadoTotal: '5100.00', totalItbis: '918.00', amount: '6018.00' },
        ],
      }),
    );
    const r = await render(ecf.id, 'letter');
    expect(r.pages).toBe(2);
    const [one, two] = pageTexts(r.pdf).map(squeeze);
    expect(one).toContain('Cemento gris');
    expect(one).toContain('Varilla 3/8');
    expect(one).not.toContain('Arena lavada');
    expect(one).toContain('Subtotal Gravado Página 7,210.00');
    expect(one).toContain('Subtotal ITBIS Página 1,297.80');
    expect(one).toContain('Monto Total Página 8,507.80');
    expect(one).toContain('Página No. 1 de 2');
    expect(two).toContain('Arena lavada');
    expect(two).toContain('Transporte a obra');
    expect(two).toContain('Total 14,525.80');
    expect(two).toContain('Subtotales');
    expect(two).toContain('Materiales (3 líneas) 12,755.80');
    expect(two).toContain('Servicios (1 línea) 1,770.00');
    expect(two).not.toContain('Monto Total Página');
  });
});

describe('what else the XML carries', () => {
  it('prints foreign-currency totals, additional taxes, global adjustments, payment forms and retentions', async () => {
    const { issue, render } = await setup();
    const fx = await issue(
      invoice31({
        foreignCurrency: { currency: 'USD', exchangeRate: '59.1234' },
        payment: { condition: '2', dueDate: '2026-04-30', methods: [{ type: '4', amount: '100.00' }, { type: '1', amount: '50.00' }] },
        globalAdjustments: [
          { line: 1, kind: 'discount', affectsItbisRate: 1, amount: '100.00', description: 'Descuento por volumen' },
          { line: 2, kind: 'surcharge', affectsItbisRate: 1, percentage: '5', description: 'Recargo por envío' },
        ],
        lines: [
          { name: 'Cemento gris', quantity: 10, unitPrice: '350.00' },
          {
            name: 'Ron añejo 700 ml', quantity: 12, unitPrice: '650.00',
            additionalTaxes: [{ code: '016', rate: '632.58', iscEspecifico: '2125.47' }, { code: '033', rate: '10', iscAdvalorem: '780.00' }],
            details: {
              referenceQuantity: '0.70', referenceUnit: '47', subquantities: [{ quantity: '0.280', unitCode: '47' }], alcoholDegrees: '40.00', referenceUnitPrice: '650.00',
            },
          },
        ],
      }),
    );
    const purchase = await issue({
      type: 41, payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Finca El Ñame' },
      lines: [{ name: 'Compra de yuca', quantity: 100, unitPrice: '25.00', retention: { agent: '1', itbisWithheld: '0.00', isrWithheld: '50.00' } }],
    });
    for (const layout of ['letter', 'pos']) {
      const t = read((await render(fx.ecf.id, layout)).pdf);
      for (const phrase of [
        'Moneda: USD · Tasa de cambio: 59.1234',
        `Total USD ${grouped(element(fx.xml, 'MontoTotalOtraMoneda')!)}`,
        `ISC Específico Vodka ${grouped(element(fx.xml, 'MontoImpuestoSelectivoConsumoEspecifico')!)}`,
        'ISC Ad Valorem Vodka (10%) 780.00',
        `Total Impuestos Adicionales ${grouped(element(fx.xml, 'MontoImpuestoAdicional')!)}`,
        'Grados alcohol: 40% · PVP: 650.00',
        'Descuento: Descuento por volumen -100.00',
        `Recargo: Recargo por envío (5%) +${grouped([...fx.xml.matchAll(/<MontoDescuentooRecargo>([^<]*)</g)][1]![1]!)}`,
        'Venta a Crédito 100.00',
        'Efectivo 50.00',
        'Tipo de Pago: Crédito',
        'Fecha Límite de Pago: 30-04-2026',
      ]) expect(t, `${layout}: ${phrase}`).toContain(phrase);
      const p = read((await render(purchase.ecf.id, layout)).pdf);
      expect(p).toContain(TITLES[41]);
      expect(p).toContain('Razón Social Proveedor: Finca El Ñame');
      expect(p).toContain('ISR Retenido 50.00');
      expect(p).toContain('ISR retenido: 50.00');
    }
  });

  it('adds the deferred-sending and contingency notes (NOTES §17.9)', async () => {
    const { issue, render, engine } = await setup();
    const deferred = await issue(invoice31({ deferredDelivery: true }));
    await setContingency(engine, true);
    const offline = await issue(invoice31({ internalNumber: 'X-2' }));
    expect(offline.ecf.signedDuringContingency).toBe(true);
    const d = read((await render(deferred.ecf.id, 'letter')).pdf);
    expect(d).toContain('Comprobante emitido en envío diferido');
    expect(d).not.toContain('contingencia');
    const c = read((await render(offline.ecf.id, 'pos')).pdf);
    expect(c).toContain('Comprobante emitido en contingencia');
    expect(c).toContain('72 horas');
  });

  it('writes characters the base fonts lack as their base letter or "?", keeping every Spanish one', async () => {
    const { issue, render } = await setup();
    const { ecf } = await issue(invoice31({ lines: [{ name: 'Señal ¿Pingüino? ¡Sí! Ω ā 中', quantity: 1, unitPrice: '10.00' }] }));
    const text = read((await render(ecf.id, 'letter')).pdf);
    expect(text).toContain('Señal ¿Pingüino? ¡Sí! ? a ?');
  });
});

describe('the layout', () => {
  it('is the tenant setting when the caller gives none, letter by default; names in any casing; a bad one names the field', async () => {
    const { issue, render, engine, tenant } = await setup();
    const { ecf } = await issue(invoice31());
    const byDefault = await render(ecf.id);
    expect(byDefault.layout).toBe('letter');
    expect(byDefault.fileName).toBe(`${tenant.rnc}${ecf.encf}.pdf`);
    expect(pdfInfo(byDefault.pdf).size).toEqual([612, 792]);
    await setSetting(engine, 'representation.default_layout', 'pos58', tenant.id);
    const roll = await render(ecf.id);
    expect(roll.layout).toBe('pos58');
    expect(roll.fileName).toBe(`${tenant.rnc}${ecf.encf}-pos58.pdf`);
    expect((await render(ecf.id, 'LETTER')).layout).toBe('letter');
    expect((await render(ecf.id, ' Pos ')).layout).toBe('pos');

    expect(parseLayout(undefined)).toBeUndefined();
    const err = (() => {
      try {
        parseLayout('a4');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors).toEqual([{ path: 'layout', code: 'Union', message: 'must be letter, pos (80 mm roll) or pos58 (58 mm roll)' }]);
    await expect(render(ecf.id, 'a4')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('code tables', () => {
  it('are generated from the official schemas and up to date', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-code-tables.mjs'), '--check']).toString();
    expect(out).toMatch(/up to date/);
  });
});

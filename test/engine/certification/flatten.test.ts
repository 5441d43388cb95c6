import { X509Certificate, createPrivateKey } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCase } from '../../../src/engine/certification/case-document.js';
import { comparableCells, kindOfType, type WorkbookKind } from '../../../src/engine/certification/columns.js';
import { flatten, flattenDocument } from '../../../src/engine/certification/flatten.js';
import { rowData } from '../../../src/engine/certification/row-document.js';
import { EngineError } from '../../../src/engine/errors.js';
import { signatureTimestamp, signingKey } from '../../../src/engine/signing/xmldsig.js';
import { serialize } from '../../../src/engine/xml/canonical.js';
import type { DocumentKind } from '../../../src/engine/xml/schema-trees.generated.js';
import { certificationRows } from '../../../src/sandbox/certification/workbooks.js';
import { makeIdentity } from '../../certs.js';

const identity = makeIdentity();
const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
const SIGNED_AT = new Date('2026-11-25T15:30:00.000Z');

interface Case {
  readonly kind: WorkbookKind;
  readonly cells: Record<string, string>;
}

/** Every row of both synthetic sets, with its kind (Paso 3 numbers as the reader writes them). */
const cases: Case[] = (['section8', 'full'] as const).flatMap((variant) => {
  const rows = certificationRows({ rnc: '999000001', variant });
  return [
    ...rows.ecf.map((cells) => ({ kind: kindOfType(cells.TipoeCF!)!, cells })),
    ...rows.rfce.map((cells) => ({ kind: 'rfce' as const, cells })),
    ...rows.approvals.map(({ MontoTotal, Estado, ...text }) => ({ kind: 'acecf' as const, cells: { ...text, MontoTotal: MontoTotal.toFixed(2), Estado: String(Estado) } as Record<string, string> })),
  ];
});

describe('row → signed document → flatten', () => {
  it('gives back exactly the row’s cells (trimmed headers, minus CasoPrueba) for every case of both sets', () => {
    const codes = new Map<string, string>();
    for (const c of [...cases.filter((x) => x.kind !== 'rfce'), ...cases.filter((x) => x.kind === 'rfce')]) {
      const built = buildCase({ kind: c.kind, cells: c.cells, key, signedAt: SIGNED_AT, securityCode: c.kind === 'rfce' ? codes.get(c.cells.ENCF!) : undefined });
      if (c.kind === 'ecf32') codes.set(c.cells.ENCF!, built.securityCode);
      const doc = flattenDocument(built.xml);
      expect(doc.kind).toBe(c.kind);
      expect(doc.unmapped).toEqual([]);
      expect(doc.cells).toEqual(comparableCells(c.cells, [c.kind]));
      expect(flatten(built.xml)).toEqual(doc.cells);
      if (c.kind.startsWith('ecf')) expect(doc.added).toEqual({ FechaHoraFirma: signatureTimestamp(SIGNED_AT) });
      if (c.kind === 'rfce') expect(doc.added).toEqual({ CodigoSeguridadeCF: codes.get(c.cells.ENCF!) });
      if (c.kind === 'acecf') expect(doc.added).toEqual({});
    }
    // The quirky headers came back in DGII's spelling, trimmed.
    const withContainer = cases.find((c) => c.cells['NumeroContenedor '] !== undefined)!;
    expect(comparableCells(withContainer.cells, [withContainer.kind])).toHaveProperty('NumeroContenedor', 'CONT-0001');
    expect(cases.some((c) => Object.keys(c.cells).some((h) => h.startsWith('MontosubRecargo[')))).toBe(true);
    expect(cases.some((c) => Object.keys(c.cells).some((h) => h.startsWith('NumeroLineaDoR[')))).toBe(true);
  });

  it('lists what no column holds (a second Subtotal) instead of dropping it', () => {
    const xml =
      '<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado><Subtotales><Subtotal><Orden>1</Orden></Subtotal><Subtotal><Orden>2</Orden></Subtotal></Subtotales></ECF>';
    expect(flattenDocument(xml)).toMatchObject({ cells: { TipoeCF: '31', Orden: '1' }, unmapped: ['ECF/Subtotales/Subtotal[2]/Orden'] });
    expect(flatten(xml)).toHaveProperty(['/ECF/Subtotales/Subtotal[2]/Orden'], '');
  });

  it('refuses what is not a certification document with a clear error', () => {
    for (const xml of ['<ECF><Encabezado>', '<ARECF></ARECF>', '<ECF><Encabezado><IdDoc><TipoeCF>99</TipoeCF></IdDoc></Encabezado></ECF>']) {
      let error: unknown;
      try {
        flattenDocument(xml);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).code).toBe('Certification.DocumentUnreadable');
    }
  });
});

/** Text a workbook cell may hold: XML-special characters, accents, inner and outer spaces, never empty or `#e`. */
const CHARS = [...'abcXYZ019 .,-/&<>"\'ñÁé#\t', '\u00a0', '😀'];
const cellText = fc
  .string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 12 })
  .filter((s) => s !== '#e');
/** How a header may be written: as is, with spaces around it, or in another case. */
const spelling = fc.constantFrom<(h: string) => string>(
  (h) => h,
  (h) => `${h} `,
  (h) => ` ${h}`,
  (h) => h.toLowerCase(),
  (h) => h.toUpperCase(),
);

describe('the column rule both ways (property)', () => {
  it('any row, with cells dropped, values replaced and headers re-spelt, flattens back to its comparable cells', () => {
    const arbitrary = fc
      .constantFrom(...cases)
      .chain((c) => {
        const headers = Object.keys(c.cells);
        return fc.record({
          c: fc.constant(c),
          keep: fc.subarray(headers, { minLength: 1 }),
          values: fc.array(cellText, { minLength: headers.length, maxLength: headers.length }),
          replace: fc.array(fc.boolean(), { minLength: headers.length, maxLength: headers.length }),
          spell: fc.array(spelling, { minLength: headers.length, maxLength: headers.length }),
        });
      })
      .map(({ c, keep, values, replace, spell }) => {
        const headers = Object.keys(c.cells);
        const cells: Record<string, string> = {};
        headers.forEach((h, i) => {
          // TipoeCF says which schema the document follows: it stays as written.
          if (h === 'TipoeCF') cells[h] = c.cells[h]!;
          else if (keep.includes(h)) cells[spell[i]!(h)] = replace[i] ? values[i]! : c.cells[h]!;
        });
        return { kind: c.kind, cells };
      });
    fc.assert(
      fc.property(arbitrary, ({ kind, cells }) => {
        const { data, problems } = rowData(kind, cells);
        // Dropping a whole item while keeping a later one leaves a gap the XML cannot keep; rowData refuses those rows.
        fc.pre(problems.length === 0);
        const xml = serialize(kind as DocumentKind, data);
        const expected = comparableCells(cells, [kind]);
        expect(flatten(xml)).toEqual(expected);
        // The keys are DGII's trimmed spelling, whatever the header looked like.
        for (const k of Object.keys(expected)) expect(k).toBe(k.trim());
      }),
      { numRuns: 200, seed: 20261125 },
    );
  });
});

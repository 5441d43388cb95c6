import { describe, expect, it } from 'vitest';
import { IssueEcfCommand } from '../../../src/engine/documents/payload.js';
import { issueValid, text, validate } from './issue-helper.js';

const invoice = (extra: Record<string, unknown> = {}, line: Record<string, unknown> = {}) => ({
  type: 31,
  incomeType: '01',
  payment: { condition: '1' },
  buyer: { rnc: '131880681', name: 'Constructora Ejemplo SRL' },
  lines: [{ name: 'Cemento gris', quantity: 2, unitPrice: '350.00', ...line }],
  ...extra,
});

describe('internalNumber', () => {
  it('the payload schema (and so the OpenAPI document) says at most 20 characters', () => {
    const schema = IssueEcfCommand.properties.internalNumber as unknown as { anyOf: { type: string; maxLength?: number }[] };
    expect(schema.anyOf.find((s) => s.type === 'string')?.maxLength).toBe(20);
  });

  it('20 characters are issued as NumeroFacturaInterna; 21 are a 400 naming internalNumber', () => {
    const twenty = 'FAC-2026-0000000&<Ñ>';
    expect(twenty).toHaveLength(20);
    const { signed, schema } = issueValid(invoice({ internalNumber: twenty }));
    expect(schema.errors).toEqual([]);
    expect(text(signed.xml, 'NumeroFacturaInterna')).toBe('FAC-2026-0000000&amp;&lt;Ñ&gt;');
    const r = validate(invoice({ internalNumber: `${twenty}1` }));
    expect(r.document).toBeNull();
    expect(r.errors).toEqual([expect.objectContaining({ path: 'internalNumber' })]);
    expect(r.errors[0]!.message).toContain('20 characters');
  });
});

describe('itbisRate: null without taxTreatment', () => {
  it('issues the type’s default and answers a warning naming the rate it took', () => {
    const r = validate(invoice({}, { itbisRate: null }));
    expect(r.errors).toEqual([]);
    expect(r.document!.lines[0]!.itbisRate).toBe(18);
    expect(r.warnings).toEqual([
      {
        path: 'lines[0].itbisRate',
        code: 'Ecf.DefaultApplied',
        message: 'lines[0].itbisRate is null and taxTreatment is not given: the line was issued taxed at 18 %, the default for type 31',
      },
    ]);
  });

  it('names 0 % on an export (46) and exempt on a type whose lines are exempt (43)', () => {
    const exportDoc = validate({
      type: 46, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: '131880681', name: 'Export SRL' },
      lines: [{ name: 'Cacao', quantity: 1, unitPrice: '10.00', itbisRate: null }],
    });
    expect(exportDoc.warnings[0]?.message).toContain('taxed at 0 %, the default for type 46');
    const minor = validate({ type: 43, lines: [{ name: 'Pasaje', quantity: 1, unitPrice: '150.00', itbisRate: null }] });
    expect(minor.errors).toEqual([]);
    expect(minor.warnings[0]?.message).toContain('issued exempt, the default for type 43');
  });

  it('says nothing when the rate is left out, or when taxTreatment is given', () => {
    expect(validate(invoice()).warnings).toEqual([]);
    expect(validate(invoice({}, { itbisRate: null, taxTreatment: 'exempt' })).warnings).toEqual([]);
    expect(validate(invoice({}, { itbisRate: null, taxTreatment: 'taxed' })).warnings).toEqual([]);
  });
});

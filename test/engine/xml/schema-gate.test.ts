import { describe, expect, it } from 'vitest';
import { serialize } from '../../../src/engine/xml/canonical.js';
import { SchemaMismatch, assertSignable, isDefect, signable } from '../../../src/engine/xml/schema-gate.js';
import { ARECF, RFCE, ecf31 } from './documents.js';

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
};

describe('the schema gate before signing', () => {
  it('passes valid unsigned documents of kinds whose schema requires the Signature and of kinds where it is optional', () => {
    expect(() => signable('ecf31', ecf31(3))).not.toThrow();
    expect(() => signable('rfce', RFCE)).not.toThrow();
    expect(() => signable('arecf', ARECF)).not.toThrow();
  });

  it('refuses a value the schema refuses, naming the element and the value, as a 400-kind defect', () => {
    const data = ecf31(1);
    const header = data.Encabezado as Record<string, unknown>;
    const totals = header.Totales as Record<string, unknown>;
    totals.MontoTotal = '12.345'; // three decimals: the authority's amounts have at most two
    const e = thrown(() => signable('ecf31', data));
    expect(e).toBeInstanceOf(SchemaMismatch);
    const mismatch = e as SchemaMismatch;
    expect(mismatch.kind).toBe('validation');
    expect(mismatch.code).toBe('Document.SchemaMismatch');
    expect(isDefect(mismatch)).toBe(true);
    expect(mismatch.message).toContain("'MontoTotal'");
    expect(mismatch.message).toContain('12.345');
    expect(mismatch.message).not.toMatch(/line \d+:/);
  });

  it('refuses a missing required element', () => {
    const data = ecf31(1);
    delete (data.Encabezado as Record<string, unknown>).Emisor;
    const e = thrown(() => signable('ecf31', data)) as SchemaMismatch;
    expect(e).toBeInstanceOf(SchemaMismatch);
    expect(e.problems.join(' ')).toContain('Emisor');
  });

  it('turns data that does not fit the schema tree into the same defect, not a bare Error', () => {
    const data = { ...ecf31(1), Unknown: 'x' };
    const e = thrown(() => signable('ecf31', data)) as SchemaMismatch;
    expect(e).toBeInstanceOf(SchemaMismatch);
    expect(e.problems[0]).toContain('ECF/Unknown');
  });

  it('checks the text as given: a document already serialised is gated the same way', () => {
    const ok = serialize('ecf31', ecf31(2));
    expect(() => assertSignable('ecf31', ok)).not.toThrow();
    expect(() => assertSignable('ecf31', ok.replace('<Version>1.0</Version>', '<Version>2.0</Version>'))).toThrow(SchemaMismatch);
  });
});

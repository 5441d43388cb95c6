import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { XmlDocument, XsdValidator } from 'libxml2-wasm';
import { serialize } from '../../../src/engine/xml/canonical.js';
import { DOCUMENT_KINDS, SCHEMA_FILES, SCHEMA_TREES } from '../../../src/engine/xml/schema-trees.generated.js';
import { releaseSchemas, schemaDirectory, schemaSource, validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { ARECF, ecf31, RFCE, withDummySignature } from './documents.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

afterAll(() => releaseSchemas());

/** Hand-written; the seed schema requires the trailing xs:any (processContents="skip"). */
const SEMILLA = `<?xml version="1.0" encoding="utf-8"?>
<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <valor>eyJhbGciOiJIUzI1NiJ9.semilla==</valor>
  <fecha>2026-01-15T12:00:00.1234567-04:00</fecha>
  <Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>
</SemillaModel>`;

/** Hand-written, unsigned: the ARECF schema makes the trailing xs:any optional. */
const ARECF_XML = `<ARECF>
  <DetalleAcusedeRecibo>
    <Version>1.0</Version>
    <RNCEmisor>130862346</RNCEmisor>
    <RNCComprador>131880681</RNCComprador>
    <eNCF>E310000000001</eNCF>
    <Estado>1</Estado>
    <CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>
    <FechaHoraAcuseRecibo>15-01-2026 12:05:00</FechaHoraAcuseRecibo>
  </DetalleAcusedeRecibo>
</ARECF>`;

describe('the DGII schemas', () => {
  it('all 15 compile (after the in-memory fixes) and report errors for a wrong document', () => {
    expect(DOCUMENT_KINDS).toHaveLength(15);
    for (const kind of DOCUMENT_KINDS) {
      const result = validateAgainstSchema(kind, '<NotADgiiDocument/>');
      expect(result.valid, kind).toBe(false);
      expect(result.errors, kind).toEqual([
        "line 1: Element 'NotADgiiDocument': No matching global declaration available for the validation root.",
      ]);
    }
  });

  it('e-CF 31, RFCE and ACECF do not compile as published: the fixes are needed', () => {
    for (const kind of DOCUMENT_KINDS) {
      let text = readFileSync(join(schemaDirectory(), SCHEMA_FILES[kind]), 'utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const doc = XmlDocument.fromString(text);
      let compiles = true;
      try {
        XsdValidator.fromDoc(doc).dispose();
      } catch {
        compiles = false;
      } finally {
        doc.dispose();
      }
      expect(compiles, kind).toBe(!['ecf31', 'rfce', 'acecf'].includes(kind));
    }
    expect(schemaSource('ecf31')).toContain('name="IndicadorServicioTodoIncluidoType"');
    expect(schemaSource('rfce')).not.toContain('(?:');
    expect(schemaSource('acecf')).not.toContain('(?:');
    expect(schemaSource('ecf32').charCodeAt(0)).not.toBe(0xfeff);
  });

  it('are found in the package root from the source tree', () => {
    expect(schemaDirectory()).toBe(join(ROOT, 'schemas', 'dgii'));
  });
});

describe('validateAgainstSchema', () => {
  it('accepts a minimal Semilla with a Signature-shaped element in the xs:any slot', () => {
    expect(validateAgainstSchema('semilla', SEMILLA)).toEqual({ valid: true, errors: [] });
  });

  it('rejects a Semilla without the Signature the schema requires', () => {
    const result = validateAgainstSchema('semilla', SEMILLA.replace(/\s*<Signature[^>]*\/>/, ''));
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toMatch(/line 2: Element 'SemillaModel': Missing child element/);
  });

  it('rejects a Semilla with a wrong date, naming the element and line', () => {
    const result = validateAgainstSchema('semilla', SEMILLA.replace('2026-01-15T12:00:00.1234567-04:00', '15-01-2026 12:00:00'));
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/^line 4: Element 'fecha': '15-01-2026 12:00:00' is not a valid value of the atomic type 'xs:dateTime'/);
  });

  it('accepts a minimal ARECF, unsigned and signed', () => {
    expect(validateAgainstSchema('arecf', ARECF_XML)).toEqual({ valid: true, errors: [] });
    expect(validateAgainstSchema('arecf', withDummySignature(ARECF_XML))).toEqual({ valid: true, errors: [] });
    expect(validateAgainstSchema('arecf', serialize('arecf', ARECF))).toEqual({ valid: true, errors: [] });
  });

  it('returns every error of a wrong ARECF, each naming its element and line', () => {
    const wrong = ARECF_XML.replace('<Estado>1</Estado>', '<Estado>7</Estado>').replace(/\s*<RNCComprador>.*<\/RNCComprador>/, '');
    const result = validateAgainstSchema('arecf', wrong);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      "line 5: Element 'eNCF': This element is not expected. Expected is ( RNCComprador ).",
    ]);
    // After a content-model error libxml2 skips the rest of that sequence; value errors all come back.
    const badValues = validateAgainstSchema(
      'arecf',
      ARECF_XML.replace('<Estado>1</Estado>', '<Estado>7</Estado>').replace('15-01-2026 12:05:00', '2026-01-15T12:05:00'),
    );
    expect(badValues.errors).toEqual([
      "line 7: Element 'Estado': [facet 'enumeration'] The value '7' is not an element of the set {'0', '1'}.",
      expect.stringMatching(/^line 9: Element 'FechaHoraAcuseRecibo': \[facet 'pattern'\] The value '2026-01-15T12:05:00' is not accepted by the pattern/),
    ]);
  });

  it('reports a document that is not well-formed with the parser messages', () => {
    const result = validateAgainstSchema('arecf', '<ARECF>\n<DetalleAcusedeRecibo>\n</ARECF>');
    expect(result.valid).toBe(false);
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors[0]).toMatch(/^line 3: .*DetalleAcusedeRecibo/);
  });

  it('takes a Buffer or a string, with or without a BOM', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(validateAgainstSchema('arecf', Buffer.concat([bom, Buffer.from(ARECF_XML)])).valid).toBe(true);
    expect(validateAgainstSchema('arecf', `\uFEFF${ARECF_XML}`).valid).toBe(true);
    expect(validateAgainstSchema('arecf', Buffer.from(ARECF_XML)).valid).toBe(true);
  });

  it('does not fetch external entities', () => {
    const xxe = `<!DOCTYPE ARECF [<!ENTITY x SYSTEM "file:///etc/hostname">]>${ARECF_XML.replace('E310000000001', '&x;')}`;
    const result = validateAgainstSchema('arecf', xxe);
    expect(result.valid).toBe(false);
  });

  it('accepts what the serializer writes for a 1,000-line e-CF 31 and an RFCE, once signed', () => {
    expect(validateAgainstSchema('ecf31', withDummySignature(serialize('ecf31', ecf31(1000))))).toEqual({ valid: true, errors: [] });
    expect(validateAgainstSchema('rfce', withDummySignature(serialize('rfce', RFCE)))).toEqual({ valid: true, errors: [] });
    // Unsigned, the e-CF schema rejects it: the Signature slot is required.
    const unsigned = validateAgainstSchema('ecf31', serialize('ecf31', ecf31(1)));
    expect(unsigned.valid).toBe(false);
    expect(unsigned.errors.join('\n')).toMatch(/Element 'ECF': Missing child element/);
  });

  it('rejects an RFCE with no buyer: Comprador is required but all its children are optional', () => {
    // The serializer leaves out the empty Comprador (no empty elements); the schema wants it.
    const data = { Encabezado: { ...(RFCE.Encabezado as object), Comprador: {} } };
    const result = validateAgainstSchema('rfce', withDummySignature(serialize('rfce', data)));
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toMatch(/Element 'Totales': This element is not expected. Expected is \( Comprador \)/);
    expect(SCHEMA_TREES.rfce.children[0]!.children!.find((n) => n.name === 'Comprador')).toMatchObject({ min: 1 });
  });
});

describe('from the build output', () => {
  const built = join(ROOT, 'dist', 'engine', 'xml', 'xsd.js');
  it.skipIf(!existsSync(built))('dist/engine/xml/xsd.js finds the schemas too (skipped until npm run build)', () => {
    const script = `import(${JSON.stringify(built)}).then((m) => { console.log(JSON.stringify({ dir: m.schemaDirectory(), r: m.validateAgainstSchema('arecf', process.argv[1]) })); m.releaseSchemas(); })`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script, ARECF_XML]).toString()) as { dir: string; r: unknown };
    expect(out.dir).toBe(join(ROOT, 'schemas', 'dgii'));
    expect(out.r).toEqual({ valid: true, errors: [] });
  });
});

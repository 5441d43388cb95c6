import { describe, expect, it } from 'vitest';
import { serialize, XmlShapeError, type XmlData } from '../../../src/engine/xml/canonical.js';
import { ecf31, ecf31Item, XMLNS_XSD, XMLNS_XSI } from './documents.js';

/** The error serialize throws for `data`, so tests can look at its path and message. */
function shapeError(run: () => unknown): XmlShapeError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(XmlShapeError);
    return err as XmlShapeError;
  }
  throw new Error('expected an XmlShapeError');
}

describe('serialize: order and presence', () => {
  it('writes schema order whatever the key order of the data', () => {
    expect(serialize('semilla', { fecha: '2026-01-15T12:00:00', valor: 'abc' })).toBe(
      '<SemillaModel><valor>abc</valor><fecha>2026-01-15T12:00:00</fecha></SemillaModel>',
    );
    const xml = serialize('ecf31', ecf31(2));
    const order = ['<Encabezado>', '<Version>', '<IdDoc>', '<Emisor>', '<Comprador>', '<Totales>', '<DetallesItems>', '<FechaHoraFirma>'];
    const positions = order.map((tag) => xml.indexOf(tag));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Inside Totales the fixture lists MontoTotal first; the schema puts it after the ITBIS fields.
    expect(xml).toContain('<Totales><MontoGravadoTotal>');
    expect(xml).toContain('</TotalITBIS1><MontoTotal>');
    // Repeated elements keep the data's order.
    expect(xml.indexOf('<NumeroLinea>1</NumeroLinea>')).toBeLessThan(xml.indexOf('<NumeroLinea>2</NumeroLinea>'));
  });

  it('leaves out undefined, null and empty strings', () => {
    expect(serialize('arecf', {
      DetalleAcusedeRecibo: {
        Version: '1.0',
        RNCEmisor: '130862346',
        RNCComprador: null,
        eNCF: '',
        Estado: '0',
        CodigoMotivoNoRecibido: undefined,
        FechaHoraAcuseRecibo: '15-01-2026 12:05:00',
      },
    })).toBe(
      '<ARECF><DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>130862346</RNCEmisor><Estado>0</Estado>' +
        '<FechaHoraAcuseRecibo>15-01-2026 12:05:00</FechaHoraAcuseRecibo></DetalleAcusedeRecibo></ARECF>',
    );
  });

  it('leaves out an element whose children are all absent, at any depth', () => {
    const data = ecf31(1) as { Encabezado: Record<string, XmlData> };
    data.Encabezado.IdDoc = {
      ...data.Encabezado.IdDoc,
      TablaFormasPago: { FormaDePago: [{ FormaPago: '', MontoPago: null }, { FormaPago: undefined }] },
    };
    data.Encabezado.Comprador = { RNCComprador: '', RazonSocialComprador: undefined };
    data.Encabezado.Transporte = { Conductor: null };
    const xml = serialize('ecf31', data);
    expect(xml).not.toContain('TablaFormasPago');
    expect(xml).not.toContain('FormaDePago');
    expect(xml).not.toContain('Comprador');
    expect(xml).not.toContain('Transporte');
    // An empty array is absent as well.
    expect(serialize('ecf31', { Encabezado: { Emisor: { TablaTelefonoEmisor: { TelefonoEmisor: [] } } } })).toBe('<ECF></ECF>');
  });

  it('never writes an empty-element tag or whitespace between elements', () => {
    const xml = serialize('ecf31', ecf31(3));
    expect(xml).not.toContain('/>');
    expect(xml).not.toMatch(/>\s+</);
    expect(xml.startsWith('<ECF>')).toBe(true);
    expect(serialize('semilla', {})).toBe('<SemillaModel></SemillaModel>');
  });
});

describe('serialize: text', () => {
  it('escapes & < > and CR as C14N does, and nothing else', () => {
    const xml = serialize('semilla', { valor: 'a & b < c > d\re "q" \'s\' tab\there\nline' });
    expect(xml).toBe(
      '<SemillaModel><valor>a &amp; b &lt; c &gt; d&#xD;e "q" \'s\' tab\there\nline</valor></SemillaModel>',
    );
  });

  it('keeps non-ASCII characters as UTF-8, not character references', () => {
    const xml = serialize('semilla', { valor: 'Peña Núñez, año, acción, ½, €, 𝄞' });
    expect(xml).toContain('<valor>Peña Núñez, año, acción, ½, €, 𝄞</valor>');
    expect(xml).not.toContain('&#');
    const bytes = Buffer.from(xml, 'utf8');
    expect(bytes.includes(Buffer.from([0xc3, 0xb1]))).toBe(true); // ñ
    expect(bytes.includes(Buffer.from([0xc3, 0xa1]))).toBe(false); // no á in this text
    expect(Buffer.from(serialize('semilla', { valor: 'á' }), 'utf8').includes(Buffer.from([0xc3, 0xa1]))).toBe(true);
  });

  it('leaves whitespace-only and space-padded text as given (only the empty string is absent)', () => {
    expect(serialize('semilla', { valor: ' x ', fecha: ' ' })).toBe('<SemillaModel><valor> x </valor><fecha> </fecha></SemillaModel>');
  });

  it('refuses characters XML 1.0 cannot carry', () => {
    const err = shapeError(() => serialize('semilla', { valor: 'bell\u0007' }));
    expect(err.path).toBe('SemillaModel/valor');
    expect(err.message).toMatch(/XML 1\.0 does not allow/);
    expect(() => serialize('semilla', { valor: 'half \uD800 pair' })).toThrow(XmlShapeError);
    expect(serialize('semilla', { valor: 'pair 😀' })).toContain('pair 😀');
  });
});

describe('serialize: root attributes', () => {
  it('writes namespace declarations first, then attributes by namespace URI and local name', () => {
    const xml = serialize('semilla', { valor: 'x' }, {
      rootAttributes: {
        zeta: 'z',
        'xsi:noNamespaceSchemaLocation': 'Semilla v.1.0.xsd',
        'xml:lang': 'es-DO',
        'xmlns:xsi': XMLNS_XSI,
        alpha: 'a',
        'xmlns:xsd': XMLNS_XSD,
        xmlns: '',
      },
    });
    expect(xml).toBe(
      `<SemillaModel xmlns:xsd="${XMLNS_XSD}" xmlns:xsi="${XMLNS_XSI}" alpha="a" zeta="z" ` +
        `xsi:noNamespaceSchemaLocation="Semilla v.1.0.xsd" xml:lang="es-DO"><valor>x</valor></SemillaModel>`,
    );
  });

  it('escapes attribute values as C14N does', () => {
    expect(serialize('semilla', {}, { rootAttributes: { a: `& < > " ' \t \n \r ñ` } })).toBe(
      `<SemillaModel a="&amp; &lt; > &quot; ' &#x9; &#xA; &#xD; ñ"></SemillaModel>`,
    );
  });

  it('refuses a default namespace, undeclared prefixes and malformed names', () => {
    expect(() => serialize('semilla', {}, { rootAttributes: { xmlns: 'urn:x' } })).toThrow(/default namespace/);
    expect(() => serialize('semilla', {}, { rootAttributes: { 'xsi:type': 'x' } })).toThrow(/prefix xsi is not declared/);
    expect(() => serialize('semilla', {}, { rootAttributes: { 'a b': 'x' } })).toThrow(XmlShapeError);
    expect(() => serialize('semilla', {}, { rootAttributes: { 'xmlns:p': '' } })).toThrow(/undeclare/);
    expect(() =>
      serialize('semilla', {}, { rootAttributes: { 'xmlns:p': 'urn:x', 'xmlns:q': 'urn:x', 'p:a': '1', 'q:a': '2' } }),
    ).toThrow(/same attribute/);
  });
});

describe('serialize: data that does not fit the schema', () => {
  it('refuses an element the schema does not have at that place, naming the path', () => {
    let err = shapeError(() => serialize('semilla', { valor: 'x', Valor: 'y' }));
    expect(err.path).toBe('SemillaModel/Valor');
    // FechaEmision exists in Emisor, not in IdDoc.
    err = shapeError(() => serialize('ecf31', { Encabezado: { IdDoc: { TipoeCF: '31', FechaEmision: '15-01-2026' } } }));
    expect(err.path).toBe('ECF/Encabezado/IdDoc/FechaEmision');
    const lines = [ecf31Item(1), { ...ecf31Item(2), Precio: '1.00' }];
    err = shapeError(() => serialize('ecf31', { DetallesItems: { Item: lines } }));
    expect(err.path).toBe('ECF/DetallesItems/Item[2]/Precio');
    // Type 32 has no FechaVencimientoSecuencia.
    err = shapeError(() => serialize('ecf32', { Encabezado: { IdDoc: { FechaVencimientoSecuencia: '31-12-2027' } } }));
    expect(err.path).toBe('ECF/Encabezado/IdDoc/FechaVencimientoSecuencia');
    expect(() => serialize('ecf31', { Signature: 'x' })).toThrow(/signing adds the Signature/);
  });

  it('ignores a key the schema does not have when its value is absent', () => {
    expect(serialize('ecf32', { Encabezado: { IdDoc: { TipoeCF: '32', FechaVencimientoSecuencia: undefined } } })).toBe(
      '<ECF><Encabezado><IdDoc><TipoeCF>32</TipoeCF></IdDoc></Encabezado></ECF>',
    );
  });

  it('refuses more repetitions than maxOccurs', () => {
    const phones = ['809-555-0001', '809-555-0002', '809-555-0003'];
    expect(serialize('ecf31', { Encabezado: { Emisor: { TablaTelefonoEmisor: { TelefonoEmisor: phones } } } })).toContain(
      '<TelefonoEmisor>809-555-0003</TelefonoEmisor>',
    );
    const err = shapeError(() =>
      serialize('ecf31', { Encabezado: { Emisor: { TablaTelefonoEmisor: { TelefonoEmisor: [...phones, '809-555-0004'] } } } }),
    );
    expect(err.path).toBe('ECF/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor');
    expect(err.message).toMatch(/at most 3 times/);
    // Absent items do not count.
    expect(() =>
      serialize('ecf31', { Encabezado: { Emisor: { TablaTelefonoEmisor: { TelefonoEmisor: [...phones, '', null as never] } } } }),
    ).not.toThrow();
    expect(() => serialize('ecf31', { DetallesItems: { Item: Array.from({ length: 1001 }, (_, i) => ecf31Item(i + 1)) } })).toThrow(
      /at most 1000 times/,
    );
  });

  it('refuses an array where the element occurs at most once', () => {
    const err = shapeError(() => serialize('semilla', { valor: ['a', 'b'] }));
    expect(err.path).toBe('SemillaModel/valor');
    expect(err.message).toMatch(/at most once/);
    expect(() => serialize('semilla', { valor: ['a'] })).toThrow(/at most once/);
  });

  it('refuses values of the wrong shape', () => {
    expect(shapeError(() => serialize('ecf31', { Encabezado: 'x' })).message).toMatch(/must be an object/);
    expect(shapeError(() => serialize('semilla', { valor: { x: '1' } })).message).toMatch(/must be a string/);
    expect(shapeError(() => serialize('semilla', { valor: 12 as unknown as string })).message).toMatch(/not a number/);
    expect(shapeError(() => serialize('ecf31', { DetallesItems: { Item: [[ecf31Item(1)] as never] } })).path).toBe(
      'ECF/DetallesItems/Item[1]',
    );
  });
});

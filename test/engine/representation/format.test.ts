import { describe, expect, it } from 'vitest';
import { amount, pdfText, placeName, quantity, titleCase, unitAbbreviation } from '../../../src/engine/representation/format.js';
import { readSignedEcf } from '../../../src/engine/representation/reader.js';

describe('how values are written on paper', () => {
  it('groups amounts by thousands with two decimals or more, from the decimal text', () => {
    expect(amount('0.00')).toBe('0.00');
    expect(amount('5')).toBe('5.00');
    expect(amount('999.5')).toBe('999.50');
    expect(amount('1000.00')).toBe('1,000.00');
    expect(amount('1234567.89')).toBe('1,234,567.89');
    expect(amount('9999999999999999.99')).toBe('9,999,999,999,999,999.99');
    expect(amount('0.335')).toBe('0.335');
    expect(amount('-5.00')).toBe('-5.00');
  });

  it('drops the trailing zeros of quantities and percentages', () => {
    expect(quantity('10.00')).toBe('10');
    expect(quantity('2.50')).toBe('2.5');
    expect(quantity('1000.00')).toBe('1,000');
    expect(quantity('0.280')).toBe('0.28');
  });

  it('names places and units by the official lists', () => {
    expect(placeName('010000')).toBe('Distrito Nacional');
    expect(placeName('010100')).toBe('Santo Domingo de Guzmán');
    expect(placeName('010101')).toBe('Santo Domingo de Guzmán (D. M.)');
    expect(placeName('020000')).toBe('Azua');
    expect(placeName('999999')).toBe('999999');
    expect(titleCase('LAS BARÍAS-LA ESTANCIA')).toBe('Las Barías-La Estancia');
    expect(unitAbbreviation('43')).toBe('UND');
    expect(unitAbbreviation('6')).toBe('CAJ');
    expect(unitAbbreviation('12')).toBe('DÍA');
  });

  it('keeps the WinAnsi characters and replaces the others', () => {
    expect(pdfText('Ñoño, pingüino, ¿qué? ¡sí! – “citas” … €5 • ©')).toBe('Ñoño, pingüino, ¿qué? ¡sí! – “citas” … €5 • ©');
    expect(pdfText('Łódź ā ŝ')).toBe('?ódz a s');
    expect(pdfText('Ω 中 🙂')).toBe('? ? ?');
    expect(pdfText('tab\there\nline\u0007')).toBe('tab here line');
    expect(pdfText('e\u0301')).toBe('é');
  });
});

describe('reading the signed XML', () => {
  const xml = (body: string) =>
    `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF></IdDoc><Emisor><RNCEmisor>131234567</RNCEmisor><RazonSocialEmisor>A &amp; B &#xD1;o&#241;o</RazonSocialEmisor><FechaEmision>10-03-2026</FechaEmision></Emisor><Totales><MontoTotal>1.00</MontoTotal></Totales></Encabezado>${body}<FechaHoraFirma>10-03-2026 10:00:00</FechaHoraFirma><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/><SignatureValue>ab+/cdEFGH==</SignatureValue></Signature></ECF>`;

  it('takes every value as text, entities decoded, and the security code from the signature', () => {
    const p = readSignedEcf(xml('<DetallesItems><Item><NumeroLinea>1</NumeroLinea><IndicadorFacturacion>4</IndicadorFacturacion><NombreItem>x &lt;y&gt;</NombreItem><CantidadItem>1.00</CantidadItem><PrecioUnitarioItem>1.00</PrecioUnitarioItem><MontoItem>1.00</MontoItem></Item></DetallesItems>'));
    expect(p.issuer.legalName).toBe('A & B Ñoño');
    expect(p.lines).toEqual([expect.objectContaining({ number: 1, indicator: 4, name: 'x <y>', amount: '1.00' })]);
    expect(p.securityCode).toBe('ab+/cd');
    expect(p.signedAt).toBe('10-03-2026 10:00:00');
    expect(p.buyer).toBeNull();
    expect(p.totals).toEqual({ MontoTotal: '1.00' });
  });

  it('refuses XML that is not well nested', () => {
    expect(() => readSignedEcf('<ECF><Encabezado></ECF>')).toThrow(/not well-formed/);
    expect(() => readSignedEcf('<ECF></ECF><ECF></ECF>')).toThrow(/not well-formed/);
    expect(() => readSignedEcf(xml('').replace('<FechaHoraFirma>10-03-2026 10:00:00</FechaHoraFirma>', ''))).toThrow(/FechaHoraFirma/);
  });
});

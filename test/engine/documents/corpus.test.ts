import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeTotals } from '../../../src/engine/documents/totals.js';
import { prepareDocument } from '../../../src/engine/documents/prepare.js';
import { signEcf } from '../../../src/engine/documents/sign-ecf.js';
import type { Issuer } from '../../../src/engine/documents/ecf-xml.js';
import { signingKey } from '../../../src/engine/signing/xmldsig.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import type { DocumentKind } from '../../../src/engine/xml/schema-trees.generated.js';
import { makeIdentity } from '../../certs.js';
import { verifyWithXmlCrypto, verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { corpus } from './corpus.js';

const identity = makeIdentity();
const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));
const issuer: Issuer = {
  rnc: '131234567',
  legalName: 'Ferretería Ñoño & Hijos SRL',
  tradeName: 'Ferretería Ñoño',
  address: 'Calle El Conde 12, Zona Colonial',
  municipality: '010100',
  province: '010000',
  phones: ['809-555-1234'],
  email: 'ventas@ferreteria.do',
  economicActivity: 'Venta de materiales de construcción',
};
const cases = corpus();

function issue(payload: Record<string, unknown>) {
  const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: '2026-03-10' });
  expect(outcome.errors, JSON.stringify(outcome.errors, null, 1)).toEqual([]);
  const doc = outcome.document!;
  const computed = computeTotals(doc.totalsInput);
  const type = doc.type;
  const signed = signEcf({
    document: doc,
    computed,
    issuer,
    numbering: { encf: `E${type}0000000001`, sequenceExpiresOn: type === 32 || type === 34 ? null : '2027-12-31' },
    key,
    environment: 'test',
    now: new Date('2026-03-10T14:05:09Z'),
  });
  return { doc, computed, signed };
}

describe('the document corpus', () => {
  it('has at least 50 payloads covering all ten types', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
    expect(new Set(cases.map((c) => c.payload.type))).toEqual(new Set([31, 32, 33, 34, 41, 43, 44, 45, 46, 47]));
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: valid against the official XSD, signature verified by xmlsec1', (_name, c) => {
    const { doc, signed } = issue(c.payload);
    const result = validateAgainstSchema(`ecf${doc.type}` as DocumentKind, signed.xml);
    expect(result.errors).toEqual([]);
    const xmlsec = verifyWithXmlsec1(signed.xml, identity.certPem);
    expect(xmlsec.ok, xmlsec.output).toBe(true);
    if (signed.rfceXml) {
      expect(validateAgainstSchema('rfce', signed.rfceXml).errors).toEqual([]);
      expect(verifyWithXmlsec1(signed.rfceXml, identity.certPem).ok).toBe(true);
    }
  });

  it('signs text with ñ, á, ampersands and a thousand lines so that xml-crypto verifies it too', () => {
    for (const c of cases.filter((x) => /escapes|thousand/.test(x.name)).slice(0, 3)) {
      const { signed } = issue(c.payload);
      expect(verifyWithXmlCrypto(signed.xml, identity.certPem), c.name).toBe(true);
    }
  });

  it('produces the RFCE only for type 32 strictly under DOP 250,000, with the full e-CF’s security code', () => {
    const small = issue(cases.find((c) => c.name === 'e-CF 32: as is')!.payload);
    expect(small.signed.rfceXml).toContain(`<CodigoSeguridadeCF>${small.signed.securityCode}</CodigoSeguridadeCF>`);
    expect(small.signed.rfceXml).toContain('<Comprador></Comprador>');
    expect(small.signed.qrUrl).toMatch(/^https:\/\/fc\.dgii\.gov\.do\/testecf\/consultatimbrefc\?RncEmisor=131234567&ENCF=E320000000001&MontoTotal=224\.20&CodigoSeguridad=/);
    const atThreshold = issue(cases.find((c) => c.name.includes('exactly 250,000.00'))!.payload);
    expect(atThreshold.signed.rfceXml).toBeNull();
    expect(atThreshold.signed.qrUrl).toContain('/testecf/consultatimbre?RncEmisor=131234567&RncComprador=131880681&ENCF=E320000000001');
  });

  it('writes FechaHoraFirma in Dominican time and the same instant in the QR URL', () => {
    const { signed } = issue(cases[0]!.payload);
    expect(signed.xml).toContain('<FechaHoraFirma>10-03-2026 10:05:09</FechaHoraFirma><Signature');
    expect(signed.qrUrl).toContain('FechaFirma=10-03-2026%2010%3A05%3A09');
    expect(signed.xmlSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

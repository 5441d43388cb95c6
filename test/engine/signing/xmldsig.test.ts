import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { securityCode, signCanonical, signatureTimestamp, signingKey } from '../../../src/engine/signing/xmldsig.js';
import { makeIdentity } from '../../certs.js';
import { verifyWithXmlCrypto, verifyWithXmlsec1 } from './verify-tools.js';

const identity = makeIdentity();
const key = signingKey(createPrivateKey(identity.keyPem), new X509Certificate(identity.certPem));

describe('enveloped XMLDSig over canonical documents', () => {
  it('produces signatures xmlsec1 and xml-crypto accept, with non-ASCII text and escaped characters', () => {
    const doc = '<ECF><Encabezado><Emisor>Ferretería Ñoño &amp; Hijos &lt;SRL&gt; "ok"</Emisor></Encabezado><FechaHoraFirma>01-02-2026 13:05:09</FechaHoraFirma></ECF>';
    const signed = signCanonical(doc, key);
    expect(signed.xml.startsWith('<?xml version="1.0" encoding="utf-8"?><ECF>')).toBe(true);
    expect(signed.xml.endsWith('</Signature></ECF>')).toBe(true);
    const xmlsec = verifyWithXmlsec1(signed.xml, identity.certPem);
    expect(xmlsec.ok, xmlsec.output).toBe(true);
    expect(verifyWithXmlCrypto(signed.xml, identity.certPem)).toBe(true);
  });

  it('fails verification when a signed byte changes', () => {
    const signed = signCanonical('<ECF><A>100.00</A></ECF>', key);
    const tampered = signed.xml.replace('100.00', '100.01');
    expect(verifyWithXmlsec1(tampered, identity.certPem).ok).toBe(false);
    expect(verifyWithXmlCrypto(tampered, identity.certPem)).toBe(false);
  });

  it('signs a document whose root declares namespaces (the authority’s seed), which SignedInfo inherits', () => {
    const seed =
      '<SemillaModel xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><valor>abc==</valor><fecha>2026-03-10T10:00:00-04:00</fecha></SemillaModel>';
    const signed = signCanonical(seed, key, {
      rootNamespaces: [
        ['xsi', 'http://www.w3.org/2001/XMLSchema-instance'],
        ['xsd', 'http://www.w3.org/2001/XMLSchema'],
      ],
    });
    const xmlsec = verifyWithXmlsec1(signed.xml, identity.certPem);
    expect(xmlsec.ok, xmlsec.output).toBe(true);
    expect(verifyWithXmlCrypto(signed.xml, identity.certPem)).toBe(true);
    const wrong = signCanonical(seed, key); // forgetting the inherited declarations breaks it
    expect(verifyWithXmlsec1(wrong.xml, identity.certPem).ok).toBe(false);
  });

  it('takes the security code from the SignatureValue and writes FechaHoraFirma in Dominican time', () => {
    const signed = signCanonical('<ECF><A>1</A></ECF>', key);
    expect(securityCode(signed.signatureValue)).toBe(signed.signatureValue.slice(0, 6));
    expect(securityCode(signed.signatureValue)).toHaveLength(6);
    expect(signatureTimestamp(new Date('2026-01-01T17:05:09.900Z'))).toBe('01-01-2026 13:05:09');
    expect(signatureTimestamp(new Date('2026-01-01T02:00:00Z'))).toBe('31-12-2025 22:00:00');
  });
});

describe('timbre URLs', () => {
  it('writes the standard form with every parameter percent-encoded, and drops a missing buyer', async () => {
    const { standardTimbreUrl, consumerTimbreUrl } = await import('../../../src/engine/signing/timbre.js');
    const base = { environment: 'production' as const, issuerRnc: '131234567', encf: 'E310000000001', issueDate: '10-03-2026', montoTotal: '4248.00', signedAt: '10-03-2026 10:00:05', securityCode: 'RHq/p+' };
    expect(standardTimbreUrl({ ...base, buyerRnc: '101010101' })).toBe(
      'https://ecf.dgii.gov.do/ecf/consultatimbre?RncEmisor=131234567&RncComprador=101010101&ENCF=E310000000001&FechaEmision=10-03-2026&MontoTotal=4248.00&FechaFirma=10-03-2026%2010%3A00%3A05&CodigoSeguridad=RHq%2Fp%2B',
    );
    expect(standardTimbreUrl({ ...base, environment: 'test', buyerRnc: null })).toContain('/testecf/consultatimbre?RncEmisor=131234567&ENCF=');
    expect(consumerTimbreUrl({ ...base, environment: 'cert', encf: 'E320000000007' })).toBe(
      'https://fc.dgii.gov.do/certecf/consultatimbrefc?RncEmisor=131234567&ENCF=E320000000007&MontoTotal=4248.00&CodigoSeguridad=RHq%2Fp%2B',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { parseXml as engineParse, verifySignature as engineVerify } from '../../src/engine/signing/verify.js';
import { parseXml, textOf, textsOf, verifySignature } from '../../src/sandbox/verify.js';
import { makeIdentity, type Identity } from '../certs.js';
import { signedEcf } from '../engine/taxauth/fixtures.js';
import { seedIssuer, testEngine } from '../helpers.js';

/**
 * The sandbox's signature check is a faster path to the engine receiver's
 * verdicts (xml-crypto's full checkSignature); these documents, valid and
 * broken in the ways that matter, must get the same verdict from both.
 */

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const C14N_COMMENTS = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const AT = new Date('2026-03-10T14:00:00.000Z');

/** Signs with xml-crypto (not the engine's signer), the Signature appended to the root. */
function signWithXmlCrypto(xml: string, identity: Identity, options: { c14n?: string; transforms?: string[]; prefix?: string } = {}): string {
  const sig = new SignedXml({
    privateKey: identity.keyPem,
    publicCert: identity.certPem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: options.c14n ?? C14N,
    getKeyInfoContent: SignedXml.getKeyInfoContent,
  });
  sig.addReference({ xpath: '/*', digestAlgorithm: SHA256, transforms: options.transforms ?? [ENVELOPED, C14N], uri: '', isEmptyUri: true });
  sig.computeSignature(xml, { location: { reference: '/*', action: 'append' }, ...(options.prefix && { prefix: options.prefix }) });
  return sig.getSignedXml();
}

function verdicts(xml: string, at = AT) {
  const mine = parseXml(xml);
  const theirs = engineParse(xml);
  if (!mine.ok || !theirs.ok) throw new Error('not well-formed');
  const sandbox = verifySignature(xml, mine, at);
  const engine = engineVerify(xml, theirs, at);
  return { sandbox: sandbox.ok, engine: engine.ok, sandboxReason: sandbox.ok ? null : sandbox.reason, engineReason: engine.ok ? null : engine.reason };
}

const DOC = '<Doc xmlns:x="urn:x"><A>1</A><!-- a note --><x:B c="2" a="1">ñ &amp; &lt;</x:B>\n  <C/></Doc>';

describe('the sandbox signature check', () => {
  it('agrees with the engine receiver’s on an e-CF signed by the engine, intact and tampered', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const { xml } = await signedEcf(engine, tenant, 'E310000000001');
    const tampered = {
      intact: xml,
      amount: xml.replace(/<MontoTotal>([^<]*)</, '<MontoTotal>1$1<'),
      signatureValue: xml.replace(/<SignatureValue>(.)/, (_m, c: string) => `<SignatureValue>${c === 'A' ? 'B' : 'A'}`),
      digestValue: xml.replace(/<DigestValue>(.)/, (_m, c: string) => `<DigestValue>${c === 'A' ? 'B' : 'A'}`),
      anotherCertificate: xml.replace(/<X509Certificate>[^<]*</, `<X509Certificate>${makeIdentity().certPem.replace(/-----[^-]+-----|\s/g, '')}<`),
      unreadableCertificate: xml.replace(/<X509Certificate>[^<]*</, '<X509Certificate>AAAA<'),
      signedInfoChanged: xml.replace('<SignedInfo>', '<SignedInfo Id="x">'),
    };
    const results = Object.fromEntries(Object.entries(tampered).map(([k, v]) => [k, verdicts(v)]));
    expect(results.intact).toMatchObject({ sandbox: true, engine: true });
    for (const [name, r] of Object.entries(results)) {
      expect(r.sandbox, name).toBe(r.engine);
      if (name !== 'intact') expect(r.sandboxReason, name).toMatch(/does not verify|cannot be read/);
    }
    // Outside the certificate's validity, both refuse with the same reason.
    const late = verdicts(xml, new Date('2040-01-01T00:00:00Z'));
    expect(late).toMatchObject({ sandbox: false, engine: false });
    expect(late.sandboxReason).toBe(late.engineReason);
    await engine.close();
  });

  it('agrees on documents signed by another library, with every canonicalization allowed, comments and a prefixed Signature', () => {
    const identity = makeIdentity();
    const variants = {
      c14n: signWithXmlCrypto(DOC, identity),
      exclusive: signWithXmlCrypto(DOC, identity, { c14n: EXC_C14N, transforms: [ENVELOPED, EXC_C14N] }),
      withComments: signWithXmlCrypto(DOC, identity, { c14n: C14N_COMMENTS, transforms: [ENVELOPED, C14N_COMMENTS] }),
      envelopedOnly: signWithXmlCrypto(DOC, identity, { transforms: [ENVELOPED] }),
      prefixed: signWithXmlCrypto(DOC, identity, { prefix: 'ds' }),
      // An order the fast path leaves to xml-crypto's full processing.
      c14nFirst: signWithXmlCrypto(DOC, identity, { transforms: [C14N, ENVELOPED] }),
    };
    for (const [name, xml] of Object.entries(variants)) {
      const r = verdicts(xml);
      expect(r, name).toMatchObject({ sandbox: r.engine });
      expect(r.sandbox, `${name}: ${r.sandboxReason} / ${r.engineReason}`).toBe(true);
      const changed = verdicts(xml.replace('<A>1</A>', '<A>2</A>'));
      expect(changed, name).toMatchObject({ sandbox: false, engine: false });
      // A comment is not signed content for URI="": adding one changes neither verdict.
      const commented = verdicts(xml.replace('<C/>', '<!-- later --><C/>'));
      expect(commented.sandbox, name).toBe(commented.engine);
    }
  });

  it('refuses the shapes the engine refuses, for the same reasons', () => {
    const identity = makeIdentity();
    const signed = signWithXmlCrypto(DOC, identity);
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(signed)![0];
    const shapes = {
      notLast: signed.replace(signature, '').replace('<A>1</A>', `<A>1</A>${signature}`),
      twice: signed.replace('</Doc>', `<Extra>${signature}</Extra></Doc>`),
      sha1Digest: signed.replace(SHA256, 'http://www.w3.org/2000/09/xmldsig#sha1'),
      rsaSha1: signed.replace(RSA_SHA256, 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'),
      noKeyInfo: signed.replace(/<KeyInfo>[\s\S]*<\/KeyInfo>/, ''),
      partReference: signed.replace('URI=""', 'URI="#x"'),
      xslt: signed.replace(`Algorithm="${ENVELOPED}"`, 'Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116"'),
    };
    for (const [name, xml] of Object.entries(shapes)) {
      const r = verdicts(xml);
      expect(r.sandbox, name).toBe(false);
      expect(r.sandboxReason, name).toBe(r.engineReason);
    }
  });

  it('reads the facts of a document in one walk, as textOf reads them one by one', () => {
    const xml = '<R><A> 1 </A><B/><C><A>2</A><D>x</D></C><E>  </E></R>';
    const parsed = parseXml(xml);
    if (!parsed.ok) throw new Error(parsed.reason);
    const names = ['A', 'B', 'D', 'E', 'Z'] as const;
    expect(textsOf(parsed.root, names)).toEqual(Object.fromEntries(names.map((n) => [n, textOf(parsed.root, n)])));
  });
});

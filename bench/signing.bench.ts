// Signing speed, as ratios measured in one run on this machine:
//   signed e-CF per second ÷ raw RSA-2048 signs per second (target ≥ 0.80),
//   the schema gate's share of the issuing pipeline,
//   and xml-crypto on the same document, for comparison.
import { X509Certificate, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import forge from 'node-forge';
import { signCanonical, signingKey } from '../src/engine/signing/xmldsig.js';
import { signEcf } from '../src/engine/documents/sign-ecf.js';
import { prepareDocument } from '../src/engine/documents/prepare.js';
import { assertSignable } from '../src/engine/xml/schema-gate.js';
import { serialize } from '../src/engine/xml/canonical.js';
import { ecf31 } from '../test/engine/xml/documents.js';
import { benchDocument, issuer, numbering, payload } from './documents.js';
import { figure } from './figures.js';
import { rate } from './measure.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const fkey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
const cert = forge.pki.createCertificate();
cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
cert.validity.notAfter = new Date(Date.now() + 86_400_000);
cert.setSubject([{ name: 'commonName', value: 'bench' }]);
cert.setIssuer([{ name: 'commonName', value: 'bench' }]);
cert.sign(fkey, forge.md.sha256.create());
const certPem = forge.pki.certificateToPem(cert);
const key = signingKey(createPrivateKey(keyPem), new X509Certificate(certPem));

const { name, canonical } = benchDocument();
const signedInfoSized = Buffer.alloc(800, 'a');


const raw = rate(() => sign('sha256', signedInfoSized, key.privateKey));
const ours = rate(() => signCanonical(canonical, key));
const now = new Date('2026-03-10T14:05:09Z');
const pipeline = rate(() => {
  const outcome = prepareDocument(payload, { sequenceMode: 'managed', today: '2026-03-10' });
  const document = outcome.document!;
  signEcf({ document, computed: document.computed, issuer, numbering, key, environment: 'test', now });
});
// The schema gate every document passes before signing (part of the pipeline above).
const gate = rate(() => assertSignable('ecf31', canonical));
const xmlCrypto = rate(() => {
  const sig = new SignedXml({ privateKey: keyPem, publicCert: certPem });
  sig.addReference({ xpath: '/*', transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature'], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', isEmptyUri: true });
  sig.canonicalizationAlgorithm = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
  sig.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
  sig.computeSignature(canonical);
  void new DOMParser();
}, 3, 400);

// The canonical writer on a 1,000-line e-CF 31, against JSON.stringify of the same data:
// it was a timing assertion in test/engine/xml/canonical.test.ts; timings belong here.
const bigData = ecf31(1000);
const bigXml = rate(() => serialize('ecf31', bigData), 3, 400);
const bigJson = rate(() => JSON.stringify(bigData), 3, 400);

const fmt = (n: number) => n.toFixed(0).padStart(7);
console.log(`document: ${name}, ${Buffer.byteLength(canonical)} bytes`);
console.log(`raw RSA-2048 sign           ${fmt(raw)} /s`);
console.log(`ecf signCanonical           ${fmt(ours)} /s   ratio ${(ours / raw).toFixed(3)} (target >= 0.80)`);
console.log(`validate+totals+build+sign   ${fmt(pipeline)} /s   ratio ${(pipeline / raw).toFixed(3)}`);
console.log(`schema gate (XSD) alone      ${fmt(gate)} /s   ${(1e6 / gate).toFixed(0)} µs per e-CF, ${((100 * pipeline) / gate).toFixed(1)}% of the pipeline's time`);
console.log(`xml-crypto on same document ${fmt(xmlCrypto)} /s   ratio ${(xmlCrypto / raw).toFixed(3)}`);
figure('signing: raw RSA-2048 sign', raw, '/s', 'higher');
figure('signing: ecf signCanonical', ours, '/s', 'higher');
figure('signing: validate+totals+build+sign', pipeline, '/s', 'higher');
figure('signing: schema gate (XSD)', gate, '/s', 'higher');
figure('signing: serialize 1,000-line e-CF 31', bigXml, '/s', 'higher');
console.log(`serialize 1,000-line e-CF 31  ${fmt(bigXml)} /s   ${(1e3 / bigXml).toFixed(2)} ms each, ${(bigJson / bigXml).toFixed(2)}× JSON.stringify's time`);

import { X509Certificate, createHash, timingSafeEqual, verify as rsaVerify, type KeyObject } from 'node:crypto';
import type { Document, Element } from '@xmldom/xmldom';
import { C14nCanonicalization, C14nCanonicalizationWithComments, ExclusiveCanonicalization, ExclusiveCanonicalizationWithComments } from 'xml-crypto';
import { DSIG, dsigChild, elementChildren, signatureShape, verifySignature as verifyWithXmlCrypto, type SignatureCheck } from './verify.js';
import { C14N, C14N_COMMENTS, ENVELOPED, EXC_C14N, EXC_C14N_COMMENTS } from './algorithms.js';

/**
 * The fast signature check of the sandbox, `ecf store verify --signatures`
 * and `ecf export verify`: the same rules as the engine's receiver
 * (verify.ts, NOTES §5) and the same canonicalization
 * code (xml-crypto's), without what made it cost ~13 ms a document:
 * xml-crypto's checkSignature parses the document again and finds every
 * node with XPath over the whole tree. Here the document parsed once is
 * used as it is: the enveloped transform detaches the Signature for the
 * time of the canonicalization, and each certificate is read once
 * (cached by its DER). Anything outside the shape the authority's signers
 * produce (transforms other than enveloped-signature plus at most one
 * canonicalization, or an InclusiveNamespaces list) goes to the engine's
 * verifier, so no document is judged differently, only faster.
 */


interface Canonicalizer {
  process(node: Element, options: Record<string, unknown>): string;
}
const CANONICALIZERS: Record<string, Canonicalizer> = {
  [C14N]: new C14nCanonicalization() as unknown as Canonicalizer,
  [C14N_COMMENTS]: new C14nCanonicalizationWithComments() as unknown as Canonicalizer,
  [EXC_C14N]: new ExclusiveCanonicalization() as unknown as Canonicalizer,
  [EXC_C14N_COMMENTS]: new ExclusiveCanonicalizationWithComments() as unknown as Canonicalizer,
};
/** A same-document reference (URI="") is dereferenced without comments, whatever its canonicalization says. */
const WITHOUT_COMMENTS: Record<string, string> = { [C14N]: C14N, [C14N_COMMENTS]: C14N, [EXC_C14N]: EXC_C14N, [EXC_C14N_COMMENTS]: EXC_C14N };
/** What xml-crypto gives its canonicalizers for a `ds:` prefix without declaration. */
const DEFAULT_NS_FOR_PREFIX = { ds: DSIG };

interface CachedCertificate {
  readonly certificate: X509Certificate;
  readonly publicKey: KeyObject;
  readonly validFrom: number;
  readonly validTo: number;
}

/** A certificate each issuer signs with; bounded so that a long run of made-up ones cannot grow it forever. */
const MAX_CACHED_CERTIFICATES = 1_000;
const certificates = new Map<string, CachedCertificate | null>();

function readCertificate(base64: string): CachedCertificate | null {
  const cached = certificates.get(base64);
  if (cached !== undefined) return cached;
  let entry: CachedCertificate | null;
  try {
    const certificate = new X509Certificate(Buffer.from(base64, 'base64'));
    entry = { certificate, publicKey: certificate.publicKey, validFrom: Date.parse(certificate.validFrom), validTo: Date.parse(certificate.validTo) };
  } catch {
    entry = null;
  }
  if (certificates.size >= MAX_CACHED_CERTIFICATES) certificates.clear();
  certificates.set(base64, entry);
  return entry;
}


/** Every Signature element of the document, in a plain walk (no XPath). */
function signatureElements(root: Element): Element[] {
  const found: Element[] = [];
  const walk = (el: Element) => {
    if (el.localName === 'Signature' && el.namespaceURI === DSIG) found.push(el);
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) walk(n as Element);
  };
  walk(root);
  return found;
}

/** The namespaces in scope at `el` from its ancestors that C14N must render on it (xml-crypto's findAncestorNs). */
function ancestorNamespaces(el: Element): { prefix: string; namespaceURI: string }[] {
  const own = new Set<string>([el.prefix ?? '']);
  for (let i = 0; i < el.attributes.length; i++) {
    const name = el.attributes[i]!.nodeName;
    if (name === 'xmlns' || name.startsWith('xmlns:')) own.add(name.replace(/^xmlns:?/, ''));
  }
  const seen = new Set<string>();
  const out: { prefix: string; namespaceURI: string }[] = [];
  for (let p = el.parentNode; p && p.nodeType === 1; p = p.parentNode) {
    const attributes = (p as Element).attributes;
    for (let i = 0; i < attributes.length; i++) {
      const a = attributes[i]!;
      if (!/^xmlns:?/.test(a.nodeName)) continue;
      const prefix = a.nodeName.replace(/^xmlns:?/, '');
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      if (a.nodeValue && !own.has(prefix)) out.push({ prefix, namespaceURI: a.nodeValue });
    }
  }
  return out;
}

const sameBase64 = (a: string, b: string): boolean => {
  const x = Buffer.from(a, 'base64');
  const y = Buffer.from(b, 'base64');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

export function verifySignatureFast(xml: string, parsed: { doc: Document; root: Element }, at: Date): SignatureCheck {
  const { root } = parsed;
  const signatures = signatureElements(root);
  const shape = signatureShape(root, signatures);
  if (!shape.ok) return shape;
  const { signature, signedInfo, c14nMethod, c14n, reference, transforms, algorithms, certText } = shape;
  const cert = readCertificate(certText);
  if (!cert) return { ok: false, reason: 'the X509Certificate in KeyInfo cannot be read' };
  const t = at.getTime();
  if (t < cert.validFrom || t > cert.validTo) return { ok: false, reason: 'the certificate is not valid at the time of receipt' };

  // Shapes other than the usual one (several canonicalizations, a canonicalization before the
  // enveloped transform, inclusive-namespace lists) keep xml-crypto's full processing.
  const common =
    algorithms[0] === ENVELOPED &&
    algorithms.length <= 2 &&
    transforms.every((t) => elementChildren(t).length === 0) &&
    (!c14nMethod || elementChildren(c14nMethod).length === 0);
  if (!common) return verifyWithXmlCrypto(xml, parsed, at);

  const digestValue = dsigChild(reference, 'DigestValue')?.textContent?.replace(/\s+/g, '') ?? '';
  const signatureValue = (dsigChild(signature, 'SignatureValue')?.textContent ?? '').replace(/\s+/g, '');
  try {
    const referenceC14n = CANONICALIZERS[WITHOUT_COMMENTS[algorithms[1] ?? C14N]!]!;
    const signedInfoC14n = CANONICALIZERS[c14n]!;
    // The enveloped transform: the document without its Signature, put back right after.
    const next = signature.nextSibling;
    root.removeChild(signature);
    let canonicalDocument: string;
    try {
      canonicalDocument = referenceC14n.process(root, { ancestorNamespaces: [], defaultNsForPrefix: DEFAULT_NS_FOR_PREFIX });
    } finally {
      root.insertBefore(signature, next);
    }
    const digest = createHash('sha256').update(canonicalDocument, 'utf8').digest('base64');
    if (!sameBase64(digest, digestValue)) return { ok: false, reason: 'the signature does not verify' };
    const canonicalSignedInfo = signedInfoC14n.process(signedInfo!, {
      ancestorNamespaces: ancestorNamespaces(signedInfo!),
      defaultNsForPrefix: DEFAULT_NS_FOR_PREFIX,
      signatureNode: signature,
    });
    if (!rsaVerify('sha256', Buffer.from(canonicalSignedInfo, 'utf8'), cert.publicKey, Buffer.from(signatureValue, 'base64'))) {
      return { ok: false, reason: 'the signature does not verify: invalid signature: the signature value is incorrect' };
    }
  } catch (e) {
    return { ok: false, reason: `the signature does not verify: ${(e as Error).message.split('\n')[0]}` };
  }
  return { ok: true, certificate: cert.certificate, signatureValue };
}

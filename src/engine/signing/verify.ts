import { X509Certificate } from 'node:crypto';
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { CANONICALIZATIONS, DSIG, ENVELOPED, RSA_SHA256, SHA256 } from './algorithms.js';
export { DSIG } from './algorithms.js';

/**
 * Signature checks of a foreign document, the way the authority makes them
 * (NOTES §5), used by the B2B receiver and the sandbox: one
 * enveloped XMLDSig over the whole document, the Signature as the root's
 * last child, RSA-SHA256 with a SHA-256 digest, verified against the
 * certificate in KeyInfo (which must be valid at the time of receipt).
 * xml-crypto and xmldom do the work: an implementation independent of the
 * engine's signer.
 */


export type Parsed = { ok: true; doc: Document; root: Element } | { ok: false; reason: string };

/** Parses without network or entities; any error makes the document not well-formed. */
export function parseXml(xml: string): Parsed {
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
    const root = doc.documentElement;
    if (!root) return { ok: false, reason: 'the document has no root element' };
    return { ok: true, doc, root };
  } catch (e) {
    return { ok: false, reason: `the XML is not well-formed: ${(e as Error).message.split('\n')[0]}` };
  }
}

export type SignatureCheck =
  | { ok: true; certificate: X509Certificate; signatureValue: string }
  | { ok: false; reason: string };

/** The element children of an element, in order. */
export const elementChildren = (el: Element): Element[] => {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
};

/** The first XMLDSig child of `el` with that local name. */
export const dsigChild = (el: Element | undefined, local: string): Element | undefined =>
  el ? elementChildren(el).find((c) => c.localName === local && c.namespaceURI === DSIG) : undefined;

export function verifySignature(xml: string, parsed: { doc: Document; root: Element }, at: Date): SignatureCheck {
  const { doc, root } = parsed;
  const signatures = Array.from(doc.getElementsByTagNameNS(DSIG, 'Signature'));
  const shape = signatureShape(root, signatures);
  if (!shape.ok) return shape;
  const { signature, certText } = shape;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(certText, 'base64'));
  } catch {
    return { ok: false, reason: 'the X509Certificate in KeyInfo cannot be read' };
  }
  if (at < new Date(certificate.validFrom) || at > new Date(certificate.validTo)) {
    return { ok: false, reason: 'the certificate is not valid at the time of receipt' };
  }

  try {
    const verifier = new SignedXml({ publicCert: certificate.toString(), getCertFromKeyInfo: () => null });
    verifier.loadSignature(signature);
    if (!verifier.checkSignature(xml)) return { ok: false, reason: 'the signature does not verify' };
  } catch (e) {
    return { ok: false, reason: `the signature does not verify: ${(e as Error).message.split('\n')[0]}` };
  }
  const signatureValue = (dsigChild(signature, 'SignatureValue')?.textContent ?? '').replace(/\s+/g, '');
  return { ok: true, certificate, signatureValue };
}

export interface SignatureShape {
  readonly ok: true;
  readonly signature: Element;
  readonly signedInfo: Element;
  readonly c14nMethod: Element | undefined;
  /** SignedInfo's CanonicalizationMethod. */
  readonly c14n: string;
  readonly reference: Element;
  readonly transforms: readonly Element[];
  /** The Reference's transforms, in order. */
  readonly algorithms: readonly string[];
  /** The KeyInfo certificate, base64 without whitespace. */
  readonly certText: string;
}

/**
 * The one signature shape the authority's documents have (NOTES §5), checked
 * before any cryptography: one Signature, the root's last child, RSA-SHA256,
 * one Reference to the whole document with a SHA-256 digest, the enveloped
 * transform (plus a canonicalization), and a certificate in KeyInfo. The
 * engine's verifier and the sandbox's fast one both start here.
 */
export function signatureShape(root: Element, signatures: readonly Element[]): SignatureShape | { ok: false; reason: string } {
  if (signatures.length !== 1) return { ok: false, reason: `expected one Signature, found ${signatures.length}` };
  const signature = signatures[0]!;
  const last = elementChildren(root).at(-1);
  if (last !== signature) return { ok: false, reason: 'the Signature is not the last child of the root' };
  const signedInfo = dsigChild(signature, 'SignedInfo');
  const c14nMethod = dsigChild(signedInfo, 'CanonicalizationMethod');
  const c14n = c14nMethod?.getAttribute('Algorithm') ?? '';
  const method = dsigChild(signedInfo, 'SignatureMethod')?.getAttribute('Algorithm') ?? '';
  if (!CANONICALIZATIONS.has(c14n)) return { ok: false, reason: `unsupported CanonicalizationMethod ${c14n}` };
  if (method !== RSA_SHA256) return { ok: false, reason: `SignatureMethod must be rsa-sha256, not ${method}` };
  const references = signedInfo ? elementChildren(signedInfo).filter((c) => c.localName === 'Reference' && c.namespaceURI === DSIG) : [];
  if (references.length !== 1) return { ok: false, reason: `expected one Reference, found ${references.length}` };
  const reference = references[0]!;
  if (reference.getAttribute('URI') !== '') return { ok: false, reason: 'the Reference must cover the whole document (URI="")' };
  if (dsigChild(reference, 'DigestMethod')?.getAttribute('Algorithm') !== SHA256) return { ok: false, reason: 'DigestMethod must be sha256' };
  const transforms = elementChildren(dsigChild(reference, 'Transforms') ?? reference).filter((c) => c.localName === 'Transform');
  const algorithms = transforms.map((t) => t.getAttribute('Algorithm') ?? '');
  if (!algorithms.includes(ENVELOPED) || algorithms.some((a) => a !== ENVELOPED && !CANONICALIZATIONS.has(a))) {
    return { ok: false, reason: 'the only transform allowed is enveloped-signature (plus a canonicalization)' };
  }
  const certText = dsigChild(dsigChild(dsigChild(signature, 'KeyInfo'), 'X509Data'), 'X509Certificate')?.textContent?.replace(/\s+/g, '');
  if (!certText) return { ok: false, reason: 'KeyInfo has no X509Certificate' };
  return { ok: true, signature, signedInfo: signedInfo!, c14nMethod, c14n, reference, transforms, algorithms, certText };
}

/** The text of the first element with this name under the root, trimmed; null when absent or empty. */
export function textOf(root: Element, name: string): string | null {
  const el = root.getElementsByTagName(name)[0];
  const t = el?.textContent?.trim();
  return t ? t : null;
}

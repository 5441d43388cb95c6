import { createHash, sign, type KeyObject, type X509Certificate } from 'node:crypto';
import { C14N, DSIG, ENVELOPED, RSA_SHA256, SHA256 } from './algorithms.js';

/**
 * Enveloped XMLDSig as the authority wants it (NOTES §5): the whole document
 * (`Reference URI=""`), the enveloped-signature transform only, inclusive
 * C14N 1.0, RSA-SHA256, SHA-256 digest, the certificate alone in KeyInfo,
 * `<Signature>` in the default namespace as the root's last child.
 *
 * The documents are written already in canonical form (xml/canonical.ts),
 * so the digest is a hash of the bytes as they are: no DOM, no
 * re-canonicalisation. That is what makes signing cost about one RSA
 * operation. The canonical form of SignedInfo is written out by hand for the
 * same reason, including the namespace declarations it inherits from the
 * root (inclusive C14N puts them there; the seed document has two).
 */


export interface SigningKey {
  readonly privateKey: KeyObject;
  /** Base64 DER of the signing certificate, for KeyInfo. */
  readonly certificateBase64: string;
}

export const signingKey = (privateKey: KeyObject, certificate: X509Certificate): SigningKey => ({
  privateKey,
  certificateBase64: certificate.raw.toString('base64'),
});

export interface SignOptions {
  /**
   * The root's namespace declarations as [prefix, uri] pairs (prefix '' for a
   * default namespace), e.g. the seed's xmlns:xsi and xmlns:xsd. They are
   * inherited by SignedInfo in its canonical form.
   */
  readonly rootNamespaces?: readonly (readonly [string, string])[];
  /** Prepend `<?xml version="1.0" encoding="utf-8"?>` (outside what is signed). */
  readonly declaration?: boolean;
}

export interface SignedXml {
  /** The signed document: these exact bytes are stored, sent and hashed. */
  readonly xml: string;
  readonly signatureValue: string;
  readonly digestValue: string;
}

const escapeAttr = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');

function signedInfoBody(digestValue: string): string {
  return (
    `<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${RSA_SHA256}"></SignatureMethod>` +
    `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED}"></Transform></Transforms>` +
    `<DigestMethod Algorithm="${SHA256}"></DigestMethod><DigestValue>${digestValue}</DigestValue></Reference>`
  );
}

/** SignedInfo as C14N writes it: the dsig default namespace, then inherited prefixed ones by prefix. */
function canonicalSignedInfo(body: string, rootNamespaces: readonly (readonly [string, string])[]): string {
  const inherited = rootNamespaces
    .filter(([prefix]) => prefix !== '')
    .slice()
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([prefix, uri]) => ` xmlns:${prefix}="${escapeAttr(uri)}"`)
    .join('');
  return `<SignedInfo xmlns="${DSIG}"${inherited}>${body}</SignedInfo>`;
}

interface Envelope {
  /** The bytes RSA signs: SignedInfo in canonical form. */
  readonly signedInfo: Buffer;
  readonly finish: (signature: Buffer) => SignedXml;
}

/**
 * Everything around the one RSA operation: the digest, SignedInfo, and the
 * Signature element put in as the root's last child. The document comes in
 * canonical form (no declaration, no whitespace between elements, root
 * without a default namespace).
 */
function envelope(canonical: string, key: SigningKey, options: SignOptions): Envelope {
  const close = canonical.lastIndexOf('</');
  if (close < 0 || !canonical.endsWith('>')) throw new Error('signCanonical needs a whole canonical document');
  const digestValue = createHash('sha256').update(canonical, 'utf8').digest('base64');
  const body = signedInfoBody(digestValue);
  return {
    signedInfo: Buffer.from(canonicalSignedInfo(body, options.rootNamespaces ?? []), 'utf8'),
    finish: (rsa) => {
      const signatureValue = rsa.toString('base64');
      const signature =
        `<Signature xmlns="${DSIG}"><SignedInfo>${body}</SignedInfo>` +
        `<SignatureValue>${signatureValue}</SignatureValue>` +
        `<KeyInfo><X509Data><X509Certificate>${key.certificateBase64}</X509Certificate></X509Data></KeyInfo></Signature>`;
      const xml = `${options.declaration === false ? '' : '<?xml version="1.0" encoding="utf-8"?>'}${canonical.slice(0, close)}${signature}${canonical.slice(close)}`;
      return { xml, signatureValue, digestValue };
    },
  };
}

/** Signs a document given in canonical form; the Signature goes in as the root's last child. */
export function signCanonical(canonical: string, key: SigningKey, options: SignOptions = {}): SignedXml {
  const e = envelope(canonical, key, options);
  return e.finish(sign('sha256', e.signedInfo, key.privateKey));
}

/**
 * signCanonical with the RSA operation on libuv's thread pool: a server
 * signing many documents keeps its event loop (HTTP, validation, the store)
 * on one core while the private-key operations use another.
 */
export async function signCanonicalOffThread(canonical: string, key: SigningKey, options: SignOptions = {}): Promise<SignedXml> {
  const e = envelope(canonical, key, options);
  const rsa = await new Promise<Buffer>((resolve, reject) =>
    sign('sha256', e.signedInfo, key.privateKey, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
  return e.finish(rsa);
}

/** NOTES §6: the first six characters of the base64 SignatureValue. */
export const securityCode = (signatureValue: string): string => signatureValue.slice(0, 6);

/** FechaHoraFirma: dd-MM-yyyy HH:mm:ss in Dominican time (UTC-4), 24-hour clock. */
export function signatureTimestamp(instant: Date): string {
  const d = new Date(instant.getTime() - 4 * 3_600_000).toISOString(); // YYYY-MM-DDTHH:mm:ss
  return `${d.slice(8, 10)}-${d.slice(5, 7)}-${d.slice(0, 4)} ${d.slice(11, 19)}`;
}

/**
 * The Signature element for a document whose canonical bytes were hashed
 * elsewhere, piece by piece (a manifest too large to hold): the caller puts
 * it in as the root's last child, exactly as signCanonical does.
 */
export function signatureForDigest(digestBase64: string, key: SigningKey, options: SignOptions = {}): { readonly element: string; readonly signatureValue: string } {
  const body = signedInfoBody(digestBase64);
  const signatureValue = sign('sha256', Buffer.from(canonicalSignedInfo(body, options.rootNamespaces ?? []), 'utf8'), key.privateKey).toString('base64');
  return {
    element:
      `<Signature xmlns="${DSIG}"><SignedInfo>${body}</SignedInfo>` +
      `<SignatureValue>${signatureValue}</SignatureValue>` +
      `<KeyInfo><X509Data><X509Certificate>${key.certificateBase64}</X509Certificate></X509Data></KeyInfo></Signature>`,
    signatureValue,
  };
}

/** SignedInfo in canonical form for a digest: what a verifier checks the RSA signature over. */
export const canonicalSignedInfoFor = (digestBase64: string): string => canonicalSignedInfo(signedInfoBody(digestBase64), []);

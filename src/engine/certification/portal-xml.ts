import { createHash, sign } from 'node:crypto';
import { ParseOption, XmlC14NMode, XmlDocument, XmlLibError, type XmlElement } from 'libxml2-wasm';
import { signingCredentials } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import { ValidationError } from '../errors.js';
import type { SigningKey } from '../signing/xmldsig.js';
import { signingKey } from '../signing/xmldsig.js';
import { readPkcs12 } from '../certificates/pkcs12.js';
import { C14N, DSIG, ENVELOPED, RSA_SHA256, SHA256 } from '../signing/algorithms.js';

/**
 * Pasos 1 and 13 (CERTIFICATION.md §5): the portal hands the person an XML
 * file (the postulación, the declaración jurada) whose structure no source
 * documents. It is signed as an opaque document: enveloped XMLDSig with the
 * rules of NOTES §5, the Signature put in just before the root's end tag,
 * and not one other byte changed (declaration, whitespace, CRLF, attribute
 * order, namespaces stay as the portal wrote them).
 *
 * Unlike the e-CF signer, the input is not in canonical form, so both the
 * document digest and SignedInfo are canonicalised by libxml2 (inclusive
 * C14N 1.0 without comments), the same library xmlsec1 and the authority's
 * .NET stack agree with. SignedInfo is canonicalised in place, inside the
 * document, so it inherits the root's namespaces and xml:* attributes as
 * C14N requires.
 */

/** Replaced by the real value once SignedInfo is canonicalised (it is not part of SignedInfo). */
const PLACEHOLDER = 'SIGNATURE-VALUE-PLACEHOLDER';

/** No network, no external or internal entity expansion. */
const PARSE = { option: ParseOption.XML_PARSE_NONET };

export interface SignedPortalXml {
  /** The signed file's bytes. */
  readonly bytes: Buffer;
  readonly digestValue: string;
  readonly signatureValue: string;
  /** Where the Signature went in: bytes [0, offset) and the rest are the input's, unchanged. */
  readonly insertedAt: number;
  readonly insertedLength: number;
  /** The root element's name, for the report. */
  readonly root: string;
  /** true when the root was written `<root/>` and had to be opened to take a child. */
  readonly expandedEmptyRoot: boolean;
}

const refuse = (code: string, message: string) => new ValidationError([{ path: 'file', code, message }], message);

function parse(bytes: Buffer): XmlDocument {
  try {
    return XmlDocument.fromBuffer(bytes, PARSE);
  } catch (e) {
    const detail = e instanceof XmlLibError ? e.details.map((d) => `line ${d.line}: ${d.message.trim()}`).slice(0, 3).join('; ') : (e as Error).message;
    throw refuse('PortalXml.NotWellFormed', `The file is not well-formed XML (${detail}).`);
  }
}

function canonical(doc: XmlDocument): Buffer {
  return Buffer.from(doc.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_1_0, withComments: false }), 'utf8');
}

/** The checks that need only the bytes: an encoding the portal's files use, and valid UTF-8. */
function checkEncoding(bytes: Buffer): void {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw refuse('PortalXml.Encoding', 'The file is UTF-16; save it as UTF-8 (the authority’s files are UTF-8).');
  }
  const head = bytes.subarray(0, 200).toString('latin1');
  const declared = /^(?:\xEF\xBB\xBF)?<\?xml[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
  if (declared && !/^utf-?8$/i.test(declared)) {
    throw refuse('PortalXml.Encoding', `The file declares encoding ${declared}; only UTF-8 files are signed (the authority’s files are UTF-8).`);
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse('PortalXml.Encoding', 'The file is not valid UTF-8.');
  }
}

/**
 * Where the root element ends in the file: skips the trailing whitespace,
 * comments and processing instructions after it. Works on the latin1 view,
 * where every ASCII marker sits at its byte offset.
 */
function rootEnd(text: string): { closeAt: number; selfClosing: boolean } {
  let end = text.length;
  for (;;) {
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    if (text.endsWith('-->', end)) end = text.lastIndexOf('<!--', end - 3);
    else if (text.endsWith('?>', end)) end = text.lastIndexOf('<?', end - 2);
    else break;
    if (end < 0) throw refuse('PortalXml.NotWellFormed', 'The end of the root element could not be found.');
  }
  if (text.endsWith('/>', end)) return { closeAt: end - 2, selfClosing: true };
  const closeAt = text.lastIndexOf('</', end);
  if (closeAt < 0 || text[end - 1] !== '>') throw refuse('PortalXml.NotWellFormed', 'The end of the root element could not be found.');
  return { closeAt, selfClosing: false };
}

function signatureElement(digestValue: string, signatureValue: string, certificateBase64: string): string {
  return (
    `<Signature xmlns="${DSIG}"><SignedInfo>` +
    `<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${RSA_SHA256}"></SignatureMethod>` +
    `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED}"></Transform></Transforms>` +
    `<DigestMethod Algorithm="${SHA256}"></DigestMethod><DigestValue>${digestValue}</DigestValue></Reference>` +
    `</SignedInfo><SignatureValue>${signatureValue}</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>${certificateBase64}</X509Certificate></X509Data></KeyInfo></Signature>`
  );
}

/**
 * Signs the file's bytes with the key given. Refused, with the reason: not
 * UTF-8, not well-formed, a DOCTYPE (entities could make the canonical form
 * differ between readers), a Signature already present.
 */
export function signPortalXml(input: Buffer, key: SigningKey): SignedPortalXml {
  if (input.length === 0) throw refuse('PortalXml.Empty', 'The file is empty.');
  checkEncoding(input);
  // A DOCTYPE is refused before parsing, so no declaration of entities is ever read.
  const latin1 = input.toString('latin1');
  if (/<!DOCTYPE/i.test(latin1.replace(/<!--[\s\S]*?-->/g, ''))) {
    throw refuse('PortalXml.Doctype', 'The file has a DOCTYPE (a DTD or entity declarations); such files are not signed, because entities can make the signed content differ between readers.');
  }
  let digestValue: string;
  let rootName: string;
  const doc = parse(input);
  try {
    if (doc.dtd) throw refuse('PortalXml.Doctype', 'The file has a DOCTYPE; such files are not signed.');
    const existing = doc.find('//ds:Signature', { ds: DSIG });
    if (existing.length > 0) {
      throw refuse('PortalXml.AlreadySigned', `The file already holds a Signature (in ${existing[0]!.parent?.name ?? 'the document'}); sign the file as the portal generated it.`);
    }
    rootName = doc.root.prefix ? `${doc.root.prefix}:${doc.root.name}` : doc.root.name;
    digestValue = createHash('sha256').update(canonical(doc)).digest('base64');
  } finally {
    doc.dispose();
  }

  const { closeAt, selfClosing } = rootEnd(latin1);
  const signature = Buffer.from(signatureElement(digestValue, PLACEHOLDER, key.certificateBase64), 'utf8');
  // `<root/>` must be opened to take a child; C14N writes it `<root></root>` either way.
  const before = input.subarray(0, closeAt);
  const opening = selfClosing ? Buffer.from('>') : Buffer.alloc(0);
  const closing = selfClosing ? Buffer.from(`</${rootName}>`, 'utf8') : Buffer.alloc(0);
  const after = input.subarray(selfClosing ? closeAt + 2 : closeAt);
  const draft = Buffer.concat([before, opening, signature, closing, after]);

  // SignedInfo canonicalised where it sits, so it carries what it inherits from the root.
  const placed = parse(draft);
  let signedInfo: Buffer;
  try {
    const last = placed.get('/*/*[last()]') as XmlElement | null;
    if (!last || last.name !== 'Signature' || last.namespaceUri !== DSIG) throw new Error('the Signature did not land as the root’s last child');
    const info = placed.get('/*/ds:Signature/ds:SignedInfo', { ds: DSIG })!;
    signedInfo = Buffer.from(info.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_1_0, withComments: false }), 'utf8');
  } finally {
    placed.dispose();
  }
  const signatureValue = sign('sha256', signedInfo, key.privateKey).toString('base64');
  const finalSignature = Buffer.from(signatureElement(digestValue, signatureValue, key.certificateBase64), 'utf8');
  const bytes = Buffer.concat([before, opening, finalSignature, closing, after]);
  return {
    bytes,
    digestValue,
    signatureValue,
    insertedAt: closeAt + opening.length,
    insertedLength: finalSignature.length,
    root: rootName,
    expandedEmptyRoot: selfClosing,
  };
}

/**
 * Signs with a certificate given for this file only (`ecf certify sign
 * --p12`): the Paso 13 declaration is signed by the legal representative,
 * whose .p12 must not become the tenant's signer of e-CF, which importing it
 * would make it (the newest valid certificate signs). Nothing is stored.
 */
export function signPortalXmlWithP12(input: Buffer, p12: Buffer, password: string): SignedPortalXml & { certificateId: null; certificateSubject: string } {
  const { certificate, privateKey } = readPkcs12(p12, password);
  const signed = signPortalXml(input, signingKey(privateKey, certificate));
  return { ...signed, certificateId: null, certificateSubject: certificate.subject.replace(/\n/g, ', ') };
}

/** Signs with the tenant's active certificate, the one issuing signs with. */
export async function signPortalXmlForTenant(engine: Engine, tenantId: string, input: Buffer): Promise<SignedPortalXml & { certificateId: string; certificateSubject: string }> {
  const credentials = await signingCredentials(engine, tenantId);
  const signed = signPortalXml(input, signingKey(credentials.privateKey, credentials.certificate));
  return { ...signed, certificateId: credentials.certificateId, certificateSubject: credentials.certificate.subject.replace(/\n/g, ', ') };
}

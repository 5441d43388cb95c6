/**
 * The signer's certificate (base64 DER between the `X509Certificate` tags) is
 * about 1,600 bytes of a document that no shipped dictionary can know, and
 * one issuer signs thousands of documents with it. So it is cut out before
 * compression and kept once (table document_certificates), and put back on
 * read at the byte offset the blob records. Pure: bytes in, bytes out.
 */

/** The first X509Certificate element, any prefix, as bytes (latin1 keeps one character per byte). */
const ELEMENT = /<((?:[A-Za-z_][\w.-]*:)?)X509Certificate(?:\s[^>]*)?>([^<]+)<\/\1X509Certificate>/;

/** Shorter texts are not worth a row: a certificate is over a kilobyte. */
const MIN_LENGTH = 256;

export interface CutDocument {
  /** The document without the certificate text. */
  readonly rest: Buffer;
  /** The text as it stood between the tags, byte for byte. */
  readonly text: Buffer;
  /** Where in the document the text began. */
  readonly offset: number;
}

export function cutCertificate(document: Buffer): CutDocument | null {
  const found = ELEMENT.exec(document.toString('latin1'));
  if (!found || found[2]!.length < MIN_LENGTH) return null;
  const offset = found.index + found[0].indexOf('>') + 1;
  const end = offset + found[2]!.length;
  return { rest: Buffer.concat([document.subarray(0, offset), document.subarray(end)]), text: Buffer.from(document.subarray(offset, end)), offset };
}

/** The document again; null when the offset lies outside it. */
export function restoreCertificate(rest: Buffer, text: Buffer, offset: number): Buffer | null {
  if (offset > rest.length) return null;
  return Buffer.concat([rest.subarray(0, offset), text, rest.subarray(offset)]);
}

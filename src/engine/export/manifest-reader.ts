import { X509Certificate, createHash, verify } from 'node:crypto';
import { canonicalSignedInfoFor } from '../signing/xmldsig.js';
import { MANIFEST_ROOT } from './manifest.js';
import { ManifestIndex } from './manifest-index.js';

/**
 * Reads manifest.xml as manifest.ts writes it, in pieces: the listed files,
 * the head and tail (small), and the signature, checked the way xmlsec1
 * checks it for a document in canonical form: SHA-256 of the document
 * without its Signature (and declaration) against DigestValue, then
 * RSA-SHA256 of the canonical SignedInfo with the certificate in KeyInfo.
 * A manifest changed in any byte outside the signature fails here.
 */

export interface ReadManifest {
  readonly files: ManifestIndex;
  readonly duplicates: string[];
  /** Everything but the listed files and the signature (tenant, period, counts, journal): small. */
  readonly outside: string;
  readonly signature: { readonly ok: true; readonly certificate: X509Certificate } | { readonly ok: false; readonly reason: string };
}

const FILE = /<File><Name>([^<]*)<\/Name><Size>(\d+)<\/Size><SHA256>([0-9a-f]{64})<\/SHA256><\/File>/g;
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#xD;/g, '\r').replace(/&amp;/g, '&');
const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');

/** `expected`: about how many files it lists (the ZIP's count), to size the list once. */
export async function readManifest(pieces: AsyncIterable<Buffer>, expected?: number): Promise<ReadManifest> {
  const files = new ManifestIndex(expected);
  const duplicates: string[] = [];
  const hash = createHash('sha256');
  let outside = '';
  let pending = '';
  let declaration = false;
  let signatureText: string | null = null;
  const consume = (upTo: number) => {
    const part = pending.slice(0, upTo);
    hash.update(part, 'latin1');
    outside += part.replace(FILE, (_, name: string, size: string, sha: string) => {
      const n = unescape(utf8(name));
      if (!files.add(n, Number(size), sha)) duplicates.push(n);
      return '';
    });
    pending = pending.slice(upTo);
  };
  for await (const piece of pieces) {
    pending += piece.toString('latin1');
    if (!declaration) {
      if (pending.length < 6) continue;
      if (pending.startsWith('<?xml')) {
        const end = pending.indexOf('?>');
        if (end < 0) continue;
        pending = pending.slice(end + 2);
      }
      declaration = true;
    }
    if (signatureText !== null) continue;
    const sig = pending.indexOf('<Signature xmlns=');
    if (sig >= 0) {
      consume(sig);
      signatureText = '';
    } else {
      const last = pending.lastIndexOf('</File>');
      if (last >= 0) consume(last + 7);
    }
  }
  if (signatureText === null) {
    consume(pending.length);
    return { files, duplicates, outside: utf8(outside), signature: { ok: false, reason: 'the manifest has no Signature' } };
  }
  const close = `</${MANIFEST_ROOT}>`;
  const sigEnd = pending.indexOf('</Signature>');
  const rest = sigEnd < 0 ? '' : pending.slice(sigEnd + '</Signature>'.length);
  if (sigEnd < 0 || rest !== close) return { files, duplicates, outside: utf8(outside), signature: { ok: false, reason: 'the Signature is not the manifest root\'s last child' } };
  hash.update(close, 'latin1');
  return { files, duplicates, outside: utf8(outside), signature: checkSignature(pending.slice(0, sigEnd), hash.digest('base64')) };
}

function checkSignature(signature: string, digest: string): ReadManifest['signature'] {
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(signature)?.[1]?.replace(/\s+/g, '') ?? '';
  const signedDigest = tag('DigestValue');
  if (signedDigest !== digest) return { ok: false, reason: 'the manifest\'s bytes do not match the digest it was signed with (it was changed after signing)' };
  const signedInfo = canonicalSignedInfoFor(signedDigest);
  const inDocument = /<SignedInfo>([\s\S]*)<\/SignedInfo>/.exec(signature)?.[1];
  if (inDocument === undefined || signedInfo !== signedInfo.replace(/^(<SignedInfo[^>]*>)[\s\S]*(<\/SignedInfo>)$/, `$1${inDocument}$2`)) {
    return { ok: false, reason: 'the SignedInfo is not the one this product writes (an enveloped RSA-SHA256 signature over the whole manifest)' };
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(tag('X509Certificate'), 'base64'));
  } catch {
    return { ok: false, reason: 'the X509Certificate in KeyInfo cannot be read' };
  }
  const ok = verify('sha256', Buffer.from(signedInfo, 'utf8'), certificate.publicKey, Buffer.from(tag('SignatureValue'), 'base64'));
  return ok ? { ok: true, certificate } : { ok: false, reason: 'the manifest\'s SignatureValue does not verify with the certificate in its KeyInfo' };
}

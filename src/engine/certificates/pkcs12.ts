import {
  createDecipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  pbkdf2Sync,
  timingSafeEqual,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import forge from 'node-forge';
import { EngineError } from '../errors.js';

/**
 * A PKCS#12 (.p12/.pfx) reader. node-forge decrypts PBES2 with the password's
 * Latin-1 bytes, so OpenSSL 3 default files whose password has a character
 * like ñ fail there. Here the DER is walked with forge's ASN.1 parser and
 * every primitive is node:crypto's, with the password encoded as each scheme
 * wants it: UTF-8 for PBES2/PBKDF2, UTF-16BE for the PKCS#12 key derivation
 * (MAC and legacy 3DES/RC2). Only RC2, absent from OpenSSL 3's default
 * provider, is forge's.
 */

export interface Pkcs12Contents {
  readonly privateKey: KeyObject;
  /** The certificate of the private key (matched by localKeyId or by public key). */
  readonly certificate: X509Certificate;
  /** Every other certificate in the file (issuer chain, usually). */
  readonly others: readonly X509Certificate[];
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  localKeyId: '1.2.840.113549.1.9.21',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
} as const;

const DIGESTS: Record<string, { name: string; block: number }> = {
  '1.3.14.3.2.26': { name: 'sha1', block: 64 },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224', block: 64 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', block: 64 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', block: 128 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', block: 128 },
};
const HMAC_PRF: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const PBES2_CIPHERS: Record<string, { name: string; keyLength: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLength: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLength: 32 },
  '1.2.840.113549.3.7': { name: 'des-ede3-cbc', keyLength: 24 },
};
/** PKCS#12 password-based schemes (RFC 7292 appendix C), all with SHA-1. */
const PKCS12_PBE: Record<string, { cipher: 'des-ede3-cbc' | 'des-ede-cbc' | 'rc2'; keyLength: number; rc2Bits?: number }> = {
  '1.2.840.113549.1.12.1.3': { cipher: 'des-ede3-cbc', keyLength: 24 },
  '1.2.840.113549.1.12.1.4': { cipher: 'des-ede-cbc', keyLength: 16 },
  '1.2.840.113549.1.12.1.5': { cipher: 'rc2', keyLength: 16, rc2Bits: 128 },
  '1.2.840.113549.1.12.1.6': { cipher: 'rc2', keyLength: 5, rc2Bits: 40 },
};

export type Pkcs12ErrorCode =
  | 'Certificate.NotPkcs12'
  | 'Certificate.WrongPassword'
  | 'Certificate.NoPrivateKey'
  | 'Certificate.KeyMismatch'
  | 'Certificate.UnsupportedEncryption';

const fail = (code: Pkcs12ErrorCode, message: string) => new EngineError('validation', code, message);
const notPkcs12 = (why: string) => fail('Certificate.NotPkcs12', `The file is not a PKCS#12 (.p12/.pfx) certificate file: ${why}.`);
const wrongPassword = () => fail('Certificate.WrongPassword', 'The password does not open this certificate file.');

type Asn1 = forge.asn1.Asn1;

function children(node: Asn1 | undefined, what: string): Asn1[] {
  if (!node || !Array.isArray(node.value)) throw notPkcs12(`${what} is not a structure`);
  return node.value as Asn1[];
}
function oid(node: Asn1 | undefined, what: string): string {
  if (!node || node.type !== forge.asn1.Type.OID || typeof node.value !== 'string') throw notPkcs12(`${what} is not an OID`);
  return forge.asn1.derToOid(node.value);
}
/** OCTET STRING bytes, whether primitive or BER-constructed from pieces. */
function octets(node: Asn1 | undefined, what: string): Buffer {
  if (!node) throw notPkcs12(`${what} is missing`);
  if (typeof node.value === 'string') return Buffer.from(node.value, 'binary');
  return Buffer.concat((node.value as Asn1[]).map((n) => octets(n, what)));
}
function integer(node: Asn1 | undefined, what: string): number {
  if (!node || typeof node.value !== 'string' || node.value.length < 1 || node.value.length > 6) throw notPkcs12(`${what} is not a small integer`);
  let n = 0;
  for (let i = 0; i < node.value.length; i++) n = n * 256 + node.value.charCodeAt(i);
  return n;
}
/** The inside of an `[0] EXPLICIT` wrapper. */
const explicit = (node: Asn1 | undefined, what: string): Asn1 => children(node, what)[0] ?? (() => { throw notPkcs12(`${what} is empty`); })();

function parseDer(bytes: Buffer, what: string): Asn1 {
  try {
    // The typings know only the boolean form; the options form lets BER-ish files through.
    const fromDer = forge.asn1.fromDer as unknown as (b: forge.util.ByteBuffer, o: object) => Asn1;
    return fromDer(forge.util.createBuffer(bytes.toString('binary')), { strict: false, parseAllBytes: false, decodeBitStrings: false });
  } catch {
    throw notPkcs12(`${what} is not valid DER`);
  }
}

/** RFC 7292 appendix B.2: the PKCS#12 key derivation, over the UTF-16BE password with its terminator. */
export function pkcs12Kdf(hashOid: string, password: Buffer, salt: Buffer, id: 1 | 2 | 3, iterations: number, n: number): Buffer {
  const digest = DIGESTS[hashOid];
  if (!digest) throw fail('Certificate.UnsupportedEncryption', `Unsupported digest ${hashOid} in the certificate file.`);
  const v = digest.block;
  const fill = (src: Buffer) => {
    if (src.length === 0) return Buffer.alloc(0);
    const out = Buffer.alloc(v * Math.ceil(src.length / v));
    for (let i = 0; i < out.length; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([fill(salt), fill(password)]);
  const parts: Buffer[] = [];
  let produced = 0;
  while (produced < n) {
    let A = createHash(digest.name).update(D).update(I).digest();
    for (let i = 1; i < iterations; i++) A = createHash(digest.name).update(A).digest();
    parts.push(A);
    produced += A.length;
    if (produced >= n) break;
    const B = fill(A);
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(parts).subarray(0, n);
}

/** The password as PKCS#12's KDF reads it: UTF-16 big-endian plus a two-byte terminator. */
function bmpPassword(password: string): Buffer {
  const le = Buffer.from(`${password}\0`, 'utf16le');
  for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return le;
}

function verifyMac(macData: Asn1, content: Buffer, password: string): void {
  const [digestInfo, saltNode, iterNode] = children(macData, 'MAC data');
  const [algorithm, digestNode] = children(digestInfo, 'MAC digest');
  const hashOid = oid(children(algorithm, 'MAC algorithm')[0], 'MAC algorithm');
  const digest = DIGESTS[hashOid];
  if (!digest) throw fail('Certificate.UnsupportedEncryption', `Unsupported MAC digest ${hashOid} in the certificate file.`);
  const expected = octets(digestNode, 'MAC');
  const salt = octets(saltNode, 'MAC salt');
  const iterations = iterNode ? integer(iterNode, 'MAC iterations') : 1;
  // An empty password is written either as an empty BMP string or as nothing at all.
  const candidates = password === '' ? [bmpPassword(''), Buffer.alloc(0)] : [bmpPassword(password)];
  for (const candidate of candidates) {
    const key = pkcs12Kdf(hashOid, candidate, salt, 3, iterations, createHash(digest.name).digest().length);
    const mac = createHmac(digest.name, key).update(content).digest();
    if (mac.length === expected.length && timingSafeEqual(mac, expected)) return;
  }
  throw wrongPassword();
}

/** Decrypts an EncryptedData's content (PBES2 or a PKCS#12 PBE scheme). */
function decryptContent(algorithm: Asn1, encrypted: Buffer, password: string): Buffer {
  const [algOid, params] = children(algorithm, 'encryption algorithm');
  const scheme = oid(algOid, 'encryption algorithm');
  try {
    if (scheme === OID.pbes2) {
      const [kdf, enc] = children(params, 'PBES2 parameters');
      const [kdfOid, kdfParams] = children(kdf, 'key derivation');
      if (oid(kdfOid, 'key derivation') !== OID.pbkdf2) throw fail('Certificate.UnsupportedEncryption', 'Unsupported key derivation in the certificate file.');
      const p = children(kdfParams, 'PBKDF2 parameters');
      const salt = octets(p[0], 'PBKDF2 salt');
      const iterations = integer(p[1], 'PBKDF2 iterations');
      const prfNode = p.find((n) => n.type === forge.asn1.Type.SEQUENCE);
      const prf = prfNode ? HMAC_PRF[oid(children(prfNode, 'PRF')[0], 'PRF')] : 'sha1';
      const [encOid, ivNode] = children(enc, 'cipher');
      const cipher = PBES2_CIPHERS[oid(encOid, 'cipher')];
      if (!cipher || !prf) throw fail('Certificate.UnsupportedEncryption', 'Unsupported cipher in the certificate file.');
      const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, cipher.keyLength, prf);
      const decipher = createDecipheriv(cipher.name, key, octets(ivNode, 'IV'));
      return Buffer.concat([decipher.update(encrypted), decipher.final()]);
    }
    const pbe = PKCS12_PBE[scheme];
    if (!pbe) throw fail('Certificate.UnsupportedEncryption', `Unsupported encryption ${scheme} in the certificate file.`);
    const [saltNode, iterNode] = children(params, 'PBE parameters');
    const salt = octets(saltNode, 'PBE salt');
    const iterations = integer(iterNode, 'PBE iterations');
    const sha1 = '1.3.14.3.2.26';
    const bmp = bmpPassword(password);
    const key = pkcs12Kdf(sha1, bmp, salt, 1, iterations, pbe.keyLength);
    const iv = pkcs12Kdf(sha1, bmp, salt, 2, iterations, 8);
    if (pbe.cipher === 'rc2') {
      const decipher = forge.rc2.createDecryptionCipher(forge.util.createBuffer(key.toString('binary')), pbe.rc2Bits);
      decipher.start(forge.util.createBuffer(iv.toString('binary')));
      decipher.update(forge.util.createBuffer(encrypted.toString('binary')));
      if (!decipher.finish()) throw wrongPassword();
      return Buffer.from(decipher.output.getBytes(), 'binary');
    }
    const decipher = createDecipheriv(pbe.cipher, key, iv);
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw wrongPassword(); // bad padding: the key was wrong
  }
}

interface Bag {
  readonly type: string;
  readonly value: Asn1;
  readonly localKeyId: string | null;
}

function readBags(safeContents: Buffer): Bag[] {
  return children(parseDer(safeContents, 'safe contents'), 'safe contents').map((bag) => {
    const [bagOid, bagValue, attributes] = children(bag, 'safe bag');
    let localKeyId: string | null = null;
    for (const attr of attributes ? children(attributes, 'bag attributes') : []) {
      const [attrOid, values] = children(attr, 'attribute');
      if (oid(attrOid, 'attribute') === OID.localKeyId) localKeyId = octets(children(values, 'localKeyId')[0], 'localKeyId').toString('hex');
    }
    return { type: oid(bagOid, 'bag type'), value: explicit(bagValue, 'bag value'), localKeyId };
  });
}

/**
 * Opens a PKCS#12 file: checks its MAC against the password, decrypts every
 * part, and returns the private key with the certificate that belongs to it.
 */
export function readPkcs12(file: Buffer, password: string): Pkcs12Contents {
  try {
    return open(file, password);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw notPkcs12('its structure is damaged');
  }
}

function open(file: Buffer, password: string): Pkcs12Contents {
  const pfx = parseDer(file, 'the file');
  const [version, authSafe, macData] = children(pfx, 'the file');
  if (!version || version.type !== forge.asn1.Type.INTEGER || integer(version, 'version') !== 3) throw notPkcs12('it does not start like one');
  const [contentType, content] = children(authSafe, 'authenticated safe');
  if (oid(contentType, 'content type') !== OID.data) throw notPkcs12('public-key integrity mode is not supported');
  const authSafeBytes = octets(explicit(content, 'authenticated safe'), 'authenticated safe');
  if (macData) verifyMac(macData, authSafeBytes, password);

  const bags: Bag[] = [];
  for (const info of children(parseDer(authSafeBytes, 'authenticated safe'), 'authenticated safe')) {
    const [typeNode, contentNode] = children(info, 'content info');
    const type = oid(typeNode, 'content type');
    if (type === OID.data) {
      bags.push(...readBags(octets(explicit(contentNode, 'data'), 'data')));
    } else if (type === OID.encryptedData) {
      const [, encryptedContentInfo] = children(explicit(contentNode, 'encrypted data'), 'encrypted data');
      const [, algorithm, encrypted] = children(encryptedContentInfo, 'encrypted content');
      if (!encrypted) continue;
      bags.push(...readBags(decryptContent(algorithm!, octets(encrypted, 'encrypted content'), password)));
    }
  }

  const keyBag = bags.find((b) => b.type === OID.shroudedKeyBag || b.type === OID.keyBag);
  if (!keyBag) throw fail('Certificate.NoPrivateKey', 'The file holds no private key; export it again with the key included.');
  const keyDer = Buffer.from(forge.asn1.toDer(keyBag.value).getBytes(), 'binary');
  let privateKey: KeyObject;
  try {
    privateKey =
      keyBag.type === OID.keyBag
        ? createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8' })
        : createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8', passphrase: password });
  } catch {
    throw wrongPassword();
  }

  const certificates = bags
    .filter((b) => b.type === OID.certBag)
    .flatMap((b) => {
      const [certType, certValue] = children(b.value, 'certificate bag');
      if (oid(certType, 'certificate type') !== OID.x509Certificate) return [];
      try {
        return [{ cert: new X509Certificate(octets(explicit(certValue, 'certificate'), 'certificate')), localKeyId: b.localKeyId }];
      } catch {
        throw notPkcs12('a certificate inside it is damaged');
      }
    });
  const own =
    certificates.find((c) => keyBag.localKeyId !== null && c.localKeyId === keyBag.localKeyId && c.cert.checkPrivateKey(privateKey)) ??
    certificates.find((c) => c.cert.checkPrivateKey(privateKey));
  if (!own) {
    throw fail(
      'Certificate.KeyMismatch',
      certificates.length === 0
        ? 'The file holds a private key but no certificate.'
        : 'The private key in the file does not match any certificate in it.',
    );
  }
  return { privateKey, certificate: own.cert, others: certificates.filter((c) => c !== own).map((c) => c.cert) };
}

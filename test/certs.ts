import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { tempDir } from './helpers.js';

/**
 * Certificates made at test time (no private key is ever committed): keys
 * from node:crypto, X.509 built with node-forge, .p12 files exported by the
 * openssl command in both its legacy (3DES/RC2) and OpenSSL 3 default
 * (PBES2/AES-256) forms, or by node-forge.
 */
export interface Identity {
  readonly keyPem: string;
  readonly certPem: string;
}

export interface IdentityOptions {
  readonly bits?: number;
  readonly commonName?: string;
  /** The subject serialNumber attribute, e.g. IDCDO-00112345678. */
  readonly serialNumber?: string | null;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Sign the certificate with another identity's key (the key in the file then matches no certificate). */
  readonly keyPem?: string;
}

/**
 * RSA keys are the slow part of an identity (a 2048-bit key takes 0.1 to 2 s to find on a busy
 * machine, and the suite makes hundreds), while what tests check is in the certificate. So keys
 * come from a pool of KEY_POOL distinct keys per size, made once and kept in the temp dir
 * (written to a temporary file, then renamed: workers that make one at the same time each keep a
 * whole key). Each call takes the next key, so identities made one after the other (up to
 * KEY_POOL of them) never share a key; each certificate is still made and signed anew.
 */
export const KEY_POOL = 16;
export const KEY_POOL_DIR = join(process.env.ECF_TEST_KEY_DIR ?? tmpdir(), 'ecf-test-keys');
const pooled = new Map<string, string>();
const nextKey = new Map<number, number>();

/** The pool file that holds key `index` of `bits` bits. */
export function pooledKeyPath(bits: number, index: number): string {
  return join(KEY_POOL_DIR, `rsa${bits}-${index}.pem`);
}

function pooledKey(bits: number): string {
  const index = nextKey.get(bits) ?? 0;
  nextKey.set(bits, (index + 1) % KEY_POOL);
  const file = pooledKeyPath(bits, index);
  let pem = pooled.get(file);
  if (pem) return pem;
  try {
    pem = readFileSync(file, 'utf8');
  } catch {
    pem = generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    mkdirSync(KEY_POOL_DIR, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, pem, { mode: 0o600 });
    renameSync(tmp, file);
  }
  pooled.set(file, pem);
  return pem;
}

export function makeIdentity(options: IdentityOptions = {}): Identity {
  const keyPem = options.keyPem ?? pooledKey(options.bits ?? 2048);
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `0${Math.floor(Math.random() * 1e12).toString(16)}`;
  cert.validity.notBefore = options.notBefore ?? new Date('2026-01-01T00:00:00Z');
  cert.validity.notAfter = options.notAfter ?? new Date('2036-01-01T00:00:00Z'); // far ahead: CLI tests run on the real clock
  const subject: forge.pki.CertificateField[] = [{ name: 'commonName', value: options.commonName ?? 'ANA PÉREZ' }];
  if (options.serialNumber !== null) subject.push({ type: '2.5.4.5', value: options.serialNumber ?? 'IDCDO-00112345678' });
  cert.setSubject(subject);
  cert.setIssuer([{ name: 'commonName', value: 'ECF TEST CA' }, { name: 'organizationName', value: 'Pruebas' }]);
  cert.sign(key, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

export type P12Format = 'openssl-default' | 'openssl-legacy' | 'forge' | 'openssl-nokeys';

/** Exports an identity as a .p12 file in the given format, with the password given (UTF-8). */
export function makeP12(identity: Identity, password: string, format: P12Format = 'openssl-default'): Buffer {
  if (format === 'forge') {
    const key = forge.pki.privateKeyFromPem(identity.keyPem);
    const asn1 = forge.pkcs12.toPkcs12Asn1(key, [forge.pki.certificateFromPem(identity.certPem)], password, { algorithm: '3des' });
    return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
  }
  const dir = tempDir('ecf-p12-');
  writeFileSync(join(dir, 'key.pem'), identity.keyPem);
  writeFileSync(join(dir, 'cert.pem'), identity.certPem);
  const args = ['pkcs12', '-export', '-in', join(dir, 'cert.pem'), '-out', join(dir, 'out.p12'), '-passout', 'env:P12_PASSWORD'];
  if (format === 'openssl-nokeys') args.push('-nokeys');
  else args.push('-inkey', join(dir, 'key.pem'));
  if (format === 'openssl-legacy') args.push('-legacy');
  execFileSync('openssl', args, { env: { ...process.env, P12_PASSWORD: password }, stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(join(dir, 'out.p12'));
}

/** An EC (P-256) certificate in a .p12: valid PKCS#12, but not RSA. */
export function makeEcP12(password: string): Buffer {
  const dir = tempDir('ecf-p12-');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-subj', '/CN=EC Holder', '-days', '400'], { stdio: 'ignore' });
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', join(dir, 'k.pem'), '-in', join(dir, 'c.pem'), '-out', join(dir, 'o.p12'), '-passout', 'env:P12_PASSWORD'], { env: { ...process.env, P12_PASSWORD: password }, stdio: 'ignore' });
  return readFileSync(join(dir, 'o.p12'));
}

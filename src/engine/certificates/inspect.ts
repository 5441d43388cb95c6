import type { KeyObject, X509Certificate } from 'node:crypto';
import { EngineError } from '../errors.js';

/** What the appliance records about a certificate: everything public, nothing secret. */
export interface CertificateFacts {
  readonly subject: string;
  readonly subjectCommonName: string | null;
  readonly subjectSerialNumber: string | null;
  /** The RNC (9 digits) or cédula (11 digits) found in the subject's serialNumber, if any. */
  readonly holderId: string | null;
  readonly issuer: string;
  readonly serialNumber: string;
  readonly fingerprintSha256: string;
  readonly keyBits: number;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export const MIN_RSA_BITS = 2048;

/** "CN=Ana\nserialNumber=IDCDO-001..." -> [["CN","Ana"],["serialNumber","IDCDO-001..."]] */
function attributes(name: string): [string, string][] {
  return name
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const i = line.indexOf('=');
      return [line.slice(0, i), line.slice(i + 1)] as [string, string];
    });
}

const attribute = (name: string, key: string): string | null =>
  attributes(name).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1] ?? null;

const oneLine = (name: string): string => attributes(name).map(([k, v]) => `${k}=${v}`).join(', ');

/** IDCDO-00112345678 -> 00112345678; RNC 131234567 -> 131234567. */
export function holderIdOf(serialNumber: string | null): string | null {
  const m = serialNumber ? /(?:^|\D)(\d{11}|\d{9})(?:\D|$)/.exec(serialNumber) : null;
  return m ? m[1]! : null;
}

/**
 * Reads the certificate's public facts and refuses what cannot sign for the
 * authority: a non-RSA key, an RSA key under 2048 bits, a certificate not yet
 * valid or already expired at `now`.
 */
export function inspectCertificate(certificate: X509Certificate, privateKey: KeyObject, now: Date): CertificateFacts {
  const reject = (code: string, message: string) => new EngineError('validation', code, message);
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw reject('Certificate.NotRsa', `The certificate's key is ${privateKey.asymmetricKeyType?.toUpperCase() ?? 'of an unknown type'}; the authority requires RSA.`);
  }
  const keyBits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (keyBits < MIN_RSA_BITS) {
    throw reject('Certificate.KeyTooShort', `The certificate's RSA key has ${keyBits} bits; at least ${MIN_RSA_BITS} are required.`);
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore) {
    throw reject('Certificate.NotYetValid', `The certificate is not valid before ${notBefore.toISOString()}.`);
  }
  if (now >= notAfter) {
    throw reject('Certificate.Expired', `The certificate expired on ${notAfter.toISOString()}.`);
  }
  const subjectSerialNumber = attribute(certificate.subject, 'serialNumber');
  return {
    subject: oneLine(certificate.subject),
    subjectCommonName: attribute(certificate.subject, 'CN'),
    subjectSerialNumber,
    holderId: holderIdOf(subjectSerialNumber),
    issuer: oneLine(certificate.issuer),
    serialNumber: certificate.serialNumber.toUpperCase(),
    fingerprintSha256: certificate.fingerprint256,
    keyBits,
    notBefore,
    notAfter,
  };
}

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { tempDir } from '../../helpers.js';

/** Verifies an enveloped signature with xmlsec1 against the given certificate; returns xmlsec1's verdict text. */
export function verifyWithXmlsec1(xml: string, certPem: string): { ok: boolean; output: string } {
  const dir = tempDir('ecf-xmlsec-');
  writeFileSync(join(dir, 'doc.xml'), xml);
  writeFileSync(join(dir, 'cert.pem'), certPem);
  try {
    const output = execFileSync('xmlsec1', ['--verify', '--insecure', '--pubkey-cert-pem', join(dir, 'cert.pem'), join(dir, 'doc.xml')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { ok: true, output };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

/** Verifies with xml-crypto, a second independent implementation. */
export function verifyWithXmlCrypto(xml: string, certPem: string): boolean {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = doc.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0];
  if (!signature) return false;
  const verifier = new SignedXml({ publicCert: certPem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(signature);
  return verifier.checkSignature(xml);
}

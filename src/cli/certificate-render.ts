import type { CertificateView } from '../engine/certificates/index.js';
import { record } from './render.js';

/** The columns of `ecf cert list`, one row per certificate. */
export const CERTIFICATE_COLUMNS = ['id', 'status', 'commonName', 'holderId', 'notAfter', 'secretStore'] as const;

export function certificateRow(c: CertificateView): Record<string, unknown> {
  return {
    id: c.id,
    status: c.status,
    commonName: c.subject.commonName,
    holderId: c.subject.holderId,
    notAfter: c.notAfter,
    secretStore: c.secretStore,
  };
}

/** One certificate as "key: value" lines, then each warning on its own line. */
export function certificateText(c: CertificateView): string {
  const lines = record({
    id: c.id,
    tenantId: c.tenantId,
    status: c.status,
    subject: c.subject.text,
    commonName: c.subject.commonName,
    holderId: c.subject.holderId,
    issuer: c.issuer,
    serialNumber: c.serialNumber,
    fingerprintSha256: c.fingerprintSha256,
    keyBits: c.keyBits,
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    secretStore: c.secretStore,
    createdAt: c.createdAt,
    revokedAt: c.revokedAt,
  });
  return [lines, ...c.warnings.map((w) => `warning: ${w}`)].join('\n');
}

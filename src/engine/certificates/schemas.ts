import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from '../schema-types.js';

export const CERTIFICATE_STATUSES = ['active', 'superseded', 'expired', 'revoked'] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];

/** Never the key, the file or the password. */
export const CertificateView = Type.Object({
  id: Uuid(),
  tenantId: Uuid(),
  subject: Type.Object({
    text: Type.String({ description: 'The whole subject, e.g. CN=Ana Pérez, serialNumber=IDCDO-00112345678' }),
    commonName: Nullable(Type.String()),
    serialNumber: Nullable(Type.String({ description: 'The subject serialNumber attribute (OID 2.5.4.5)' })),
    holderId: Nullable(Type.String({ description: 'RNC or cédula read from serialNumber' })),
  }),
  issuer: Type.String(),
  serialNumber: Type.String({ description: 'Certificate serial, hexadecimal' }),
  fingerprintSha256: Type.String(),
  keyBits: Type.Integer(),
  notBefore: Type.String({ format: 'date-time' }),
  notAfter: Type.String({ format: 'date-time' }),
  status: Type.Union(
    CERTIFICATE_STATUSES.map((s) => Type.Literal(s)),
    {
      description:
        'active: signs for the tenant; superseded: valid but a newer certificate signs; expired: past notAfter; revoked: never signs again',
    },
  ),
  warnings: Type.Array(Type.String()),
  secretStore: Type.Union([Type.Literal('keychain'), Type.Literal('file')]),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
});
export type CertificateView = Static<typeof CertificateView>;

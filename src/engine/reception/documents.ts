import { createHash } from 'node:crypto';
import { signCanonical, signatureTimestamp, type SigningKey } from '../signing/xmldsig.js';
import { signable } from '../xml/schema-gate.js';

/**
 * The two documents of the receiver side (NOTES §10): the ARECF, the signed
 * receipt answered to every e-CF another issuer sends, and the ACECF, the
 * buyer's signed commercial decision. Both are written in canonical form and
 * signed like every other document; the signed bytes are stored and sent as
 * they are.
 */

/** ARECF CodigoMotivoNoRecibido (NOTES §10.2). */
export const NOT_RECEIVED = {
  specification: 1,
  signature: 2,
  duplicate: 3,
  buyerMismatch: 4,
} as const;
export type NotReceivedCode = (typeof NOT_RECEIVED)[keyof typeof NOT_RECEIVED];

/** Types whose commercial approval does not apply (contract; NOTES §10.1): never pending a decision. */
export const AUTOMATIC_APPROVAL_TYPES: ReadonlySet<number> = new Set([32, 41, 43, 46, 47]);

export const isApprovalAutomatic = (type: number | null): boolean => type !== null && AUTOMATIC_APPROVAL_TYPES.has(type);

export interface ArecfInput {
  readonly issuerRnc: string;
  readonly buyerRnc: string;
  readonly encf: string;
  /** null: received (Estado 0); a code: not received (Estado 1) for that reason. */
  readonly notReceived: NotReceivedCode | null;
  readonly at: Date;
}

export interface SignedDocument {
  readonly xml: string;
  readonly sha256: string;
}

const sha256 = (xml: string): string => createHash('sha256').update(xml, 'utf8').digest('hex');

export function signArecf(input: ArecfInput, key: SigningKey): SignedDocument {
  const canonical = signable('arecf', {
    DetalleAcusedeRecibo: {
      Version: '1.0',
      RNCEmisor: input.issuerRnc,
      RNCComprador: input.buyerRnc,
      eNCF: input.encf,
      Estado: input.notReceived === null ? '0' : '1',
      CodigoMotivoNoRecibido: input.notReceived === null ? undefined : String(input.notReceived),
      FechaHoraAcuseRecibo: signatureTimestamp(input.at),
    },
  });
  const { xml } = signCanonical(canonical, key);
  return { xml, sha256: sha256(xml) };
}

export interface AcecfInput {
  readonly issuerRnc: string;
  readonly encf: string;
  /** FechaEmision as the e-CF wrote it, dd-MM-yyyy. */
  readonly issueDate: string;
  /** Two decimals. */
  readonly montoTotal: string;
  readonly buyerRnc: string;
  readonly decision: 'accepted' | 'rejected';
  readonly rejectionReason: string | null;
  readonly at: Date;
}

export function signAcecf(input: AcecfInput, key: SigningKey): SignedDocument {
  const canonical = signable('acecf', {
    DetalleAprobacionComercial: {
      Version: '1.0',
      RNCEmisor: input.issuerRnc,
      eNCF: input.encf,
      FechaEmision: input.issueDate,
      MontoTotal: input.montoTotal,
      RNCComprador: input.buyerRnc,
      Estado: input.decision === 'accepted' ? '1' : '2',
      DetalleMotivoRechazo: input.decision === 'rejected' ? input.rejectionReason : undefined,
      FechaHoraAprobacionComercial: signatureTimestamp(input.at),
    },
  });
  const { xml } = signCanonical(canonical, key);
  return { xml, sha256: sha256(xml) };
}

/** dd-MM-yyyy (day and month may have one digit in an ACECF) -> YYYY-MM-DD; null when it is not a date. */
export function isoFromXmlDate(text: string | null): string | null {
  const m = text ? /^(\d{1,2})-(\d{1,2})-(\d{4})$/.exec(text) : null;
  if (!m) return null;
  const iso = `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso;
}

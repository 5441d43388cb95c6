import { Type, type Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import { EnvironmentSchema, Nullable, Uuid } from '../schema-types.js';
import type { Environment } from '../schema-types.js';
import type { InboundApprovalsTable, ReceivedEcfApprovalsTable, ReceivedEcfTable } from '../store/schema.js';
import { deliveryStateOf, type DeliveryColumn } from './delivery-state.js';
import { isApprovalAutomatic } from './documents.js';

const DateTime = Type.String({ format: 'date-time' });

export const DECISIONS = ['accepted', 'rejected'] as const;
export type Decision = (typeof DECISIONS)[number];

/** Where a received e-CF stands as to the tenant's commercial decision. */
export const APPROVAL_STATES = ['pending', 'accepted', 'rejected', 'automatic', 'not_applicable'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export const DeliveryView = Type.Object({
  status: Type.String({ description: 'pending, delivered, refused (a final no from the other side) or failed (retries ran out)' }),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  lastAttemptAt: Nullable(DateTime),
  nextAttemptAt: Nullable(DateTime),
  deliveredAt: Nullable(DateTime),
  url: Nullable(Type.String({ description: "The issuer's receiver the ACECF went to; null for the authority" })),
});

export const CommercialApprovalView = Type.Object({
  id: Uuid(),
  decision: Type.String({ description: 'accepted (ACECF Estado 1) or rejected (Estado 2)' }),
  rejectionReason: Nullable(Type.String()),
  decidedAt: DateTime,
  acecf: Type.String({ description: 'The signed ACECF, as sent' }),
  deliveries: Type.Object({ issuer: DeliveryView, taxauth: DeliveryView }),
});
export type CommercialApprovalView = Static<typeof CommercialApprovalView>;

export const ReceptionView = Type.Object({
  estado: Type.Integer({ description: 'ARECF Estado: 0 received, 1 not received' }),
  reasonCode: Nullable(Type.Integer({ description: 'CodigoMotivoNoRecibido: 1 specification, 2 signature, 3 duplicate, 4 buyer RNC' })),
  reason: Nullable(Type.String()),
});

export const ReceivedEcfSummary = Type.Object({
  id: Uuid(),
  environment: EnvironmentSchema,
  status: Type.String({ description: 'received or not_received' }),
  encf: Type.String(),
  type: Nullable(Type.Integer()),
  issuerRnc: Type.String(),
  issuerName: Nullable(Type.String()),
  buyerRnc: Nullable(Type.String()),
  issueDate: Nullable(Type.String({ format: 'date' })),
  montoTotal: Nullable(Type.String()),
  securityCode: Nullable(Type.String()),
  receivedAt: DateTime,
  reception: ReceptionView,
  commercialApprovalAutomatic: Type.Boolean({ description: 'true for types 32, 41, 43, 46 and 47: commercial approval does not apply' }),
  approvalState: Type.String({ description: 'pending, accepted, rejected, automatic or not_applicable (not received)' }),
  links: Type.Object({ self: Type.String() }),
});
export type ReceivedEcfSummary = Static<typeof ReceivedEcfSummary>;

export const ReceivedEcfView = Type.Composite([
  ReceivedEcfSummary,
  Type.Object({
    fileName: Nullable(Type.String()),
    xmlSha256: Type.String({ description: 'SHA-256 of the bytes as they arrived' }),
    arecf: Type.String({ description: 'The signed ARECF answered, as sent' }),
    commercialApproval: Nullable(CommercialApprovalView),
  }),
]);
export type ReceivedEcfView = Static<typeof ReceivedEcfView>;

export const InboundApprovalView = Type.Object({
  id: Uuid(),
  ecfId: Uuid(),
  encf: Type.String(),
  buyerRnc: Type.String(),
  decision: Type.String({ description: 'accepted or rejected' }),
  rejectionReason: Nullable(Type.String()),
  approvedAt: Type.String({ description: 'FechaHoraAprobacionComercial as the buyer wrote it (dd-MM-yyyy HH:mm:ss)' }),
  receivedAt: DateTime,
});
export type InboundApprovalView = Static<typeof InboundApprovalView>;

export type ReceivedRow = Omit<Selectable<ReceivedEcfTable>, 'xml'>;
export type ApprovalRow = Selectable<ReceivedEcfApprovalsTable>;

/** Every column but the received bytes, which no view carries. */
export const RECEIVED_COLUMNS = [
  'id', 'tenant_id', 'environment', 'status', 'reason_code', 'reason', 'issuer_rnc', 'issuer_name', 'buyer_rnc', 'encf', 'type',
  'issue_date', 'monto_total', 'security_code', 'file_name', 'xml_sha256', 'arecf_xml', 'arecf_sha256', 'received_at',
] as const;

/** A document not received takes no decision, whatever its type: not_applicable before automatic. */
export function approvalState(row: Pick<ReceivedRow, 'status' | 'type'>, decision: string | null): ApprovalState {
  if (row.status !== 'received') return 'not_applicable';
  if (isApprovalAutomatic(row.type)) return 'automatic';
  return (decision as Decision | null) ?? 'pending';
}

export function summaryView(row: ReceivedRow, decision: string | null): ReceivedEcfSummary {
  return {
    id: row.id,
    environment: row.environment as Environment,
    status: row.status,
    encf: row.encf,
    type: row.type,
    issuerRnc: row.issuer_rnc,
    issuerName: row.issuer_name,
    buyerRnc: row.buyer_rnc,
    issueDate: row.issue_date,
    montoTotal: row.monto_total,
    securityCode: row.security_code,
    receivedAt: toDominicanIso(row.received_at),
    reception: { estado: row.status === 'received' ? 0 : 1, reasonCode: row.reason_code, reason: row.reason },
    commercialApprovalAutomatic: isApprovalAutomatic(row.type),
    approvalState: approvalState(row, decision),
    links: { self: `/api/v1/received-ecf/${row.id}` },
  };
}

/** One delivery of an outgoing ACECF as shown (delivery-state.ts holds its stored shape). */
const deliveryView = (json: string, column: DeliveryColumn, approvalId: string) => {
  const s = deliveryStateOf(json, column, approvalId);
  const iso = (v: string | null) => (v ? toDominicanIso(v) : null);
  return {
    status: s.status,
    attempts: s.attempts,
    lastError: s.lastError,
    lastAttemptAt: iso(s.lastAttemptAt),
    nextAttemptAt: iso(s.nextAttemptAt),
    deliveredAt: iso(s.deliveredAt),
    url: s.url,
  };
};

/** `acecf`: the stored ACECF as read back (reception/stored.ts). */
export function approvalView(a: ApprovalRow, acecf: Buffer): CommercialApprovalView {
  return {
    id: a.id,
    decision: a.decision,
    rejectionReason: a.rejection_reason,
    decidedAt: toDominicanIso(a.decided_at),
    acecf: acecf.toString('utf8'),
    deliveries: { issuer: deliveryView(a.issuer_delivery, 'issuer_delivery', a.id), taxauth: deliveryView(a.taxauth_delivery, 'taxauth_delivery', a.id) },
  };
}

/** `arecf` and `approval.acecf`: the stored documents as read back (reception/stored.ts). */
export function receivedView(row: ReceivedRow, arecf: Buffer, approval: { row: ApprovalRow; acecf: Buffer } | null): ReceivedEcfView {
  return {
    ...summaryView(row, approval?.row.decision ?? null),
    fileName: row.file_name,
    xmlSha256: row.xml_sha256,
    arecf: arecf.toString('utf8'),
    commercialApproval: approval ? approvalView(approval.row, approval.acecf) : null,
  };
}

export function inboundApprovalView(row: Selectable<InboundApprovalsTable>): InboundApprovalView {
  return {
    id: row.id,
    ecfId: row.ecf_id,
    encf: row.encf,
    buyerRnc: row.buyer_rnc,
    decision: row.decision,
    rejectionReason: row.rejection_reason,
    approvedAt: row.approved_at_text,
    receivedAt: toDominicanIso(row.received_at),
  };
}

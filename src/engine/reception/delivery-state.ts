import { Type, type Static } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';
import { Nullable } from '../schema-types.js';

/**
 * `received_ecf_approvals.issuer_delivery` and `.taxauth_delivery`: one
 * delivery of an outgoing ACECF, written by approve.ts (pending) and
 * deliver.ts (each attempt), read by views.ts. The schema is the one
 * definition; the type comes from it.
 */
export const ApprovalDeliveryColumn = Type.Object({
  /** pending, delivered, refused (a final no from the other side) or failed (retries ran out) */
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('refused'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  /** When the last attempt was made. */
  lastAttemptAt: Nullable(Type.String()),
  /** When the next attempt is due while pending. */
  nextAttemptAt: Nullable(Type.String()),
  deliveredAt: Nullable(Type.String()),
  /** Where it went (the issuer's receiver URL); null for the authority. */
  url: Nullable(Type.String()),
});
export type ApprovalDeliveryState = Static<typeof ApprovalDeliveryColumn>;

export type DeliveryColumn = 'issuer_delivery' | 'taxauth_delivery';

/** One delivery's state as stored; a value that does not match the schema is Store.ColumnDamaged, naming the row. */
export const deliveryStateOf = (json: string, column: DeliveryColumn, approvalId: string): ApprovalDeliveryState =>
  parseJsonColumn(ApprovalDeliveryColumn, json, `received_ecf_approvals.${column} of ${approvalId}`);

/** The payload of an `acecf.deliver` work item: which approval, to whom. */
export const DeliverApprovalPayload = Type.Object({
  approvalId: Type.String(),
  target: Type.Union([Type.Literal('issuer'), Type.Literal('taxauth')]),
});
export type DeliverApprovalPayload = Static<typeof DeliverApprovalPayload>;

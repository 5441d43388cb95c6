import { X509Certificate, verify } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';
import { canonicalJson, type Json } from './canonical-json.js';

/** Counts and totals of one environment and e-CF type; `total` is the sum of MontoTotal, a decimal string with two places. */
export interface TypeTotal {
  readonly environment: string;
  readonly type: number;
  readonly count: number;
  readonly total: string;
}

const TypeTotalValue = Type.Object({ environment: Type.String(), type: Type.Integer(), count: Type.Integer(), total: Type.String() });

/** `journal.data` of a closing entry, as ClosingData below says. */
const ClosingDataColumn = Type.Object({
  v: Type.Literal(1),
  kind: Type.Union([Type.Literal('day'), Type.Literal('month')]),
  period: Type.String(),
  from: Type.Number(),
  to: Type.Number(),
  issued: Type.Array(TypeTotalValue),
  perpetual: Type.Array(TypeTotalValue),
  lockedHead: Type.Object({ seq: Type.Integer(), hash: Type.String() }),
  previous: Type.Object({ day: Type.Union([Type.Integer(), Type.Null()]), month: Type.Union([Type.Integer(), Type.Null()]) }),
  certificate: Type.Union([Type.String(), Type.Null()]),
  signature: Type.Union([Type.String(), Type.Null()]),
});

/** A closing entry's data read back through its schema (a DamagedColumnError naming the entry when it does not fit). */
export const closingDataOf = (data: string | null, seq: number): ClosingData =>
  parseJsonColumn(ClosingDataColumn, data ?? 'null', `journal.data of closing entry ${seq}`) satisfies Static<typeof ClosingDataColumn>;

/**
 * The data of a `closing.day` or `closing.month` entry, stored as
 * canonicalJson (docs/record.md lists the fields).
 */
export interface ClosingData {
  readonly v: 1;
  readonly kind: 'day' | 'month';
  /** yyyy-MM-dd or yyyy-MM, Dominican. */
  readonly period: string;
  /** The period's instants [from, to), ms since the epoch. */
  readonly from: number;
  readonly to: number;
  readonly issued: readonly TypeTotal[];
  /** The previous closing of the same kind's perpetual plus `issued`; the first closing's: everything issued before `to`. */
  readonly perpetual: readonly TypeTotal[];
  /** The entry just before the closing: its seq and its full hash (hex). */
  readonly lockedHead: { readonly seq: number; readonly hash: string };
  /** The seq of the tenant's previous day and month closings (null: none). */
  readonly previous: { readonly day: number | null; readonly month: number | null };
  /** The signing certificate (DER, base64), or null when the tenant had none active. */
  readonly certificate: string | null;
  /** RSA-SHA256 (PKCS#1 v1.5), base64, over closingSignedText; null when unsigned. */
  readonly signature: string | null;
}

/** What is signed: the canonical JSON of the closing without its `signature` field. */
export function closingSignedText(data: ClosingData): string {
  const { signature: _, ...signed } = data;
  return canonicalJson(signed as unknown as Json);
}

/** What the entry's `data` holds. */
export const closingText = (data: ClosingData): string => canonicalJson(data as unknown as Json);

export type SignatureVerdict = { readonly ok: true; readonly signed: boolean } | { readonly ok: false; readonly reason: string };

/** Checks a closing's signature with the certificate it carries: no secret and no appliance needed. */
export function checkClosingSignature(data: ClosingData): SignatureVerdict {
  if (data.signature === null && data.certificate === null) return { ok: true, signed: false };
  if (data.signature === null || data.certificate === null) return { ok: false, reason: 'signature and certificate must both be present or both null' };
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(data.certificate, 'base64'));
  } catch {
    return { ok: false, reason: 'its certificate is not a readable X.509 certificate' };
  }
  const good = verify('sha256', Buffer.from(closingSignedText(data), 'utf8'), certificate.publicKey, Buffer.from(data.signature, 'base64'));
  return good ? { ok: true, signed: true } : { ok: false, reason: `its signature does not verify with its certificate (${certificate.subject.replace(/\n/g, ', ')})` };
}

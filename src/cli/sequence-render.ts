import type { AnnulmentView, SequenceRangeView } from '../engine/sequences/index.js';
import { record } from './render.js';

/** The columns of `ecf sequence list`, one row per loaded range. */
export const RANGE_COLUMNS = ['id', 'env', 'type', 'typeName', 'from', 'to', 'next', 'remaining', 'lowStock', 'expiresOn'] as const;

export function rangeRow(r: SequenceRangeView): Record<string, unknown> {
  return {
    id: r.id,
    env: r.environment,
    type: r.type,
    typeName: r.typeName,
    from: r.rangeFrom,
    to: r.rangeTo,
    next: r.next,
    remaining: r.remaining,
    lowStock: r.isLowStock ? 'yes' : 'no',
    expiresOn: r.expiresOn,
  };
}

/** The columns of `ecf sequence annulments`, one row per annulment. */
export const ANNULMENT_COLUMNS = ['id', 'env', 'status', 'numbers', 'ranges', 'attempts', 'createdAt', 'taxauth'] as const;

const rangesText = (a: AnnulmentView): string => a.lines.map((l) => `${l.type}:${l.rangeFrom}-${l.rangeTo}`).join(', ');

/** What the authority said last, or why nothing came back. */
const taxauthText = (a: AnnulmentView): string | null =>
  a.lastError ?? (a.taxauthCode || a.taxauthMessages.length ? [a.taxauthCode, ...a.taxauthMessages].filter(Boolean).join(' ') : null);

export function annulmentRow(a: AnnulmentView): Record<string, unknown> {
  return {
    id: a.id,
    env: a.environment,
    status: a.status,
    numbers: a.totalCount,
    ranges: rangesText(a),
    attempts: a.attempts,
    createdAt: a.createdAt,
    taxauth: taxauthText(a),
  };
}

/** One annulment as aligned lines. */
export function annulmentText(a: AnnulmentView): string {
  return record({
    id: a.id,
    environment: a.environment,
    status: a.status,
    reason: a.reason,
    numbers: a.totalCount,
    ranges: rangesText(a),
    attempts: a.attempts,
    taxauthCode: a.taxauthCode,
    taxauthMessages: a.taxauthMessages.join(' | ') || null,
    lastError: a.lastError,
    submittedAt: a.submittedAt,
    voidedAt: a.voidedAt,
    createdAt: a.createdAt,
  });
}

import type { SequenceRangeView } from '../engine/sequences/schemas.js';

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

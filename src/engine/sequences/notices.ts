import { dominicanDate } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { emit, type EventEnvelope } from '../events/outbox.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction } from '../store/database.js';
import { onceInCluster } from '../store/locking.js';
import { rangeView } from './ranges.js';

/** Days before a range's expiry at which it is announced, widest first. */
export const SEQUENCE_NOTICE_DAYS = [30, 7] as const;
const DAY_MS = 86_400_000;

/**
 * `sequence.expiring` (30 and 7 days before expiresOn, the tightest threshold
 * reached, each once) and `sequence.expired` (once) for active ranges that
 * still have numbers: an exhausted range has nothing left to lose. Ranges of
 * types 32 and 34 never expire. Idempotent: each notice names its fact.
 */
export async function emitSequenceNotices(engine: Engine): Promise<EventEnvelope[]> {
  const now = engine.clock.now();
  const today = dominicanDate(now);
  const rows = await engine.db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('active', '=', 1)
    .where('expires_on', 'is not', null)
    .whereRef('next', '<=', 'range_to')
    .execute();
  const fractions = new Map<string, number>();
  for (const r of rows) {
    if (!fractions.has(r.tenant_id)) fractions.set(r.tenant_id, await getSetting(engine, 'sequences.low_stock_fraction', r.tenant_id));
  }
  return inTransaction(engine.db, async (tx) => {
    // Another process telling now tells the same facts (they are keyed): one is enough.
    if (!(await onceInCluster(tx, 'sequence-notices'))) return [];
    const sent: EventEnvelope[] = [];
    for (const r of rows) {
      const view = rangeView(r, fractions.get(r.tenant_id)!);
      const days = Math.round((Date.parse(`${r.expires_on}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
      let e: EventEnvelope | null = null;
      if (days < 0) {
        e = await emit(tx, now, r.tenant_id, 'sequence.expired', view, { factKey: `sequence.expired:${r.id}` });
      } else {
        const threshold = [...SEQUENCE_NOTICE_DAYS].reverse().find((d) => days <= d);
        if (threshold !== undefined) {
          e = await emit(tx, now, r.tenant_id, 'sequence.expiring', { ...view, daysUntilExpiry: days, threshold }, { factKey: `sequence.expiring:${r.id}:${threshold}` });
        }
      }
      if (e) sent.push(e);
    }
    return sent;
  });
}

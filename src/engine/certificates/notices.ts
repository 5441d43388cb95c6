import type { Engine } from '../engine-types.js';
import { emit, type EventEnvelope } from '../events/outbox.js';
import { inTransaction } from '../store/database.js';
import { onceInCluster } from '../store/locking.js';
import { listCertificates } from './certificates.js';

/** Days before notAfter at which the active certificate is announced as expiring, widest first. */
export const EXPIRY_NOTICE_DAYS = [90, 30, 15, 7] as const;
const DAY_MS = 86_400_000;

/**
 * Announces, through the outbox, the active certificate of each tenant
 * reaching 90, 30, 15 and 7 days before expiry (each threshold once; a
 * certificate uploaded with 20 days left gets the 30-day notice, not the
 * 90-day one) and a tenant's certificate expiring with no valid one after
 * it (once). Safe to run any number of times: each notice names its fact.
 */
export async function emitCertificateNotices(engine: Engine): Promise<EventEnvelope[]> {
  const now = engine.clock.now();
  const tenants = await engine.db
    .selectFrom('certificates')
    .select('tenant_id')
    .distinct()
    .where('revoked_at', 'is', null)
    .execute();
  const sent: EventEnvelope[] = [];
  for (const { tenant_id: tenantId } of tenants) {
    const certificates = await listCertificates(engine, tenantId);
    const active = certificates.find((c) => c.status === 'active');
    await inTransaction(engine.db, async (tx) => {
      // Another process telling this tenant now tells the same facts (they are keyed): one is enough.
      if (!(await onceInCluster(tx, `certificate-notices:${tenantId}`))) return;
      if (active) {
        const daysUntilExpiry = Math.floor((Date.parse(active.notAfter) - now.getTime()) / DAY_MS);
        const threshold = [...EXPIRY_NOTICE_DAYS].reverse().find((d) => daysUntilExpiry <= d);
        if (threshold !== undefined) {
          const e = await emit(tx, now, tenantId, 'certificate.expiring', { ...active, daysUntilExpiry, threshold }, {
            factKey: `certificate.expiring:${active.id}:${threshold}`,
          });
          if (e) sent.push(e);
        }
        return;
      }
      // No certificate signs: tell of the newest unrevoked one that expired.
      const lapsed = certificates.find((c) => c.status === 'expired');
      if (lapsed) {
        const e = await emit(tx, now, tenantId, 'certificate.expired', lapsed, { factKey: `certificate.expired:${lapsed.id}` });
        if (e) sent.push(e);
      }
    });
  }
  return sent;
}

import { endpointEventsOf } from './endpoint-events.js';
import { categoryOf, type EventType } from './catalogue.js';
import { newId } from '../ids.js';
import type { Tx } from '../store/database.js';
import { announceWork } from '../work/queue.js';

/** Whether a subscription entry (exact type, `category.*` or `*`) covers an event type. */
export function entryMatches(entry: string, type: EventType): boolean {
  if (entry === '*') return true;
  if (entry.endsWith('.*')) return categoryOf(type) === entry.slice(0, -2);
  return entry === type;
}

/**
 * Lives with the outbox, not in webhooks/: it is part of writing an event
 * (the same transaction), and webhooks/ reads the events catalogue and
 * outbox, so the outbox must not import webhooks/.
 *
 * Writes one pending delivery, due now, for each enabled endpoint of the
 * tenant subscribed to the event. Runs inside the transaction that records
 * the event (outbox `emit`), so an event and its deliveries commit together.
 */
export async function fanOut(tx: Tx, now: Date, tenantId: string, eventId: string, type: EventType): Promise<number> {
  const endpoints = await tx
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', 1)
    .execute();
  const matching = endpoints.filter((e) => endpointEventsOf(e.events).some((entry) => entryMatches(entry, type)));
  if (matching.length === 0) return 0;
  const stamp = now.toISOString();
  await tx
    .insertInto('webhook_deliveries')
    .values(
      matching.map((e) => ({
        id: newId(),
        endpoint_id: e.id,
        tenant_id: tenantId,
        event_id: eventId,
        event_type: type,
        status: 'pending',
        attempts: 0,
        next_attempt_at: stamp,
        created_at: stamp,
        updated_at: stamp,
      })),
    )
    .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
    .execute();
  await announceWork(tx);
  return matching.length;
}

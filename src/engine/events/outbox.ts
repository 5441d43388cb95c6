import { Type } from '@sinclair/typebox';
import { toDominicanIso } from '../clock.js';
import type { Db, Tx } from '../store/database.js';
import type { EventsTable } from '../store/schema.js';
import { newEventId } from '../ids.js';
import { parseJsonColumn } from '../json-column.js';
import { EVENT_API_VERSION, type EventType } from './catalogue.js';
import { fanOut } from './fan-out.js';
import type { Selectable } from 'kysely';

/**
 * `events.data`: the event's object, as emitted. Its shape is the event type's (docs/contract/events.md), and the
 * envelope hands it on unchanged, so what is checked on read is that it is JSON: a damaged row is named.
 */
const EventObject = Type.Unknown();

/** The envelope of the contract, as receivers get it. */
export interface EventEnvelope<T = unknown> {
  readonly id: string;
  readonly object: 'event';
  readonly type: EventType;
  readonly apiVersion: number;
  readonly createdAt: string;
  readonly data: { readonly object: T };
}

export interface EmitOptions {
  /**
   * Names the fact so it is told once: a second emit with the same key is a
   * no-op returning null (e.g. `certificate.expiring:<id>:30`).
   */
  readonly factKey?: string;
}

/**
 * Records an event in the caller's transaction, so the event exists exactly
 * when the change that caused it commits, together with one webhook delivery
 * per enabled endpoint of the tenant subscribed to it (the delivery job sends
 * them later, outside any transaction).
 */
export async function emit<T>(
  tx: Tx,
  now: Date,
  tenantId: string | null,
  type: EventType,
  object: T,
  options: EmitOptions = {},
): Promise<EventEnvelope<T> | null> {
  const row = {
    id: newEventId(),
    tenant_id: tenantId,
    type,
    api_version: EVENT_API_VERSION,
    created_at: now.toISOString(),
    data: JSON.stringify(object),
    fact_key: options.factKey ?? null,
  };
  const inserted = await tx
    .insertInto('events')
    .values(row)
    .onConflict((oc) => oc.column('fact_key').doNothing())
    .returning('seq')
    .executeTakeFirst();
  if (!inserted) return null;
  if (tenantId !== null) await fanOut(tx, now, tenantId, row.id, type);
  return toEnvelope(row) as EventEnvelope<T>;
}

export function toEnvelope(
  row: Pick<Selectable<EventsTable>, 'id' | 'type' | 'api_version' | 'created_at' | 'data'>,
): EventEnvelope {
  return {
    id: row.id,
    object: 'event',
    type: row.type as EventType,
    apiVersion: row.api_version,
    createdAt: toDominicanIso(row.created_at),
    data: { object: parseJsonColumn(EventObject, row.data, `events.data of event ${row.id}`) },
  };
}

/** Events recorded for a tenant, oldest first, after a sequence number (for readers and tests). */
export async function listEvents(
  db: Db,
  filter: { tenantId?: string | null; afterSeq?: number; limit?: number } = {},
): Promise<(EventEnvelope & { seq: number; tenantId: string | null })[]> {
  let q = db.selectFrom('events').selectAll().orderBy('seq').limit(filter.limit ?? 1000);
  if (filter.tenantId !== undefined) {
    q = filter.tenantId === null ? q.where('tenant_id', 'is', null) : q.where('tenant_id', '=', filter.tenantId);
  }
  if (filter.afterSeq !== undefined) q = q.where('seq', '>', filter.afterSeq);
  const rows = await q.execute();
  return rows.map((r) => ({ ...toEnvelope(r), seq: r.seq, tenantId: r.tenant_id }));
}

import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, notFound } from '../errors.js';
import { EVENT_API_VERSION } from '../events/catalogue.js';
import { toEnvelope, type EventEnvelope } from '../events/outbox.js';
import { isUuid, newEventId } from '../ids.js';
import { pageOf, pageWindow } from '../paging.js';
import { afterCommit, inTransaction, type Db } from '../store/database.js';
import { logStateChange } from '../log/state-change.js';
import { claimedIds, forUpdate } from '../store/locking.js';
import type { WebhookDeliveriesTable } from '../store/schema.js';
import { check } from '../validation.js';
import { nextRung } from '../work/ladder.js';
import { WEBHOOKS_GROUP } from '../work/lanes.js';
import { pump, type WorkSource } from '../work/pump.js';
import { leaseOwnerName } from '../work/queue.js';
import { holderState } from '../work/holder.js';
import type { Resolver } from './address-guard.js';
import { endpointSecret, endpointView, loadEndpoint, sendPolicy, type EndpointRow, type GuardOptions } from './endpoints.js';
import {
  DELIVERY_LADDER_MS,
  DISABLED_BY_FAILURES,
  DISABLE_AFTER_FAILURES,
  MAX_DELIVERY_ATTEMPTS,
  PER_ENDPOINT_CONCURRENCY,
  WEBHOOKS_CONCURRENCY,
} from './rules.js';
import {
  DeliveriesQuery,
  type DeliveryStatus,
  type PagedDeliveries,
  type PingResult,
  type WebhookDeliveryView,
} from './schemas.js';
import { postToReceiver, type SendPolicy, type SendResult } from './send.js';
import { signedHeaders } from './signature.js';

type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export function deliveryView(r: DeliveryRow): WebhookDeliveryView {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    nextAttemptAt: toDominicanIso(r.next_attempt_at),
    createdAt: toDominicanIso(r.created_at),
    updatedAt: toDominicanIso(r.updated_at),
  };
}

/* ------------------------------------------------------------------ */
/* The delivery log                                                     */
/* ------------------------------------------------------------------ */

/** An endpoint's deliveries, newest first (by event order within one instant), paged like the e-CF list. */
export async function listDeliveries(engine: Engine, tenantId: string, endpointId: string, query: unknown = {}): Promise<PagedDeliveries> {
  await loadEndpoint(engine.db, tenantId, endpointId);
  const q = check(DeliveriesQuery, query, 'query');
  const window = pageWindow(q);
  const base = engine.db.selectFrom('webhook_deliveries').where('webhook_deliveries.endpoint_id', '=', endpointId);
  const [rows, count] = await Promise.all([
    base
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .selectAll('webhook_deliveries')
      .orderBy('webhook_deliveries.created_at', 'desc')
      .orderBy('events.seq', 'desc')
      .limit(window.pageSize)
      .offset(window.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return pageOf(rows.map(deliveryView), Number(count.n), window);
}

export async function getDelivery(engine: Engine, tenantId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
  await loadEndpoint(engine.db, tenantId, endpointId);
  const row = isUuid(deliveryId)
    ? await engine.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('endpoint_id', '=', endpointId).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('WebhookDelivery');
  return deliveryView(row);
}

/**
 * A dead delivery back to pending, due now, with its attempts (and so its
 * backoff) reset. Any other delivery answers 404, as the contract says.
 */
export async function retryDelivery(engine: Engine, tenantId: string, endpointId: string, deliveryId: string): Promise<void> {
  await loadEndpoint(engine.db, tenantId, endpointId);
  const now = engine.clock.now().toISOString();
  const r = isUuid(deliveryId)
    ? await engine.db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('id', '=', deliveryId)
        .where('endpoint_id', '=', endpointId)
        .where('tenant_id', '=', tenantId)
        .where('status', '=', 'dead')
        .executeTakeFirst()
    : undefined;
  if (r && r.numUpdatedRows > 0n) {
    logStateChange(engine.log, engine.db, { subject: 'delivery', tenantId, id: deliveryId, from: 'dead', to: 'pending', extra: { endpointId, retry: true } });
    return;
  }
  const exists = isUuid(deliveryId)
    ? await engine.db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).where('endpoint_id', '=', endpointId).executeTakeFirst()
    : undefined;
  if (!exists) throw notFound('WebhookDelivery');
  throw new EngineError('not_found', 'WebhookDelivery.NotDead', `Only a dead delivery can be retried; this one is ${exists.status}.`);
}

/* ------------------------------------------------------------------ */
/* Ping                                                                 */
/* ------------------------------------------------------------------ */

/**
 * Sends a `webhook.ping` now, outside the queue: no delivery row, no retry,
 * and the endpoint's failure count is left alone. Works on a disabled
 * endpoint too (that is how a receiver is tried before re-enabling it).
 */
export async function pingWebhook(
  engine: Engine,
  tenantId: string,
  id: string,
  options: GuardOptions & { timeoutMs?: number } = {},
): Promise<PingResult> {
  const row = await loadEndpoint(engine.db, tenantId, id);
  const policy = await sendPolicy(engine, options);
  const secret = await endpointSecret(engine, row);
  const now = engine.clock.now();
  const envelope: EventEnvelope = {
    id: newEventId(),
    object: 'event',
    type: 'webhook.ping',
    apiVersion: EVENT_API_VERSION,
    createdAt: toDominicanIso(now),
    data: { object: endpointView(row) },
  };
  const body = JSON.stringify(envelope);
  return postToReceiver(row.url, body, signedHeaders(secret, envelope.id, now, body), policy);
}

/* ------------------------------------------------------------------ */
/* The queue                                                            */
/* ------------------------------------------------------------------ */

export interface DeliveryOptions {
  /** The lease owner of this run's claims. */
  readonly owner?: string;
  readonly resolve?: Resolver;
  /** One attempt's limit; 10 s. */
  readonly timeoutMs?: number;
  /** Attempts in flight at once for one endpoint. */
  readonly perEndpoint?: number;
  /** Endpoints served at once; each has its own lane, so a slow one holds only its own. */
  readonly maxEndpoints?: number;
  /** How often (real time) the run looks for endpoints with due deliveries while lanes are busy. */
  readonly pollMs?: number;
  /** After this long (real time) no new claims are made; attempts in flight finish. */
  readonly budgetMs?: number;
  /** How long a claim is held before another run may take the delivery again. */
  readonly leaseMs?: number;
}

export interface AttemptResult {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly eventId: string;
  /** delivered; retry (pending, next on the ladder); dead; skipped (endpoint paused or gone: not attempted); lease_lost. */
  readonly outcome: 'delivered' | 'retry' | 'dead' | 'skipped' | 'lease_lost';
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly nextAttemptAt: string | null;
}

const DEFAULT_POLL_MS = 200;
export const DELIVERY_LEASE_MS = 2 * 60_000;

/** Endpoints that have deliveries due now and free, the most overdue first. */
async function endpointsWithDueWork(db: Db, now: Date, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const at = now.toISOString();
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select('d.endpoint_id')
    .select((eb) => eb.fn.min('d.next_attempt_at').as('due'))
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', at)
    .where('e.enabled', '=', 1)
    .where((w) => w.or([w('d.lease_expires_at', 'is', null), w('d.lease_expires_at', '<=', at)]))
    .groupBy('d.endpoint_id')
    .orderBy('due')
    .limit(limit)
    .execute();
  return rows.map((r) => r.endpoint_id);
}

/** Claims up to `limit` due, free deliveries of one enabled endpoint, oldest due first, in one UPDATE … RETURNING. */
export async function claimDeliveries(
  db: Db,
  now: Date,
  options: { endpointId: string; owner: string; leaseMs: number; limit: number },
): Promise<DeliveryRow[]> {
  const at = now.toISOString();
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: options.owner, lease_expires_at: new Date(now.getTime() + options.leaseMs).toISOString() })
    .where(
      claimedIds(
        db,
        db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
          .select('d.id')
          .where('d.endpoint_id', '=', options.endpointId)
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', at)
          .where('e.enabled', '=', 1)
          .where((w) => w.or([w('d.lease_expires_at', 'is', null), w('d.lease_expires_at', '<=', at)]))
          .orderBy('d.next_attempt_at')
          .orderBy('d.created_at')
          .limit(options.limit),
        'd',
      ),
    )
    // Checked again on the row updated: PostgreSQL re-reads it after waiting for another claimer's lock.
    .where('status', '=', 'pending')
    .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', at)]))
    .returningAll()
    .execute();
}

async function release(db: Db, delivery: DeliveryRow, owner: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Frees every delivery `owner` holds (a process stopping with attempts in
 * flight), due again at once: a receiver may get an event twice, which the
 * event id lets it tell. Returns how many were handed back.
 */
export async function releaseDeliveries(db: Db, owner: string): Promise<number> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Frees the live claims on deliveries whose holder is certainly gone
 * (work/holder.ts): due again at once, as a stop's hand-back leaves them (a
 * receiver may get an event twice; the event id tells them apart). Returns
 * how many were taken over.
 */
export async function takeOverDeadDeliveries(db: Db, now: Date): Promise<number> {
  const at = now.toISOString();
  const held = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'lease_owner'])
    .where('status', '=', 'pending')
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '>', at)
    .execute();
  let taken = 0;
  for (const owner of new Set(held.map((d) => d.lease_owner!))) {
    if (holderState(owner) !== 'dead') continue;
    taken += Number((await db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_expires_at: null }).where('lease_owner', '=', owner).where('status', '=', 'pending').executeTakeFirst()).numUpdatedRows);
  }
  return taken;
}

/**
 * Records one attempt's result with the delivery's next state and the
 * endpoint's failure count, in one transaction: 2xx → delivered; otherwise
 * the next step of the ladder, or dead after the 7th failure; the 20th
 * failure in a row disables the endpoint.
 */
async function record(engine: Engine, delivery: DeliveryRow, owner: string, sent: SendResult): Promise<AttemptResult> {
  const now = engine.clock.now();
  const at = now.toISOString();
  const base = { deliveryId: delivery.id, endpointId: delivery.endpoint_id, eventId: delivery.event_id, statusCode: sent.statusCode, error: sent.error };
  return inTransaction(engine.db, async (tx) => {
    const current = await forUpdate(
      tx,
      tx.selectFrom('webhook_deliveries').select(['attempts', 'status']).where('id', '=', delivery.id).where('lease_owner', '=', owner),
    ).executeTakeFirst();
    if (!current || current.status !== 'pending') return { ...base, outcome: 'lease_lost', nextAttemptAt: null };
    const attempts = current.attempts + 1;
    const logged = {
      subject: 'delivery' as const, tenantId: delivery.tenant_id, id: delivery.id, from: 'pending', attempt: attempts,
      extra: { endpointId: delivery.endpoint_id, eventId: delivery.event_id, eventType: delivery.event_type },
    };
    const common = { attempts, last_status_code: sent.statusCode, lease_owner: null, lease_expires_at: null, updated_at: at };
    if (sent.delivered) {
      await tx
        .updateTable('webhook_deliveries')
        .set({ ...common, status: 'delivered', last_error: null, next_attempt_at: at })
        .where('id', '=', delivery.id)
        .execute();
      await tx
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: 0 })
        .where('id', '=', delivery.endpoint_id)
        .where('consecutive_failures', '!=', 0)
        .execute();
      logStateChange(engine.log, tx, { ...logged, to: 'delivered', extra: { ...logged.extra, statusCode: sent.statusCode } });
      return { ...base, outcome: 'delivered', nextAttemptAt: null };
    }
    const dead = attempts >= MAX_DELIVERY_ATTEMPTS;
    const next = dead ? at : nextRung(DELIVERY_LADDER_MS, attempts, now)!.toISOString();
    await tx
      .updateTable('webhook_deliveries')
      .set({ ...common, status: dead ? 'dead' : 'pending', last_error: sent.error, next_attempt_at: next })
      .where('id', '=', delivery.id)
      .execute();
    // Only an enabled endpoint counts failures: attempts that were in flight when it was disabled
    // end afterwards, and must not carry its count past the limit that disabled it.
    const endpoint = await tx
      .updateTable('webhook_endpoints')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) }))
      .where('id', '=', delivery.endpoint_id)
      .where('enabled', '=', 1)
      .returning(['consecutive_failures'])
      .executeTakeFirst();
    if (endpoint && endpoint.consecutive_failures >= DISABLE_AFTER_FAILURES) {
      await tx
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_reason: DISABLED_BY_FAILURES, disabled_at: at, updated_at: at })
        .where('id', '=', delivery.endpoint_id)
        .execute();
      afterCommit(tx, () =>
        engine.log.warn({ tenantId: delivery.tenant_id, endpointId: delivery.endpoint_id, failures: endpoint.consecutive_failures }, `webhook endpoint ${delivery.endpoint_id} disabled after ${endpoint.consecutive_failures} failures in a row`),
      );
    }
    const failure = { ...logged.extra, statusCode: sent.statusCode, err: sent.error };
    if (dead) logStateChange(engine.log, tx, { ...logged, to: 'dead', extra: failure });
    // Still pending: a failed attempt is not a change of state, but someone may want to see it.
    else afterCommit(tx, () => engine.log.warn({ tenantId: delivery.tenant_id, deliveryId: delivery.id, attempt: attempts, ...failure, nextAttemptAt: next }, `delivery ${delivery.id} attempt ${attempts} failed; next at ${next}`));
    return { ...base, outcome: dead ? 'dead' : 'retry', nextAttemptAt: dead ? null : next };
  });
}

/**
 * One attempt of a claimed delivery: reads the endpoint as it is now (a
 * deleted or paused one is not attempted), signs the event's envelope with
 * the endpoint's current secret and posts it through the SSRF guard.
 */
async function attempt(engine: Engine, delivery: DeliveryRow, owner: string, policy: SendPolicy): Promise<AttemptResult> {
  const skipped = (): AttemptResult => ({
    deliveryId: delivery.id, endpointId: delivery.endpoint_id, eventId: delivery.event_id,
    outcome: 'skipped', statusCode: null, error: null, nextAttemptAt: null,
  });
  const endpoint: EndpointRow | undefined = await engine.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst();
  if (!endpoint) return skipped(); // deleted: its deliveries went with it
  if (endpoint.enabled !== 1) {
    await release(engine.db, delivery, owner);
    return skipped();
  }
  const event = await engine.db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirstOrThrow();
  const body = JSON.stringify(toEnvelope(event));
  let sent: SendResult;
  try {
    const secret = await endpointSecret(engine, endpoint);
    sent = await postToReceiver(endpoint.url, body, signedHeaders(secret, event.id, engine.clock.now(), body), policy);
  } catch (e) {
    sent = { delivered: false, statusCode: null, error: e instanceof EngineError ? e.message : `could not send: ${(e as Error).message}` };
  }
  return record(engine, delivery, owner, sent);
}

/**
 * Webhook deliveries as a source of the work pump: a lane per endpoint with
 * due deliveries, at most PER_ENDPOINT_CONCURRENCY attempts of one endpoint
 * in flight, so a slow or failing receiver holds only its own lane.
 */
export function webhookSource(
  engine: Engine,
  options: Pick<DeliveryOptions, 'resolve' | 'timeoutMs' | 'perEndpoint' | 'leaseMs'> & { readonly owner: string; readonly onResult?: (result: AttemptResult) => void },
): WorkSource<DeliveryRow> {
  const leaseMs = options.leaseMs ?? DELIVERY_LEASE_MS;
  return {
    name: 'webhooks',
    perLane: options.perEndpoint ?? PER_ENDPOINT_CONCURRENCY,
    async dueLanes(now, limit) {
      return (await endpointsWithDueWork(engine.db, now, limit)).map((key) => ({ key, group: WEBHOOKS_GROUP }));
    },
    claim: (lane, now, limit) => claimDeliveries(engine.db, now, { endpointId: lane.key!, owner: options.owner, leaseMs, limit }),
    async perform(delivery) {
      // Settings are read for each attempt, so an operator's change applies to the next one.
      const policy = await sendPolicy(engine, { resolve: options.resolve, timeoutMs: options.timeoutMs });
      const result = await attempt(engine, delivery, options.owner, policy);
      options.onResult?.(result);
      return 'ok';
    },
  };
}

/**
 * Delivers what is due, through the work pump (one lane per endpoint), and
 * returns when nothing is due and nothing is in flight, or when the budget
 * is spent and the attempts in flight have ended.
 */
export async function deliverDueWebhooks(engine: Engine, options: DeliveryOptions = {}): Promise<AttemptResult[]> {
  const results: AttemptResult[] = [];
  const perEndpoint = options.perEndpoint ?? PER_ENDPOINT_CONCURRENCY;
  const bound = options.maxEndpoints === undefined ? WEBHOOKS_CONCURRENCY : options.maxEndpoints * perEndpoint;
  const budget = options.budgetMs === undefined ? undefined : AbortSignal.timeout(options.budgetMs);
  await pump({
    sources: [webhookSource(engine, { ...options, owner: options.owner ?? leaseOwnerName('webhooks'), onResult: (r) => results.push(r) })],
    now: () => engine.clock.now(),
    bounds: async () => () => bound,
    pollMs: options.pollMs ?? DEFAULT_POLL_MS,
    refreshMs: options.pollMs ?? DEFAULT_POLL_MS,
    signal: budget,
    untilIdle: true,
  });
  return results;
}

import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { sql, type ExpressionBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Kysely } from 'kysely';
import { afterCommit, type Db } from '../store/database.js';
import { dialectOf } from '../store/dialect.js';
import { claimedIds } from '../store/locking.js';
import type { Database } from '../store/schema.js';
import { ringWorkBell } from './bell.js';
import type { WorkTable } from '../store/schema.js';
import { prepared } from '../store/prepared.js';
import { newId } from '../ids.js';
import { parseJsonColumn } from '../json-column.js';
import { holderState, ownerName } from './holder.js';

/**
 * The durable work table. Anything that talks to the network (the tax
 * authority, webhook receivers) is a row here: written in the transaction of
 * the fact that caused it, claimed later with a lease, performed outside any
 * transaction, then completed or rescheduled. A lease that expires is claimed
 * again, so every handler must be idempotent.
 */

export interface WorkItem<P = unknown> {
  readonly id: string;
  readonly kind: string;
  readonly tenantId: string | null;
  readonly ref: string | null;
  readonly lane: string | null;
  readonly payload: P;
  readonly dueAt: string;
  /** Claims so far, this one included. */
  readonly attempts: number;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: string | null;
  readonly lastError: string | null;
}

export interface EnqueueInput {
  readonly kind: string;
  readonly tenantId?: string | null;
  /** What the work is about; one pending item per (kind, ref). */
  readonly ref?: string | null;
  /** Its lane (work/lanes.ts); absent, the default one. */
  readonly lane?: string | null;
  readonly payload?: unknown;
  readonly dueAt?: Date;
}

/** The PostgreSQL channel on which commits of new work wake the other engine processes. */
export const WORK_CHANNEL = 'ecf_work';

/**
 * Tells the pumps that new work is there once `db`'s transaction commits:
 * this thread's at once, and on PostgreSQL every process listening on
 * WORK_CHANNEL (a NOTIFY is delivered at commit, and never on rollback).
 */
export async function announceWork(db: Kysely<Database>): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`select pg_notify(${WORK_CHANNEL}, '')`.execute(db);
  afterCommit(db, ringWorkBell);
}

/** A name for this process's claims, naming the process (holder.ts); distinct per process and per call site. */
export const leaseOwnerName = (label = 'worker'): string => ownerName(label, randomBytes(4).toString('hex'));

/** `work.payload`: each kind's own shape, checked by its handler; here only that it is JSON, so a damaged row is named. */
const WorkPayload = Type.Unknown();

function toItem(row: Selectable<WorkTable>): WorkItem {
  return {
    id: row.id,
    kind: row.kind,
    tenantId: row.tenant_id,
    ref: row.ref,
    lane: row.lane,
    payload: parseJsonColumn(WorkPayload, row.payload, `work.payload of work item ${row.id}`),
    dueAt: row.due_at,
    attempts: row.attempts,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    lastError: row.last_error,
  };
}

/**
 * Adds work (pass the transaction of the fact that causes it). When an item
 * with the same kind and ref is already pending, nothing is added and its id
 * is returned.
 */
const insertWork = prepared(
  (db, p: { id: string; kind: string; tenantId: string | null; ref: string | null; lane: string | null; payload: string; dueAt: string; stamp: string }) =>
    db
      .insertInto('work')
      .values({ id: p.id, kind: p.kind, tenant_id: p.tenantId, ref: p.ref, lane: p.lane, payload: p.payload, due_at: p.dueAt, attempts: 0, created_at: p.stamp, updated_at: p.stamp })
      .onConflict((oc) => oc.columns(['kind', 'ref']).doNothing())
      .returning('id'),
);

export async function enqueue(db: Db, now: Date, input: EnqueueInput): Promise<string> {
  const id = newId();
  const stamp = now.toISOString();
  const [inserted] = await insertWork(db, {
    id,
    kind: input.kind,
    tenantId: input.tenantId ?? null,
    ref: input.ref ?? null,
    lane: input.lane ?? null,
    payload: JSON.stringify(input.payload ?? null),
    dueAt: (input.dueAt ?? now).toISOString(),
    stamp,
  });
  if (inserted) {
    if (!input.dueAt || input.dueAt.getTime() <= now.getTime()) await announceWork(db);
    return inserted.id;
  }
  const existing = await db
    .selectFrom('work')
    .select('id')
    .where('kind', '=', input.kind)
    .where('ref', '=', input.ref ?? null)
    .executeTakeFirstOrThrow();
  return existing.id;
}

const leaseFree = (at: string) => (w: ExpressionBuilder<Database, 'work'>) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<=', at)]);

export interface ClaimOptions {
  readonly kinds: readonly string[];
  readonly owner: string;
  readonly leaseMs: number;
  readonly limit: number;
}

/**
 * Claims up to `limit` due items whose lease is free or expired, oldest due
 * first, in one UPDATE ... RETURNING: two claimers can never get the same row.
 * On PostgreSQL the chosen rows are locked as they are chosen and rows
 * another claimer holds are skipped; the lease test is repeated on the row
 * being updated, which PostgreSQL re-reads after waiting for a lock.
 */
export function claim(db: Db, now: Date, options: ClaimOptions): Promise<WorkItem[]> {
  return claimDue(db, now, options, (q) => q);
}

/** The claiming UPDATE of claim and claimLane; `narrow` adds conditions to the pick of due rows. */
async function claimDue(
  db: Db,
  now: Date,
  options: ClaimOptions,
  narrow: (pick: SelectQueryBuilder<Database, 'work', { id: string }>) => SelectQueryBuilder<Database, 'work', { id: string }>,
): Promise<WorkItem[]> {
  if (options.kinds.length === 0 || options.limit <= 0) return [];
  const at = now.toISOString();
  const pick = db.selectFrom('work').select('id').where('kind', 'in', options.kinds).where('due_at', '<=', at).where(leaseFree(at));
  const rows = await db
    .updateTable('work')
    .set({
      lease_owner: options.owner,
      lease_expires_at: new Date(now.getTime() + options.leaseMs).toISOString(),
      attempts: sql<number>`attempts + 1`,
      updated_at: at,
    })
    .where(claimedIds(db, narrow(pick).orderBy('due_at').limit(options.limit)))
    .where(leaseFree(at))
    .returningAll()
    .execute();
  return rows.map(toItem).sort((a, b) => a.dueAt.localeCompare(b.dueAt));
}

/** Claims the pending item of one (kind, ref) now, due or not, if no live lease holds it. */
export async function claimRef(db: Db, now: Date, kind: string, ref: string, owner: string, leaseMs: number): Promise<WorkItem | null> {
  const at = now.toISOString();
  const row = await db
    .updateTable('work')
    .set({ lease_owner: owner, lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(), attempts: sql<number>`attempts + 1`, updated_at: at })
    .where('kind', '=', kind)
    .where('ref', '=', ref)
    .where(leaseFree(at))
    .returningAll()
    .executeTakeFirst();
  return row ? toItem(row) : null;
}

/**
 * Finishes a claimed item. False when the lease was lost: it expired and the
 * item was claimed again, by another process or by this one (every claim
 * counts in `attempts`, so a claim is its owner and its count).
 */
export async function complete(db: Db, item: WorkItem, owner: string): Promise<boolean> {
  const r = await db
    .deleteFrom('work')
    .where('id', '=', item.id)
    .where('lease_owner', '=', owner)
    .where('attempts', '=', item.attempts)
    .executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** Releases a claimed item to run again at `dueAt`. False when the lease was lost. */
export async function reschedule(
  db: Db,
  now: Date,
  item: WorkItem,
  owner: string,
  next: { dueAt: Date; error?: string | null; payload?: unknown; lane?: string | null },
): Promise<boolean> {
  const r = await db
    .updateTable('work')
    .set({
      due_at: next.dueAt.toISOString(),
      lease_owner: null,
      lease_expires_at: null,
      last_error: next.error ?? null,
      updated_at: now.toISOString(),
      ...(next.payload === undefined ? {} : { payload: JSON.stringify(next.payload) }),
      ...(next.lane === undefined ? {} : { lane: next.lane }),
    })
    .where('id', '=', item.id)
    .where('lease_owner', '=', owner)
    .where('attempts', '=', item.attempts)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Extends a claim's lease to `leaseMs` from now, as long as it is still this
 * claim's; false when it was lost (the caller must stop: someone else has it).
 * Called right before a call whose answer may take long, so the item is not
 * claimed again while that call is in flight.
 */
export async function renewLease(db: Db, now: Date, item: WorkItem, owner: string, leaseMs: number, payload?: unknown): Promise<boolean> {
  const r = await db
    .updateTable('work')
    .set({
      lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(),
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    })
    .where('id', '=', item.id)
    .where('lease_owner', '=', owner)
    .where('attempts', '=', item.attempts)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Hands back every item `owner` holds (a process stopping with calls still in
 * flight): the leases are freed and the items fall due at `dueAt`, their
 * payloads kept, so a send marked unclear is asked about before it is sent
 * again. `dueAt` should leave the authority time to finish what the abandoned
 * call started. Whatever the owner records afterwards loses its claim and is
 * rolled back. Returns how many items were handed back.
 */
export async function releaseLeases(db: Db, now: Date, owner: string, dueAt: Date): Promise<number> {
  const r = await db
    .updateTable('work')
    .set({ lease_owner: null, lease_expires_at: null, due_at: dueAt.toISOString(), updated_at: now.toISOString() })
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Takes over the live claims of holders that are certainly gone (a process of
 * this machine, or of this node's pid space on PostgreSQL, that was killed:
 * holder.ts), so their work runs again now instead of when the lease runs
 * out. The lease is freed and the payload kept: a send marked unclear is
 * asked about before it is sent again. `dueAt` may set when an item falls due
 * (null: it stays due as it was). Claims of holders that run, or that cannot
 * be judged from here, are left to their lease. Returns the items taken over.
 */
export async function takeOverDeadClaims(db: Db, now: Date, dueAt: (item: WorkItem) => Date | null): Promise<WorkItem[]> {
  const at = now.toISOString();
  const held = await db.selectFrom('work').selectAll().where('lease_owner', 'is not', null).where('lease_expires_at', '>', at).execute();
  const states = new Map<string, ReturnType<typeof holderState>>();
  const taken: WorkItem[] = [];
  for (const row of held) {
    const owner = row.lease_owner!;
    if (!states.has(owner)) states.set(owner, holderState(owner));
    if (states.get(owner) !== 'dead') continue;
    const item = toItem(row);
    const due = dueAt(item);
    // Only this claim: if it changed hands meanwhile (another process starting took it over first), nothing happens.
    const r = await db
      .updateTable('work')
      .set({ lease_owner: null, lease_expires_at: null, updated_at: at, ...(due && { due_at: due.toISOString() }) })
      .where('id', '=', row.id)
      .where('lease_owner', '=', owner)
      .where('attempts', '=', row.attempts)
      .executeTakeFirst();
    if (r.numUpdatedRows > 0n) taken.push(item);
  }
  return taken;
}

/** Thrown inside a recording transaction whose claim was lost, to roll back what it wrote. */
export class LeaseLost extends Error {
  constructor(readonly itemId: string) {
    super(`the lease of work item ${itemId} was lost`);
  }
}

/** As complete, in a recording transaction: throws LeaseLost (rolling the transaction back) when the claim was lost. */
export async function completeOrRollBack(db: Db, item: WorkItem, owner: string): Promise<void> {
  if (!(await complete(db, item, owner))) throw new LeaseLost(item.id);
}

/** As reschedule, in a recording transaction: throws LeaseLost when the claim was lost. */
export async function rescheduleOrRollBack(
  db: Db,
  now: Date,
  item: WorkItem,
  owner: string,
  next: Parameters<typeof reschedule>[4],
): Promise<void> {
  if (!(await reschedule(db, now, item, owner, next))) throw new LeaseLost(item.id);
}

/**
 * The lanes that have work of these kinds due now and free, the most overdue
 * first. A GROUP BY over the lane-and-due index: the rows themselves are not
 * read, so a backlog of a hundred thousand costs one index scan, not memory.
 */
export async function dueLanes(db: Db, now: Date, kinds: readonly string[], limit: number): Promise<(string | null)[]> {
  if (kinds.length === 0 || limit <= 0) return [];
  const at = now.toISOString();
  const rows = await db
    .selectFrom('work')
    .select('lane')
    .select((eb) => eb.fn.min('due_at').as('due'))
    .where('kind', 'in', kinds)
    .where('due_at', '<=', at)
    .where(leaseFree(at))
    .groupBy('lane')
    .orderBy('due')
    .limit(limit)
    .execute();
  return rows.map((r) => r.lane);
}

/**
 * As claim, for the items of one lane only (null: those without a lane),
 * leaving out `exclude`: the items this process is performing now, whose
 * lease may have run out while their call is still in flight.
 */
export function claimLane(db: Db, now: Date, lane: string | null, options: ClaimOptions & { readonly exclude?: readonly string[] }): Promise<WorkItem[]> {
  return claimDue(db, now, options, (pick) =>
    pick.where('lane', lane === null ? 'is' : '=', lane).$if((options.exclude?.length ?? 0) > 0, (q) => q.where('id', 'not in', options.exclude!)),
  );
}

export async function pendingWork(db: Db, kind?: string): Promise<WorkItem[]> {
  let q = db.selectFrom('work').selectAll().orderBy('due_at');
  if (kind) q = q.where('kind', '=', kind);
  return (await q.execute()).map(toItem);
}

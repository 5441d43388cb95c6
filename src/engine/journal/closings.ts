import { sign } from 'node:crypto';
import { sql } from 'kysely';
import { credentialsIn, type SigningCredentials } from '../certificates/certificates.js';
import { dominicanDate, dominicanDayBounds, dominicanMonth, dominicanMonthBounds } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { Dec } from '../money.js';
import { inTransaction, type Db } from '../store/database.js';
import { appendJournal, lockedHead } from './append.js';
import { closingDataOf, closingSignedText, closingText, type ClosingData, type TypeTotal } from './closing-data.js';
import { JOURNAL_KINDS } from './kinds.js';

/**
 * A period is closed this long after it ends: an issue whose transaction
 * began before midnight and commits after it (its e-CF dated in the ended
 * day) has committed by then, so the closing counts it.
 */
export const CLOSING_GRACE_MS = 60_000;
/** Closings one tenant gets per run at most: a run after the appliance was off for a year catches up two months, the next runs the rest. */
export const CLOSINGS_PER_RUN = 62;

const DAY = JOURNAL_KINDS['closing.day'];
const MONTH = JOURNAL_KINDS['closing.month'];

export interface ClosingWritten {
  readonly tenantId: string;
  readonly kind: 'day' | 'month';
  readonly period: string;
  readonly seq: number;
  readonly signed: boolean;
}

export interface ClosingsReport {
  readonly written: ClosingWritten[];
  /** Some tenant has more ended periods than one run writes: run again. */
  readonly more: boolean;
  /** Tenants whose closings could not be written this run (their secret store unreadable...): the next run tries again. */
  readonly failed: { readonly tenantId: string; readonly error: string }[];
}

/**
 * Writes the closings of every period that has ended, per tenant, oldest
 * first, one transaction each: the day closings from the Dominican day of
 * the tenant's first journal entry on, and each month's closing right after
 * the closing of its last day. A day without activity gets its closing too:
 * the chain shows the day was closed with nothing in it.
 */
export async function writeDueClosings(engine: Engine, options: { tenantId?: string; limit?: number; signal?: AbortSignal } = {}): Promise<ClosingsReport> {
  const limit = options.limit ?? CLOSINGS_PER_RUN;
  let q = engine.db.selectFrom('tenants').innerJoin('journal_heads as h', 'h.tenant_key', 'tenants.store_key').select(['tenants.id', 'tenants.store_key']).where('h.seq', '>', 0);
  if (options.tenantId) q = q.where('tenants.id', '=', options.tenantId);
  const tenants = await q.orderBy('tenants.store_key').execute();
  const written: ClosingWritten[] = [];
  const failed: { tenantId: string; error: string }[] = [];
  let more = false;
  for (const t of tenants) {
    try {
      const credentials = await activeCredentials(engine, t.id);
      let n = 0;
      for (; n < limit && !options.signal?.aborted; n++) {
        const closing = await closeNext(engine, t.id, Number(t.store_key), credentials);
        if (!closing) break;
        // Raced: another process wrote that closing; the next turn plans from it.
        if (closing !== 'raced') written.push(closing);
      }
      if (n === limit) more = true;
    } catch (e) {
      // One tenant's trouble does not hold up the others' closings.
      engine.log.warn({ tenantId: t.id, err: e }, 'closings: could not write this tenant\'s closings; the next run tries again');
      failed.push({ tenantId: t.id, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return { written, more, failed };
}

/** The tenant's signing key now, or null (the closings are written unsigned and say so). */
async function activeCredentials(engine: Engine, tenantId: string): Promise<SigningCredentials | null> {
  try {
    return await credentialsIn(engine, engine.db, tenantId);
  } catch (e) {
    if (e instanceof EngineError && e.code === 'Certificate.NoneActive') return null;
    // A secret store that cannot be read now: unsigned would be for good, so wait for the next run.
    throw e;
  }
}

interface ClosingEntry {
  readonly seq: number;
  readonly data: ClosingData;
}

type Plan = Omit<ClosingData, 'v' | 'lockedHead' | 'certificate' | 'signature'> & {
  /** The head's seq when the plan was read: a closing after it means another process got there first. */
  readonly readUpTo: number;
};

/**
 * What the next closing is, read outside any transaction: finding the last
 * closing may walk back through a day of entries (all of them before the
 * first closing), and the first perpetual totals sum every e-CF, which must
 * not hold the write lock. The period has ended (and its grace passed), so
 * no e-CF still comes into its totals.
 */
async function planNext(db: Db, tenantKey: number, now: Date): Promise<Plan | null> {
  const head = await db.selectFrom('journal_heads').select('seq').where('tenant_key', '=', tenantKey).executeTakeFirst();
  const readUpTo = head ? Number(head.seq) : 0;
  if (readUpTo === 0) return null;
  const last = await closingAt(db, tenantKey, 'latest', readUpTo);
  const lastDay = last?.data.kind === 'day' ? last : last?.data.previous.day ? await closingAt(db, tenantKey, last.data.previous.day) : null;
  const lastMonth = last?.data.kind === 'month' ? last : last?.data.previous.month ? await closingAt(db, tenantKey, last.data.previous.month) : null;

  let kind: 'day' | 'month';
  let period: string;
  let from: number;
  let to: number;
  const monthOfLastDay = lastDay ? lastDay.data.period.slice(0, 7) : null;
  if (lastDay && monthOfLastDay! > (lastMonth?.data.period ?? '') && dominicanMonth(new Date(lastDay.data.to)) !== monthOfLastDay) {
    kind = 'month';
    period = monthOfLastDay!;
    const bounds = dominicanMonthBounds(period);
    [from, to] = [bounds.start.getTime(), bounds.end.getTime()];
  } else {
    kind = 'day';
    period = lastDay ? dominicanDate(new Date(lastDay.data.to)) : dominicanDate(new Date(await firstEntryAt(db, tenantKey)));
    const bounds = dominicanDayBounds(period);
    [from, to] = [Date.parse(bounds.start), Date.parse(bounds.end)];
  }
  if (to + CLOSING_GRACE_MS > now.getTime()) return null;

  const previous = kind === 'day' ? lastDay : lastMonth;
  const issued = await issuedTotals(db, tenantKey, from, to);
  const perpetual = previous ? addTotals(previous.data.perpetual, issued) : await issuedTotals(db, tenantKey, null, to);
  return { kind, period, from, to, issued, perpetual, previous: { day: lastDay?.seq ?? null, month: lastMonth?.seq ?? null }, readUpTo };
}

async function closeNext(engine: Engine, tenantId: string, tenantKey: number, credentials: SigningCredentials | null): Promise<ClosingWritten | 'raced' | null> {
  const now = engine.clock.now();
  const plan = await planNext(engine.db, tenantKey, now);
  if (!plan) return null;
  return inTransaction(engine.db, async (tx) => {
    // Taken first: no entry comes between the head read here and the closing.
    const head = await lockedHead(tx, tenantKey);
    const newer = await tx.selectFrom('journal').select('seq').where('tenant_key', '=', tenantKey).where('seq', '>', plan.readUpTo).where('kind', 'in', [DAY, MONTH]).limit(1).executeTakeFirst();
    if (newer) return 'raced';
    const { readUpTo: _, ...period } = plan;
    const body: ClosingData = {
      v: 1,
      ...period,
      lockedHead: { seq: head.seq, hash: head.hash.toString('hex') },
      certificate: credentials ? credentials.certificate.raw.toString('base64') : null,
      signature: null,
    };
    const data: ClosingData = credentials ? { ...body, signature: sign('sha256', Buffer.from(closingSignedText(body), 'utf8'), credentials.privateKey).toString('base64') } : body;
    appendJournal(tx, now, { tenantKey, kind: plan.kind === 'day' ? 'closing.day' : 'closing.month', data: closingText(data) });
    return { tenantId, kind: plan.kind, period: plan.period, seq: head.seq + 1, signed: credentials !== null };
  });
}

async function closingAt(db: Db, tenantKey: number, at: number | 'latest', upTo?: number): Promise<ClosingEntry | null> {
  let q = db.selectFrom('journal').select(['seq', 'data']).where('tenant_key', '=', tenantKey).where('kind', 'in', [DAY, MONTH]);
  q = at === 'latest' ? q.where('seq', '<=', upTo!).orderBy('seq', 'desc').limit(1) : q.where('seq', '=', at);
  const row = await q.executeTakeFirst();
  return row ? { seq: Number(row.seq), data: closingDataOf(row.data, Number(row.seq)) } : null;
}

async function firstEntryAt(db: Db, tenantKey: number): Promise<number> {
  const row = await db.selectFrom('journal').select('at').where('tenant_key', '=', tenantKey).orderBy('seq').limit(1).executeTakeFirstOrThrow();
  return Number(row.at);
}

/** Counts and totals of the e-CF issued in [from, to) (from null: since the first), summed in integer cents by the store. */
async function issuedTotals(db: Db, tenantKey: number, from: number | null, to: number): Promise<TypeTotal[]> {
  let q = db
    .selectFrom('ecf')
    .select(['environment', 'type', sql<string | number>`count(*)`.as('n'), sql<string | number>`sum(monto_total_cents)`.as('cents')])
    .where('tenant_key', '=', tenantKey)
    .where('issued_at', '<', to);
  if (from !== null) q = q.where('issued_at', '>=', from);
  const rows = await q.groupBy(['environment', 'type']).execute();
  return sortTotals(rows.map((r) => ({ environment: r.environment, type: Number(r.type), count: Number(r.n), total: new Dec(String(r.cents)).div(100).toFixed(2) })));
}

function addTotals(a: readonly TypeTotal[], b: readonly TypeTotal[]): TypeTotal[] {
  const sum = new Map<string, TypeTotal>();
  for (const t of [...a, ...b]) {
    const key = `${t.environment}|${t.type}`;
    const had = sum.get(key);
    sum.set(key, had ? { ...t, count: had.count + t.count, total: new Dec(had.total).plus(t.total).toFixed(2) } : t);
  }
  return sortTotals([...sum.values()]);
}

const sortTotals = (totals: TypeTotal[]): TypeTotal[] =>
  totals.sort((x, y) => (x.environment < y.environment ? -1 : x.environment > y.environment ? 1 : x.type - y.type));

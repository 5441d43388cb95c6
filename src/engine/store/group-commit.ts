import { sql } from 'kysely';
import type { Db, Tx } from './database.js';

/**
 * Group commit. A commit costs more than storing one e-CF (the WAL append of
 * every page the inserts touched, the lock, the transaction's own
 * statements), and concurrent e-CF touch many of the same index pages. So
 * units of work that arrive while a transaction is running wait for it and
 * then share the next one, each inside a savepoint of its own: a unit that
 * throws is rolled back alone and the others still commit. Every unit stays
 * whole (all of its writes commit or none do); no caller hears of success
 * before the shared commit has returned.
 */
const MAX_UNITS = 64;

interface Unit {
  readonly work: (tx: Tx) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Committer {
  waiting: Unit[];
  running: boolean;
}

const committers = new WeakMap<Db, Committer>();

/** Runs `work` in a transaction shared with the units queued beside it; resolves after the commit. */
export function inGroupCommit<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = { waiting: [], running: false }));
  const c = committer;
  return new Promise<T>((resolve, reject) => {
    c.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
    // setImmediate lets the callers of this turn of the event loop join the first transaction too.
    if (!c.running) {
      c.running = true;
      setImmediate(() => void drain(db, c));
    }
  });
}

async function drain(db: Db, c: Committer): Promise<void> {
  while (c.waiting.length > 0) {
    const units = c.waiting.splice(0, MAX_UNITS);
    await commitTogether(db, units);
  }
  c.running = false;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

async function commitTogether(db: Db, units: readonly Unit[]): Promise<void> {
  let outcomes: Outcome[];
  try {
    outcomes = await db.transaction().execute(async (tx) => {
      const done: Outcome[] = [];
      for (const unit of units) {
        await sql`savepoint unit`.execute(tx);
        try {
          done.push({ ok: true, value: await unit.work(tx) });
        } catch (error) {
          // If even this fails the transaction is unusable: the catch below fails every unit.
          await sql`rollback to savepoint unit`.execute(tx);
          done.push({ ok: false, error });
        }
        await sql`release savepoint unit`.execute(tx);
      }
      return done;
    });
  } catch (error) {
    for (const unit of units) unit.reject(error);
    return;
  }
  units.forEach((unit, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) unit.resolve(outcome.value);
    else unit.reject(outcome.error);
  });
}

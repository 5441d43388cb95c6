import { CompiledQuery } from 'kysely';
import { deferredMark, executeCompiled, inTransaction, rollBackDeferred, type Db, type Tx } from './database.js';

/**
 * Group commit. A commit costs more than storing one e-CF (the WAL append of
 * every page the inserts touched, the lock, the transaction's own
 * statements), and concurrent e-CF touch many of the same index pages. So
 * units of work that arrive while a transaction is running wait for it and
 * then share the next one. Every unit stays whole (all of its writes commit
 * or none do); no caller hears of success before the shared commit has
 * returned.
 *
 * A unit runs in two steps so that slow work off the event loop overlaps:
 * every unit's `stage` runs first, each in a savepoint of its own (a unit
 * whose stage throws is rolled back alone); a stage may start work on other
 * threads (an RSA signature) without waiting for it. Then every unit's
 * `complete` writes its results, in the same order. If any `complete`
 * throws, the shared transaction is rolled back and the units run again
 * one by one in a new one, stage then complete in one savepoint each, so
 * that a failure after a unit took something (an e-NCF) gives it back and
 * touches no other unit.
 */
const MAX_UNITS = 64;

export interface TwoStepUnit<S, T> {
  /**
   * Reads and reservations. `earlier` holds what the units staged before
   * this one in the same transaction returned: their writes from `complete`
   * are not in the store yet. Runs again, with `earlier` empty, if the units
   * fall back to one by one; any promise it started and left must not
   * reject unhandled.
   */
  readonly stage: (tx: Tx, earlier: readonly S[]) => Promise<S>;
  readonly complete: (tx: Tx, staged: S) => Promise<T>;
}

interface Unit {
  readonly steps: TwoStepUnit<unknown, unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Committer {
  waiting: Unit[];
  running: boolean;
}

const committers = new WeakMap<Db, Committer>();

/**
 * Runs `work` in a transaction shared with the units queued beside it;
 * resolves after the commit. `work` runs again, after its first run was
 * rolled back, if a unit beside it fails to complete (see TwoStepUnit).
 */
export function inGroupCommit<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return inGroupCommitTwoStep(db, { stage: work, complete: async (_tx, value: T) => value });
}

/** As inGroupCommit, for a unit in two steps (see TwoStepUnit). */
export function inGroupCommitTwoStep<S, T>(db: Db, steps: TwoStepUnit<S, T>): Promise<T> {
  let committer = committers.get(db);
  if (!committer) committers.set(db, (committer = { waiting: [], running: false }));
  const c = committer;
  return new Promise<T>((resolve, reject) => {
    c.waiting.push({ steps: steps as TwoStepUnit<unknown, unknown>, resolve: resolve as (value: unknown) => void, reject });
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

// Compiled once: these run for every unit.
const statement = (text: string) => {
  const query = CompiledQuery.raw(text);
  return (tx: Tx) => executeCompiled(tx, query);
};
const savepointUnit = statement('savepoint unit');
const releaseUnit = statement('release savepoint unit');
const rollbackUnit = statement('rollback to savepoint unit');

/** Thrown out of the shared transaction to roll it back when a unit's complete fails. */
class CompleteFailed extends Error {}

// The fallback rolls back the whole transaction rather than to a savepoint around the units:
// such a savepoint made SQLite copy every page the transaction changed to its statement
// journal, and walk that journal at the end of every statement that keeps one of its own.
async function commitTogether(db: Db, units: readonly Unit[]): Promise<void> {
  let outcomes: Outcome[];
  try {
    try {
      outcomes = await inTransaction(db, async (tx) => {
        const together = await stagedTogether(tx, units);
        if (!together) throw new CompleteFailed();
        return together;
      });
    } catch (error) {
      if (!(error instanceof CompleteFailed)) throw error;
      outcomes = await inTransaction(db, (tx) => oneByOne(tx, units));
    }
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

/** Every stage, then every complete; undefined when a complete threw (the caller rolls back). */
async function stagedTogether(tx: Tx, units: readonly Unit[]): Promise<Outcome[] | undefined> {
  const staged: Outcome[] = [];
  const earlier: unknown[] = [];
  for (const unit of units) {
    const outcome = await inSavepoint(tx, () => unit.steps.stage(tx, earlier));
    if (outcome.ok) earlier.push(outcome.value);
    staged.push(outcome);
  }
  const done: Outcome[] = [];
  for (const [i, unit] of units.entries()) {
    const s = staged[i]!;
    if (!s.ok) {
      done.push(s);
      continue;
    }
    try {
      done.push({ ok: true, value: await unit.steps.complete(tx, s.value) });
    } catch {
      return undefined;
    }
  }
  return done;
}

async function oneByOne(tx: Tx, units: readonly Unit[]): Promise<Outcome[]> {
  const done: Outcome[] = [];
  for (const unit of units) done.push(await inSavepoint(tx, async () => unit.steps.complete(tx, await unit.steps.stage(tx, []))));
  return done;
}

async function inSavepoint(tx: Tx, work: () => Promise<unknown>): Promise<Outcome> {
  await savepointUnit(tx);
  const mark = deferredMark(tx);
  let outcome: Outcome;
  try {
    outcome = { ok: true, value: await work() };
  } catch (error) {
    rollBackDeferred(tx, mark);
    // If even this fails the transaction is unusable: the caller fails every unit.
    await rollbackUnit(tx);
    outcome = { ok: false, error };
  }
  await releaseUnit(tx);
  return outcome;
}

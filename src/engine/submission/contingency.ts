import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine.js';
import { emit } from '../events/outbox.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction, type Db, type Tx } from '../store/database.js';
import { prepared } from '../store/prepared.js';

/**
 * Contingency: the authority cannot be reached. e-CF keep being issued and
 * signed (marked signedDuringContingency) and their submission waits in the
 * work table. Entered automatically after `contingency.after_minutes` of
 * transport failures with no success, or by the operator; left automatically
 * at the first success (when it was automatic) or by the operator.
 */
export interface ContingencyState {
  readonly active: boolean;
  readonly source: 'automatic' | 'manual' | null;
  readonly changedAt: string | null;
  /** First transport failure since the last success. */
  readonly failingSince: string | null;
}

const KEY = 'contingency';
const NORMAL: ContingencyState = { active: false, source: null, changedAt: null, failingSince: null };

// Read by every request that issues: answered from memory until the store changes.
const stateRow = prepared((db, p: { key: string }) => db.selectFrom('platform_state').select('value').where('key', '=', p.key), { reuseUntilCommit: true });

export async function contingencyState(db: Db): Promise<ContingencyState> {
  const [row] = await stateRow(db, { key: KEY });
  return row ? (JSON.parse(row.value) as ContingencyState) : NORMAL;
}

async function save(tx: Tx, now: Date, state: ContingencyState): Promise<void> {
  const value = JSON.stringify(state);
  await tx
    .insertInto('platform_state')
    .values({ key: KEY, value, updated_at: now.toISOString() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now.toISOString() }))
    .execute();
}

/** contingency.* goes to every tenant alike: it is the platform's state, not one tenant's. */
async function announce(tx: Tx, now: Date, active: boolean): Promise<void> {
  const oldest = await tx.selectFrom('ecf').select('issued_at').where('status', '=', 'signed').orderBy('issued_at').executeTakeFirst();
  const oldestPendingMinutes = oldest ? Math.floor((now.getTime() - Date.parse(oldest.issued_at)) / 60_000) : 0;
  const object = { status: active ? 'active' : 'inactive', changedAt: toDominicanIso(now), oldestPendingMinutes };
  for (const { id } of await tx.selectFrom('tenants').select('id').execute()) {
    await emit(tx, now, id, active ? 'contingency.activated' : 'contingency.deactivated', object);
  }
}

async function change(engine: Engine, update: (s: ContingencyState, now: Date) => ContingencyState | null): Promise<ContingencyState> {
  const now = engine.clock.now();
  return inTransaction(engine.db, async (tx) => {
    const current = await contingencyState(tx);
    const next = update(current, now);
    if (!next) return current;
    await save(tx, now, next);
    if (next.active !== current.active) await announce(tx, now, next.active);
    return next;
  });
}

/** The operator's switch: `ecf contingency on|off`. */
export function setContingency(engine: Engine, active: boolean): Promise<ContingencyState> {
  return change(engine, (s, now) =>
    s.active === active && s.source === 'manual' ? null : { active, source: active ? 'manual' : null, changedAt: now.toISOString(), failingSince: s.failingSince },
  );
}

/** A submission could not reach the authority. */
export async function noteTransportFailure(engine: Engine): Promise<ContingencyState> {
  const afterMinutes = await getSetting<number>(engine, 'contingency.after_minutes');
  return change(engine, (s, now) => {
    const failingSince = s.failingSince ?? now.toISOString();
    const due = now.getTime() - Date.parse(failingSince) >= afterMinutes * 60_000;
    if (!s.active && due) return { active: true, source: 'automatic', changedAt: now.toISOString(), failingSince };
    return s.failingSince ? null : { ...s, failingSince };
  });
}

/** A submission reached the authority: an automatic contingency ends. */
export async function noteTransportSuccess(engine: Engine): Promise<ContingencyState> {
  const current = await contingencyState(engine.db);
  if (!current.failingSince && !(current.active && current.source === 'automatic')) return current;
  return change(engine, (s, now) => {
    if (s.active && s.source === 'automatic') return { active: false, source: null, changedAt: now.toISOString(), failingSince: null };
    return s.failingSince ? { ...s, failingSince: null } : null;
  });
}

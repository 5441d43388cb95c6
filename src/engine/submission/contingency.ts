import { Type, type Static } from '@sinclair/typebox';
import { fromRowInstant, toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { emit } from '../events/outbox.js';
import { parseJsonColumn } from '../json-column.js';
import { getSetting } from '../settings/settings.js';
import { afterCommit, inTransaction, type Db, type Tx } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { Environment } from '../schema-types.js';
import { currentWindow, readStatusSnapshot } from '../taxauth/authority-status.js';

/**
 * Contingency: the authority cannot be reached. e-CF keep being issued and
 * signed (marked signedDuringContingency) and their submission waits in the
 * work table. Entered automatically after `contingency.after_minutes` of
 * transport failures with no success, or by the operator; left automatically
 * at the first success (when it was automatic) or by the operator.
 *
 * With the status services configured (taxauth/authority-status.ts), an
 * announced maintenance window of an environment that counts (production
 * when any tenant works in it, otherwise every environment in use) starts
 * contingency when it begins, or at the first failure inside it, instead
 * of after the minutes of failures (`source` window); it ends once the
 * window is over and the authority answers: verificarestado says
 * Disponible after the window's end, or a submission gets through.
 */
const ContingencyValue = Type.Object({
  active: Type.Boolean(),
  source: Type.Union([Type.Literal('automatic'), Type.Literal('manual'), Type.Literal('window'), Type.Null()]),
  changedAt: Type.Union([Type.String(), Type.Null()]),
  /** First transport failure since the last success. */
  failingSince: Type.Union([Type.String(), Type.Null()]),
  /** With source window: when the announced window ends (UTC ISO). */
  windowEndsAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
/** `platform_state.value` of the key `contingency`, read through ContingencyValue. */
export type ContingencyState = Readonly<Static<typeof ContingencyValue>>;

const KEY = 'contingency';
const NORMAL: ContingencyState = { active: false, source: null, changedAt: null, failingSince: null };

// Read by every request that issues: answered from memory until the store changes.
const stateRow = prepared((db, p: { key: string }) => db.selectFrom('platform_state').select('value').where('key', '=', p.key), { reuseUntilCommit: true });

export async function contingencyState(db: Db): Promise<ContingencyState> {
  const [row] = await stateRow(db, { key: KEY });
  return row ? parseJsonColumn(ContingencyValue, row.value, `platform_state.value of ${KEY}`) : NORMAL;
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
  const oldestPendingMinutes = oldest ? Math.floor((now.getTime() - Date.parse(fromRowInstant(oldest.issued_at))) / 60_000) : 0;
  const object = { status: active ? 'active' : 'inactive', changedAt: toDominicanIso(now), oldestPendingMinutes };
  for (const { id } of await tx.selectFrom('tenants').select('id').execute()) {
    await emit(tx, now, id, active ? 'contingency.activated' : 'contingency.deactivated', object);
  }
}

async function change(engine: Engine, update: (s: ContingencyState, now: Date) => ContingencyState | null, by: 'operator' | 'authority' = 'authority'): Promise<ContingencyState> {
  const now = engine.clock.now();
  return inTransaction(engine.db, async (tx) => {
    const current = await contingencyState(tx);
    const next = update(current, now);
    if (!next) return current;
    await save(tx, now, next);
    if (next.active !== current.active) {
      await announce(tx, now, next.active);
      afterCommit(tx, () => logSwitch(engine, current, next, by));
    }
    return next;
  });
}

const WHY_STARTED = {
  manual: 'the operator turned it on',
  automatic: 'calls to the authority have failed since',
  window: 'the authority announced a maintenance window',
} as const;

/**
 * One line when contingency starts (warn: e-CF are signed and wait) and one
 * when it ends (info), in the process that switched it, once its transaction
 * has committed: what the webhooks say, for the operator's log.
 */
function logSwitch(engine: Engine, before: ContingencyState, after: ContingencyState, by: 'operator' | 'authority'): void {
  const fields = { contingency: after.active ? 'started' : 'ended', by, source: after.active ? after.source : before.source, failingSince: after.failingSince ?? before.failingSince, ...(after.windowEndsAt && { windowEndsAt: after.windowEndsAt }) };
  if (after.active) {
    const why = after.source ? WHY_STARTED[after.source] : 'started';
    const detail = after.source === 'automatic' ? `${why} ${after.failingSince}` : after.source === 'window' && after.windowEndsAt ? `${why}, until ${after.windowEndsAt}` : why;
    engine.log.warn(fields, `contingency started: ${detail}; e-CF are signed and their submission waits`);
  } else {
    engine.log.info(fields, `contingency ended (${by === 'operator' ? 'the operator turned it off' : 'the authority answers again'}); waiting submissions resume`);
  }
}

/** The operator's switch: `ecf contingency on|off`. */
export function setContingency(engine: Engine, active: boolean): Promise<ContingencyState> {
  return change(engine, (s, now) =>
    s.active === active && s.source === 'manual' ? null : { active, source: active ? 'manual' : null, changedAt: now.toISOString(), failingSince: s.failingSince },
    'operator',
  );
}

/** A submission could not reach the authority. */
export async function noteTransportFailure(engine: Engine): Promise<ContingencyState> {
  const afterMinutes = await getSetting(engine, 'contingency.after_minutes');
  // Inside an announced window the failure is the window's: contingency at once.
  // Without the status services there is no snapshot, and a failure costs no more queries than before.
  const snapshot = await readStatusSnapshot(engine);
  const window = snapshot?.windows?.length ? currentWindow(snapshot, await countedEnvironments(engine), engine.clock.now()) : null;
  return change(engine, (s, now) => {
    const failingSince = s.failingSince ?? now.toISOString();
    if (window && mayEnter(s, window)) return { active: true, source: 'window', changedAt: now.toISOString(), failingSince, windowEndsAt: window.endsAt };
    const due = now.getTime() - Date.parse(failingSince) >= afterMinutes * 60_000;
    if (!s.active && due) return { active: true, source: 'automatic', changedAt: now.toISOString(), failingSince };
    return s.failingSince ? null : { ...s, failingSince };
  });
}

/** A submission reached the authority: an automatic contingency ends, and a window's once the window is over. */
export async function noteTransportSuccess(engine: Engine): Promise<ContingencyState> {
  const current = await contingencyState(engine.db);
  if (!current.failingSince && !(current.active && (current.source === 'automatic' || current.source === 'window'))) return current;
  return change(engine, (s, now) => {
    if (s.active && s.source === 'automatic') return { active: false, source: null, changedAt: now.toISOString(), failingSince: null };
    if (s.active && s.source === 'window') {
      if (windowOver(s, now)) return { active: false, source: null, changedAt: now.toISOString(), failingSince: null, windowEndsAt: null };
      return s.failingSince ? { ...s, failingSince: null } : null;
    }
    return s.failingSince ? { ...s, failingSince: null } : null;
  });
}

/** Not active, and not turned off since the window began (the operator's off, or a success, holds for that window). */
const mayEnter = (s: ContingencyState, window: { startsAt: string }): boolean =>
  !s.active && !(s.changedAt && Date.parse(s.changedAt) >= Date.parse(window.startsAt));

const windowOver = (s: ContingencyState, now: Date): boolean => !s.windowEndsAt || now.getTime() >= Date.parse(s.windowEndsAt);

/**
 * The environments whose windows put the appliance in contingency, which is
 * one state for all: production when a tenant works in it (its e-CF are the
 * ones that count), otherwise every environment in use.
 */
export async function countedEnvironments(engine: Engine): Promise<Environment[]> {
  const defaults = await engine.db.selectFrom('tenants').select('default_environment as environment').distinct().execute();
  const ranged = await engine.db.selectFrom('sequence_ranges').select('environment').distinct().execute();
  const used = new Set([...defaults, ...ranged].map((r) => r.environment as Environment));
  if (used.has('production')) return ['production'];
  return (['test', 'cert'] as const).filter((e) => used.has(e));
}

/**
 * Contingency as the status snapshot says, without calling the host: enters
 * it when an announced window of a counted environment is in force (or
 * stretches it to a later window that follows on); leaves a window's
 * contingency once the window has ended and a snapshot taken after its end
 * says every counted environment is Disponible. The status watch runs this
 * after each refresh and between them.
 */
export async function applyMaintenanceWindows(engine: Engine): Promise<ContingencyState> {
  const snapshot = await readStatusSnapshot(engine);
  const environments = await countedEnvironments(engine);
  const window = currentWindow(snapshot, environments, engine.clock.now());
  const current = await contingencyState(engine.db);
  if (!window && !(current.active && current.source === 'window')) return current;
  return change(engine, (s, now) => {
    if (window) {
      if (mayEnter(s, window)) return { active: true, source: 'window', changedAt: now.toISOString(), failingSince: s.failingSince, windowEndsAt: window.endsAt };
      if (s.source === 'window' && (!s.windowEndsAt || window.endsAt > s.windowEndsAt)) return { ...s, windowEndsAt: window.endsAt };
      return null;
    }
    if (!(s.active && s.source === 'window') || !windowOver(s, now)) return null;
    const answered =
      snapshot !== null &&
      Date.parse(snapshot.checkedAt) >= Date.parse(s.windowEndsAt ?? s.changedAt ?? '1970-01-01T00:00:00Z') &&
      environments.every((e) => snapshot.environments[e]?.available === true);
    return answered ? { active: false, source: null, changedAt: now.toISOString(), failingSince: null, windowEndsAt: null } : null;
  });
}

import { sql } from 'kysely';
import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { settingView } from '../settings/settings.js';
import { migrationStatus } from '../store/migrate.js';
import { migrations } from '../store/migrations/index.js';
import { contingencyState } from '../submission/contingency.js';
import { authorityStatusCheck } from './authority-status.js';
import { environmentsInUse } from './checks.js';
import { schedulerPulses } from './heartbeat.js';
import type { ReadinessCheck, ReadinessResult, ReadinessStatus } from './readiness-check.js';

/**
 * The readiness checks: one list that `GET /readyz` and `ecf doctor` both
 * run. Each check has a stable name; the doctor prints the detail (paths,
 * versions, errors: what to fix), /readyz only the names and statuses, so it
 * tells an attacker nothing.
 *
 * A check that fails makes the node unready (503). A warning does not: it
 * names something to look at that does not stop the node from working. That
 * is why the authority's state is never a failure: while the authority cannot
 * be reached the appliance keeps issuing in contingency, and a load balancer
 * that took every node out because of it would stop issuing too.
 */
export type { ReadinessCheck, ReadinessResult, ReadinessStatus } from './readiness-check.js';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: readonly ReadinessResult[];
}

/**
 * A check that takes longer than this fails: a probe must answer before the
 * prober gives up (Kubernetes' default is 1 s, most balancers 2–5 s), and a
 * store that hangs is not ready. Real time, not the engine's clock: it bounds
 * waiting on I/O, which the injected clock does not drive.
 */
export const CHECK_TIMEOUT_MS = 4_000;

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const one = (name: string, status: ReadinessStatus, detail: string): ReadinessResult[] => [{ name, status, detail }];

/** The store answers a trivial query. */
export const storeCheck: ReadinessCheck = {
  name: 'store',
  async run(engine) {
    await sql`select 1 as one`.execute(engine.db);
    return one('store', 'ok', `${engine.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} answers`);
  },
};

/** Every migration this build knows is applied, and none it does not know (a newer build migrated the store). */
export const migrationsCheck: ReadinessCheck = {
  name: 'migrations',
  async run(engine) {
    const status = await migrationStatus(engine.db);
    const pending = status.filter((m) => m.executedAt === null).map((m) => m.name);
    if (pending.length) return one('migrations', 'fail', `${pending.length} of ${status.length} pending (${pending.join(', ')}); run \`ecf migrate\``);
    const known = new Set(Object.keys(migrations));
    const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(engine.db);
    const unknown = applied.rows.map((r) => r.name).filter((n) => !known.has(n));
    if (unknown.length) return one('migrations', 'fail', `the store has migrations this version does not know (${unknown.join(', ')}): a newer ecf migrated it; upgrade this node`);
    return one('migrations', 'ok', `all ${status.length} applied`);
  },
};

/**
 * The secret store new secrets go to can be opened (its key loads, or the
 * keychain answers), and on the file store a stored secret opens with this
 * node's key: a node given the wrong key cannot sign.
 */
export const secretStoreCheck: ReadinessCheck = {
  name: 'secret-store',
  async run(engine) {
    const store = await engine.secrets.current();
    const setting = await settingView(engine, 'secrets.store');
    const where = `secrets.store is ${String(setting.value)} (${setting.source}); new secrets go to ${store.kind}: ${store.describe()}`;
    if (store.kind === 'file') {
      const sample = await engine.db.selectFrom('certificates').select('secret_ref').where('secret_store', '=', 'file').where('revoked_at', 'is', null).limit(1).executeTakeFirst();
      if (sample && (await store.get(sample.secret_ref)) === null) {
        return one('secret-store', 'warn', `${where}; it opens, but the secret of a certificate is missing from it; import the certificate again`);
      }
    }
    return one('secret-store', 'ok', where);
  },
};

/** The job scheduler of this process beats; no result in a process that runs no jobs (`ecf serve --no-jobs`, the CLI). */
export const schedulerCheck: ReadinessCheck = {
  name: 'scheduler',
  async run(engine) {
    const now = engine.clock.now().getTime();
    return schedulerPulses().map((p) => {
      const silentMs = now - p.lastBeatAt.getTime();
      const minutes = Math.floor(silentMs / 60_000);
      return silentMs > p.staleAfterMs
        ? { name: 'scheduler', status: 'fail' as const, detail: `the job scheduler has not run a job for ${minutes} minutes (expected within ${Math.round(p.staleAfterMs / 60_000)}); restart ecf serve` }
        : { name: 'scheduler', status: 'ok' as const, detail: `last beat ${Math.max(0, minutes)} minutes ago` };
    });
  },
};

/** Submission work of an environment that waits after a failed call: counted up to this many. */
const FAILED_WORK_CAP = 1000;

/**
 * Per environment in use: what the submission pipeline last recorded about
 * reaching the authority (contingency, failing since, work waiting after a
 * failed call), read from the store; never a call to the authority.
 */
export const authorityRecordCheck: ReadinessCheck = {
  name: 'taxauth',
  async run(engine) {
    const environments = await environmentsInUse(engine);
    if (environments.length === 0) return [];
    const state = await contingencyState(engine.db);
    const results: ReadinessResult[] = [];
    for (const env of environments) {
      const name = `taxauth:${env}`;
      const failed = await failedWork(engine, env);
      const notes: string[] = [];
      if (state.active) notes.push(`contingency is on (${state.source ?? 'automatic'}) since ${state.changedAt}; e-CF are issued and their submission waits`);
      else if (state.failingSince) notes.push(`calls to the authority have been failing since ${state.failingSince}`);
      if (failed.count > 0) {
        const n = failed.count >= FAILED_WORK_CAP ? `${FAILED_WORK_CAP} or more submissions to ${env} wait` : `${failed.count} submission${failed.count === 1 ? '' : 's'} to ${env} wait${failed.count === 1 ? 's' : ''}`;
        notes.push(`${n} after a failed call (latest at ${failed.latest})`);
      }
      results.push(
        notes.length
          ? { name, status: 'warn', detail: `${notes.join('; ')}; run \`ecf doctor\` without --offline, or \`ecf taxauth check\`` }
          : { name, status: 'ok', detail: 'no failed call to the authority is recorded' },
      );
    }
    return results;
  },
};

async function failedWork(engine: Engine, env: Environment): Promise<{ count: number; latest: string | null }> {
  // The environment's lanes, as a range on the lane index: `taxauth:test|…` sorts below `taxauth:test}`.
  const group = `taxauth:${env}`;
  const rows = await engine.db
    .selectFrom('work')
    .select('updated_at')
    .where('lane', '>=', `${group}|`)
    .where('lane', '<', `${group}}`)
    .where('last_error', 'is not', null)
    .limit(FAILED_WORK_CAP)
    .execute();
  const latest = rows.reduce<string | null>((m, r) => (m === null || r.updated_at > m ? r.updated_at : m), null);
  return { count: rows.length, latest };
}

/**
 * Every readiness check, in the order they are shown. The authority appears
 * twice, both read from the store: what our own calls recorded (taxauth:env)
 * and what its status services last said (taxauth-status:env).
 */
export const READINESS_CHECKS: readonly ReadinessCheck[] = [storeCheck, migrationsCheck, secretStoreCheck, schedulerCheck, authorityRecordCheck, authorityStatusCheck];

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs the checks one after the other (a probe must not open many store
 * connections at once). When the store does not answer, the checks that
 * read it are named as failing without being run.
 */
export async function runReadiness(engine: Engine, checks: readonly ReadinessCheck[] = READINESS_CHECKS, timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
  const results: ReadinessResult[] = [];
  let storeDown = false;
  for (const check of checks) {
    if (storeDown && check.name !== 'scheduler') {
      results.push({ name: check.name, status: 'fail', detail: 'not checked: the store does not answer' });
      continue;
    }
    try {
      results.push(...(await withTimeout(check.run(engine), timeoutMs, check.name)));
    } catch (err) {
      results.push({ name: check.name, status: 'fail', detail: reason(err) });
      if (check.name === 'store') storeDown = true;
    }
  }
  return { ready: !results.some((r) => r.status === 'fail'), checks: results };
}

import { Type, type Static } from '@sinclair/typebox';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { DamagedColumnError, parseJsonColumn } from '../json-column.js';
import { Nullable, type Environment } from '../schema-types.js';
import { taxauthAgent } from './agent.js';
import { TaxauthError } from './errors.js';
import { MaintenanceWindowValue, ServiceStatusValue, StatusClient, type MaintenanceWindow, type ServiceStatus } from './status-client.js';
import { STATUS_SNAPSHOT_STATE, readStatusKey, statusKeyInfo } from './status-key.js';

/**
 * What the authority's status host last said, kept in the store
 * (`platform_state` row `taxauth.status`) so every node and every probe
 * reads the same answer without calling the host: a readiness probe reads
 * it, never refreshes it. It is refreshed when older than STATUS_TTL_MS
 * (by engine.clock) by whoever asks for a live answer: the status watch of
 * `ecf serve` (submission/status-watch.ts), `ecf doctor`, `ecf taxauth check`,
 * `GET /api/v1/taxauth/connection`.
 */

/** At most one round of calls to the status host per this long, across nodes. */
export const STATUS_TTL_MS = 5 * 60_000;
/** A snapshot older than this is reported as stale (the watch should have refreshed it long before). */
export const STATUS_STALE_MS = 3 * STATUS_TTL_MS;
/** Windows that ended longer ago than this are dropped from the snapshot. */
const KEEP_ENDED_MS = 86_400_000;

export const NOT_CONFIGURED = 'status services not configured';

const ENVIRONMENTS: readonly Environment[] = ['test', 'cert', 'production'];

const EnvironmentAvailabilityValue = Type.Object({
  /** verificarestado's word, e.g. Disponible; null when that call failed. */
  status: Nullable(Type.String()),
  available: Nullable(Type.Boolean()),
});
export type EnvironmentAvailability = Readonly<Static<typeof EnvironmentAvailabilityValue>>;

/** `platform_state.value` of STATUS_SNAPSHOT_STATE. */
const StatusSnapshotValue = Type.Object({
  v: Type.Literal(1),
  /** UTC ISO, engine.clock. */
  checkedAt: Type.String(),
  url: Type.String(),
  services: Nullable(Type.Array(ServiceStatusValue)),
  windows: Nullable(Type.Array(MaintenanceWindowValue)),
  environments: Type.Object({ test: Nullable(EnvironmentAvailabilityValue), cert: Nullable(EnvironmentAvailabilityValue), production: Nullable(EnvironmentAvailabilityValue) }),
  /** One line per call that failed or per window entry that could not be read. */
  problems: Type.Array(Type.String()),
  /** Every call failed for the same reason (the key refused, the host unreachable): that reason. */
  error: Nullable(Type.String()),
});
export type StatusSnapshot = Readonly<Static<typeof StatusSnapshotValue>>;

/**
 * The stored snapshot, read through its schema. It is a cache of the host's answer: one that does not
 * fit (damaged, or written by another version) reads as none, so the next live ask refreshes and
 * replaces it instead of every probe failing on it until an operator repairs the row.
 */
export async function readStatusSnapshot(engine: Engine): Promise<StatusSnapshot | null> {
  const row = await engine.db.selectFrom('platform_state').select('value').where('key', '=', STATUS_SNAPSHOT_STATE).executeTakeFirst();
  if (!row) return null;
  try {
    return parseJsonColumn(StatusSnapshotValue, row.value, `platform_state.value of ${STATUS_SNAPSHOT_STATE}`);
  } catch (e) {
    if (e instanceof DamagedColumnError) return null;
    throw e;
  }
}

async function saveSnapshot(engine: Engine, snapshot: StatusSnapshot): Promise<void> {
  const value = JSON.stringify(snapshot);
  const updated_at = engine.clock.now().toISOString();
  await engine.db
    .insertInto('platform_state')
    .values({ key: STATUS_SNAPSHOT_STATE, value, updated_at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at }))
    .execute();
}

export type RefreshMode = 'never' | 'stale' | 'now';

export interface AuthorityStatusOptions {
  /** never: the stored snapshot only (probes); stale: call the host when the snapshot is older than the TTL; now: call it. */
  readonly refresh?: RefreshMode;
  /** For tests: a dispatcher with a test CA. */
  readonly dispatcher?: import('undici').Dispatcher;
}

/** A round of calls in flight per engine in this process: concurrent askers share it. */
const inFlight = new WeakMap<Engine, Promise<StatusSnapshot>>();

/**
 * The snapshot, refreshed as `refresh` says; null without a key. A refresh
 * that fails is itself recorded (the snapshot's `error`), so the failure is
 * what readiness and the doctor show until the next round.
 */
export async function authorityStatus(engine: Engine, options: AuthorityStatusOptions = {}): Promise<{ configured: boolean; snapshot: StatusSnapshot | null; keyError: string | null }> {
  const refresh = options.refresh ?? 'never';
  // Whether a key is set is one row; the secret itself is opened only to call the host (a probe never opens it).
  if (!(await statusKeyInfo(engine)).configured) return { configured: false, snapshot: null, keyError: null };
  const cached = await readStatusSnapshot(engine);
  const fresh = cached !== null && engine.clock.now().getTime() - Date.parse(cached.checkedAt) < STATUS_TTL_MS;
  if (refresh === 'never' || (refresh === 'stale' && fresh)) return { configured: true, snapshot: cached, keyError: null };
  let key: string | null;
  try {
    key = await readStatusKey(engine);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // Kept as the snapshot's error, so readiness and the doctor say it until the key is set again.
    const snapshot: StatusSnapshot = { v: 1, checkedAt: engine.clock.now().toISOString(), url: cached?.url ?? '', services: null, windows: cached?.windows ?? null, environments: { test: null, cert: null, production: null }, problems: [message], error: message };
    await saveSnapshot(engine, snapshot);
    return { configured: true, snapshot, keyError: null };
  }
  if (key === null) return { configured: false, snapshot: null, keyError: null };
  let round = inFlight.get(engine);
  if (!round) {
    round = fetchSnapshot(engine, key, options.dispatcher).finally(() => inFlight.delete(engine));
    inFlight.set(engine, round);
  }
  return { configured: true, snapshot: await round, keyError: null };
}

/** One round: the three services (verificarestado for each environment), in parallel, each failure recorded. */
async function fetchSnapshot(engine: Engine, apiKey: string, dispatcher?: import('undici').Dispatcher): Promise<StatusSnapshot> {
  const host = await engine.taxauth.statusHost();
  const client = new StatusClient({ baseUrl: host.url, apiKey, timeoutMs: host.timeoutMs, tls: host.tls, dispatcher: dispatcher ?? taxauthAgent(host.tls) });
  const [services, schedule, ...checks] = await Promise.allSettled([
    client.services(),
    client.maintenanceWindows(),
    ...ENVIRONMENTS.map((env) => client.checkEnvironment(env)),
  ]);
  const now = engine.clock.now();
  const problems: string[] = [];
  const reasons: string[] = [];
  const failed = (r: PromiseRejectedResult) => {
    const message = r.reason instanceof Error ? r.reason.message : String(r.reason);
    problems.push(message);
    reasons.push(r.reason instanceof TaxauthError ? `${r.reason.kind}:${r.reason.status ?? ''}` : message);
  };
  if (services!.status === 'rejected') failed(services!);
  if (schedule!.status === 'rejected') failed(schedule!);
  else problems.push(...schedule!.value.problems);
  const environments = {} as Record<Environment, EnvironmentAvailability | null>;
  ENVIRONMENTS.forEach((env, i) => {
    const r = checks[i]!;
    if (r.status === 'fulfilled') environments[env] = { status: r.value.status, available: r.value.available };
    else {
      environments[env] = null;
      failed(r as PromiseRejectedResult);
    }
  });
  const allFailed = reasons.length === 2 + ENVIRONMENTS.length;
  const snapshot: StatusSnapshot = {
    v: 1,
    checkedAt: now.toISOString(),
    url: host.url,
    services: services!.status === 'fulfilled' ? services!.value : null,
    windows:
      schedule!.status === 'fulfilled' ? schedule!.value.windows.filter((w) => Date.parse(w.endsAt) > now.getTime() - KEEP_ENDED_MS) : null,
    environments,
    problems: [...new Set(problems)],
    // The same reason everywhere (a refused key, an unreachable host) is one error, said once.
    error: allFailed && new Set(reasons).size === 1 ? problems[0]! : null,
  };
  await saveSnapshot(engine, snapshot);
  return snapshot;
}

/** The window in force at `now` for any of `environments` (a window naming no known environment counts for all). */
export function currentWindow(snapshot: StatusSnapshot | null, environments: readonly Environment[], now: Date): MaintenanceWindow | null {
  const t = now.getTime();
  const hits = (snapshot?.windows ?? []).filter((w) => (w.environment === null || environments.includes(w.environment)) && Date.parse(w.startsAt) <= t && t < Date.parse(w.endsAt));
  // The one that lasts longest: contingency holds until it ends.
  return hits.sort((a, b) => b.endsAt.localeCompare(a.endsAt))[0] ?? null;
}

/** The next window (or the one in force) for the environment. */
export function nextWindow(snapshot: StatusSnapshot | null, environment: Environment, now: Date): MaintenanceWindow | null {
  const t = now.getTime();
  return (snapshot?.windows ?? []).find((w) => (w.environment === null || w.environment === environment) && Date.parse(w.endsAt) > t) ?? null;
}

/** The authority's status for one environment, as doctor, readiness and the connection check show it. */
export interface AuthorityStatusView {
  readonly configured: boolean;
  /** Dominican ISO; null when never read. */
  readonly checkedAt: string | null;
  /** verificarestado's word for the environment (Disponible, No Disponible); null when unknown. */
  readonly status: string | null;
  readonly available: boolean | null;
  /** Services of this environment the host lists as not available. */
  readonly servicesDown: string[];
  readonly inMaintenance: boolean;
  /** The window in force or the next one, Dominican ISO. */
  readonly nextWindow: { readonly startsAt: string; readonly endsAt: string } | null;
  /** Why the status is unknown or partial; null when all was read. */
  readonly error: string | null;
  /** One line for people. */
  readonly summary: string;
}

export function statusView(
  state: { configured: boolean; snapshot: StatusSnapshot | null; keyError: string | null },
  environment: Environment,
  now: Date,
): AuthorityStatusView {
  const empty = { checkedAt: null, status: null, available: null, servicesDown: [] as string[], inMaintenance: false, nextWindow: null };
  if (!state.configured) return { configured: false, ...empty, error: null, summary: NOT_CONFIGURED };
  if (state.keyError) return { configured: true, ...empty, error: state.keyError, summary: state.keyError };
  const s = state.snapshot;
  if (!s) return { configured: true, ...empty, error: null, summary: 'not read yet from the status host' };
  const env = s.environments[environment];
  const servicesDown = (s.services ?? []).filter((x) => x.environment === environment && x.available === false).map((x) => x.service);
  const window = nextWindow(s, environment, now);
  const inMaintenance = window !== null && Date.parse(window.startsAt) <= now.getTime();
  const next = window && { startsAt: toDominicanIso(window.startsAt), endsAt: toDominicanIso(window.endsAt) };
  const checkedAt = toDominicanIso(s.checkedAt);
  const error = s.error ?? (s.problems.length ? s.problems.join('; ') : null);
  const parts: string[] = [];
  if (s.error) parts.push(`status unknown: ${s.error}`);
  else parts.push(env?.status ? env.status : 'status unknown');
  if (servicesDown.length) parts.push(`not available: ${servicesDown.join(', ')}`);
  if (next) parts.push(`${inMaintenance ? 'in maintenance until' : 'next maintenance window'} ${inMaintenance ? next.endsAt : `${next.startsAt} to ${next.endsAt}`}`);
  else if (s.windows) parts.push('no maintenance window announced');
  parts.push(`checked ${checkedAt}`);
  return { configured: true, checkedAt, status: env?.status ?? null, available: env?.available ?? null, servicesDown, inMaintenance, nextWindow: next, error, summary: parts.join('; ') };
}

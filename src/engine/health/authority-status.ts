import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { STATUS_STALE_MS, authorityStatus, statusView, type RefreshMode } from '../taxauth/authority-status.js';
import type { HealthCheck } from './checks.js';
import { environmentsInUse } from './checks.js';
import type { ReadinessCheck, ReadinessResult } from './readiness-check.js';

/**
 * The authority's own word on its services (the status host, NOTES §3):
 * per environment in use, its status and the next maintenance window, from
 * the stored snapshot. Never a failure: while the authority is down or in
 * maintenance the appliance issues in contingency, so a node stays ready;
 * a warning names what is going on. Without an API key: one ok line,
 * "status services not configured".
 */
export async function authorityStatusResults(engine: Engine, refresh: RefreshMode = 'never'): Promise<ReadinessResult[]> {
  const state = await authorityStatus(engine, { refresh });
  const now = engine.clock.now();
  if (!state.configured) return [{ name: 'taxauth-status', status: 'ok', detail: statusView(state, 'test', now).summary }];
  let environments: Environment[] = await environmentsInUse(engine);
  if (environments.length === 0) environments = ['production'];
  return environments.map((env) => {
    const name = `taxauth-status:${env}`;
    const view = statusView(state, env, now);
    if (state.keyError) return { name, status: 'warn', detail: state.keyError };
    if (!view.checkedAt) return { name, status: 'warn', detail: `${view.summary}; ecf serve reads it every few minutes, or run ecf taxauth status` };
    const age = now.getTime() - Date.parse(state.snapshot!.checkedAt);
    const stale = age > STATUS_STALE_MS ? `; this is ${Math.round(age / 60_000)} minutes old (ecf serve refreshes it every few minutes: is it running?)` : '';
    const bad = view.inMaintenance || view.available === false || view.servicesDown.length > 0 || view.error !== null || stale !== '';
    return { name, status: bad ? 'warn' : 'ok', detail: `${view.summary}${stale}` };
  });
}

/** For the shared list (readiness.ts READINESS_CHECKS): reads the snapshot only, never the host. */
export const authorityStatusCheck: ReadinessCheck = {
  name: 'taxauth-status',
  run: (engine) => authorityStatusResults(engine, 'never'),
};

/** The same as `ecf doctor` lines; `refresh: 'stale'` lets the doctor read the host when the snapshot is old. */
export async function authorityStatusChecks(engine: Engine, options: { refresh?: RefreshMode } = {}): Promise<HealthCheck[]> {
  return (await authorityStatusResults(engine, options.refresh ?? 'never')).map((r) => ({ check: r.name, status: r.status, detail: r.detail }));
}

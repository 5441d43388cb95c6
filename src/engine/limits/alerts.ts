import { fromRowInstant, toDominicanIso, toRowInstant } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { emit, type EventEnvelope } from '../events/outbox.js';
import { getSettings } from '../settings/settings.js';
import { inTransaction, type Tx } from '../store/database.js';
import { onceInCluster } from '../store/locking.js';
import { businessMsBetween, insideBusinessHours, parseBusinessHours } from './business-hours.js';
import { pauseInForce } from './pause.js';
import { tenantKey } from '../tenants/lookup.js';

/** The contract's limits of the alerts. */
export const SPIKE_WINDOW_MINUTES = 60;
export const SPIKE_MIN_SAMPLE = 5;
export const SPIKE_REPEAT_MS = 6 * 3_600_000;
const HOUR_MS = 3_600_000;

const round2 = (n: number): number => Math.round(n * 100) / 100;

interface Sample {
  total: number;
  rejected: number;
}

/**
 * Each tenant's verdicts of the last hour: e-CF whose final answer from the
 * authority (accepted, conditionally accepted or rejected; not an automatic
 * resend after a transient rejection) was recorded in the window, each
 * counted once by its latest verdict. Failed and review are not verdicts.
 */
async function lastHourVerdicts(engine: Engine, now: Date): Promise<Map<string, Sample>> {
  const since = toRowInstant(new Date(now.getTime() - SPIKE_WINDOW_MINUTES * 60_000));
  const rows = await engine.db
    .selectFrom('ecf_attempts as a')
    .innerJoin('ecf as e', 'e.store_key', 'a.ecf_key')
    .innerJoin('tenants as t', 't.store_key', 'e.tenant_key')
    .select(['t.id as tenant_id', 'e.id as ecf_id', 'a.outcome'])
    .where('a.recorded_at', '>', since)
    .where('a.recorded_at', '<=', toRowInstant(now))
    .where('a.outcome', 'in', ['accepted', 'accepted_conditional', 'rejected'])
    .where((eb) => eb.or([eb('a.retry_decision', 'is', null), eb('a.retry_decision', 'not like', 'auto:%')]))
    .orderBy('a.recorded_at')
    .orderBy('a.attempt')
    .execute();
  const latest = new Map<string, { tenantId: string; rejected: boolean }>();
  for (const r of rows) latest.set(r.ecf_id, { tenantId: r.tenant_id, rejected: r.outcome === 'rejected' });
  const out = new Map<string, Sample>();
  for (const { tenantId, rejected } of latest.values()) {
    const s = out.get(tenantId) ?? { total: 0, rejected: 0 };
    s.total++;
    if (rejected) s.rejected++;
    out.set(tenantId, s);
  }
  return out;
}

/** alert.rejection_spike at most once per 6 hours per tenant: the last one is remembered beside the tenant. */
async function spike(tx: Tx, now: Date, tenantId: string, sample: Sample, thresholdPct: number): Promise<EventEnvelope | null> {
  const state = await tx.selectFrom('tenant_alert_state').select('spike_alerted_at').where('tenant_id', '=', tenantId).executeTakeFirst();
  if (state?.spike_alerted_at && now.getTime() - Date.parse(state.spike_alerted_at) < SPIKE_REPEAT_MS) return null;
  const at = now.toISOString();
  await tx
    .insertInto('tenant_alert_state')
    .values({ tenant_id: tenantId, spike_alerted_at: at })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ spike_alerted_at: at }))
    .execute();
  return emit(tx, now, tenantId, 'alert.rejection_spike', {
    tenantId,
    windowMinutes: SPIKE_WINDOW_MINUTES,
    total: sample.total,
    rejected: sample.rejected,
    ratePct: round2((sample.rejected * 100) / sample.total),
    thresholdPct,
  });
}

/**
 * The alerts job (every 15 minutes). Per tenant, with its own settings, each
 * alert off while its setting is null:
 *
 * - `alert.rejection_spike`: at least 5 verdicts in the last hour and the
 *   rejected share at or above `alerts.rejection_rate_threshold_pct`; again
 *   at most every 6 hours while it lasts.
 * - `alert.emission_silence`: `alerts.no_emission_hours` of business hours
 *   (`alerts.business_hours`, else the whole day) since the tenant's last
 *   e-CF; told once per silence (its fact is the last e-CF), only while inside
 *   business hours, never while emission is paused or for a tenant that never
 *   issued.
 */
export async function evaluateAlerts(engine: Engine): Promise<EventEnvelope[]> {
  const now = engine.clock.now();
  const tenants = await engine.db.selectFrom('tenants').select(['id', 'organization_id']).orderBy('created_at').orderBy('id').execute();
  const plans: { tenantId: string; spike?: { sample: Sample; thresholdPct: number }; silence?: { last: string; silentHours: number; thresholdHours: number } }[] = [];
  let verdicts: Map<string, Sample> | undefined;
  for (const t of tenants) {
    const s = await getSettings(engine, ['alerts.rejection_rate_threshold_pct', 'alerts.no_emission_hours', 'alerts.business_hours'], t.id);
    const thresholdPct = s['alerts.rejection_rate_threshold_pct'];
    const thresholdHours = s['alerts.no_emission_hours'];
    const plan: (typeof plans)[number] = { tenantId: t.id };
    if (thresholdPct !== null) {
      verdicts ??= await lastHourVerdicts(engine, now);
      const sample = verdicts.get(t.id);
      if (sample && sample.total >= SPIKE_MIN_SAMPLE && sample.rejected * 100 >= thresholdPct * sample.total) plan.spike = { sample, thresholdPct };
    }
    if (thresholdHours !== null) {
      const hours = parseBusinessHours(s['alerts.business_hours']);
      const last = await engine.db.selectFrom('ecf').select('issued_at').where('tenant_key', '=', await tenantKey(engine.db, t.id)).orderBy('issued_at', 'desc').limit(1).executeTakeFirst();
      if (last && insideBusinessHours(now, hours) && !(await pauseInForce(engine.db, now, t.id, t.organization_id))) {
        const lastAt = fromRowInstant(last.issued_at);
        const silentHours = businessMsBetween(new Date(lastAt), now, hours) / HOUR_MS;
        if (silentHours >= thresholdHours) plan.silence = { last: lastAt, silentHours, thresholdHours };
      }
    }
    if (plan.spike || plan.silence) plans.push(plan);
  }
  if (plans.length === 0) return [];
  return inTransaction(engine.db, async (tx) => {
    // One process of the cluster tells; the state it writes is re-read under the lock (spike), or the fact is keyed (silence).
    if (!(await onceInCluster(tx, 'alerts'))) return [];
    const sent: EventEnvelope[] = [];
    for (const p of plans) {
      if (p.spike) {
        const e = await spike(tx, now, p.tenantId, p.spike.sample, p.spike.thresholdPct);
        if (e) sent.push(e);
      }
      if (p.silence) {
        const object = {
          tenantId: p.tenantId,
          lastEmissionAt: toDominicanIso(p.silence.last),
          silentHours: round2(p.silence.silentHours),
          thresholdHours: p.silence.thresholdHours,
        };
        const e = await emit(tx, now, p.tenantId, 'alert.emission_silence', object, { factKey: `alert.emission_silence:${p.tenantId}:${p.silence.last}` });
        if (e) sent.push(e);
      }
    }
    return sent;
  });
}

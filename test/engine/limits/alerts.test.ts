import { describe, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../src/engine/limits/alerts.js';
import { businessMsBetween, insideBusinessHours, parseBusinessHours } from '../../../src/engine/limits/business-hours.js';
import { pauseEmission, resumeEmission } from '../../../src/engine/limits/pause.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { recordAttempt } from '../../../src/engine/submission/attempts.js';
import { inTransaction } from '../../../src/engine/store/database.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import type { ManualClock } from '../../../src/engine/clock.js';
import { seedIssuer, testEngine } from '../../helpers.js';
import { eventsOf, issue } from './fixtures.js';
import { harness } from '../submission/harness.js';

const HOUR = 3_600_000;
const MIN = 60_000;

/** Issues an e-CF and records the authority's final verdict on it now (as the submission job does). */
async function verdict(engine: Engine, tenantId: string, outcome: 'accepted' | 'rejected', retryDecision: string | null = null) {
  const { ecf } = await issue(engine, tenantId);
  await inTransaction(engine.db, (tx) =>
    recordAttempt(tx, engine.clock.now(), { ecfId: ecf.id, outcome, statusCode: outcome === 'accepted' ? 1 : 2, messages: [], retryDecision }),
  );
  return ecf;
}

async function tenant() {
  const engine = await testEngine(); // 2026-03-10 10:00 Dominican time
  const { tenant } = await seedIssuer(engine);
  await setSetting(engine, 'duplicates.mode', 'off', tenant.id);
  return { engine, tenantId: tenant.id };
}

describe('alert.rejection_spike', () => {
  it('needs at least 5 verdicts in the last hour and the rejected share at the threshold; repeats at most every 6 hours', async () => {
    const { engine, tenantId } = await tenant();
    for (let i = 0; i < 2; i++) await verdict(engine, tenantId, 'accepted');
    for (let i = 0; i < 2; i++) await verdict(engine, tenantId, 'rejected');
    // Off until configured.
    expect(await evaluateAlerts(engine)).toEqual([]);
    await setSetting(engine, 'alerts.rejection_rate_threshold_pct', 50, tenantId);
    expect(await evaluateAlerts(engine)).toEqual([]); // 4 verdicts: too few
    await verdict(engine, tenantId, 'rejected', 'auto:9001'); // an automatic resend is no verdict
    expect(await evaluateAlerts(engine)).toEqual([]);
    await verdict(engine, tenantId, 'accepted');
    expect(await evaluateAlerts(engine)).toEqual([]); // 5 verdicts, 40 % < 50 %
    await verdict(engine, tenantId, 'rejected');
    const [spike] = await evaluateAlerts(engine);
    expect(spike).toMatchObject({
      type: 'alert.rejection_spike',
      data: { object: { tenantId, windowMinutes: 60, total: 6, rejected: 3, ratePct: 50, thresholdPct: 50 } },
    });
    // Still spiking 15 minutes later, and up to 6 hours: nothing more.
    for (const step of [15 * MIN, 5 * HOUR]) {
      engine.clock.advance(step);
      for (let i = 0; i < 5; i++) await verdict(engine, tenantId, 'rejected');
      expect(await evaluateAlerts(engine)).toEqual([]);
    }
    engine.clock.advance(HOUR - 15 * MIN); // 6 hours after the first
    expect((await evaluateAlerts(engine)).map((e) => e.type)).toEqual(['alert.rejection_spike']);
    // Verdicts older than an hour leave the window.
    engine.clock.advance(6 * HOUR + 1);
    expect(await evaluateAlerts(engine)).toEqual([]);
    expect(await eventsOf(engine, 'alert.')).toHaveLength(2);
  });

  it('counts the real verdicts of the submission pipeline (the sandbox over HTTP)', async () => {
    const h = await harness();
    await setSetting(h.engine, 'alerts.rejection_rate_threshold_pct', 60, h.tenant.id);
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push(await h.issue());
    for (const e of issued.slice(0, 3)) h.sandbox.control.script({ encf: e.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    await h.drive();
    const [spike] = await evaluateAlerts(h.engine);
    expect(spike?.data.object).toEqual({ tenantId: h.tenant.id, windowMinutes: 60, total: 5, rejected: 3, ratePct: 60, thresholdPct: 60 });
  });
});

describe('alert.emission_silence', () => {
  async function silent(hours = 2, business: string | null = '08:00-18:00') {
    const t = await tenant();
    await setSetting(t.engine, 'alerts.no_emission_hours', hours, t.tenantId);
    if (business) await setSetting(t.engine, 'alerts.business_hours', business, t.tenantId);
    return t;
  }
  const at = (engine: Engine & { clock: ManualClock }, dominican: string) => engine.clock.set(new Date(`${dominican}-04:00`));

  it('fires once per silence after the configured business hours, and again only after a new e-CF', async () => {
    const { engine, tenantId } = await silent();
    at(engine, '2026-03-10T09:00:00');
    await issue(engine, tenantId);
    at(engine, '2026-03-10T10:59:00');
    expect(await evaluateAlerts(engine)).toEqual([]);
    at(engine, '2026-03-10T11:00:00');
    const [e] = await evaluateAlerts(engine);
    expect(e).toMatchObject({
      type: 'alert.emission_silence',
      data: { object: { tenantId, lastEmissionAt: '2026-03-10T09:00:00.000-04:00', silentHours: 2, thresholdHours: 2 } },
    });
    for (const later of ['2026-03-10T11:15:00', '2026-03-10T17:45:00', '2026-03-11T09:00:00']) {
      at(engine, later);
      expect(await evaluateAlerts(engine)).toEqual([]);
    }
    await issue(engine, tenantId);
    at(engine, '2026-03-11T10:59:00');
    expect(await evaluateAlerts(engine)).toEqual([]);
    at(engine, '2026-03-11T11:00:00');
    expect((await evaluateAlerts(engine)).map((x) => x.type)).toEqual(['alert.emission_silence']);
  });

  it('counts only business hours and never fires outside them', async () => {
    const { engine, tenantId } = await silent();
    at(engine, '2026-03-10T17:00:00');
    await issue(engine, tenantId);
    for (const t of ['2026-03-10T19:00:00', '2026-03-11T03:00:00', '2026-03-11T07:59:00', '2026-03-11T08:59:00']) {
      at(engine, t);
      expect(await evaluateAlerts(engine), t).toEqual([]);
    }
    at(engine, '2026-03-11T09:00:00'); // 17:00-18:00 and 08:00-09:00
    expect((await evaluateAlerts(engine))[0]?.data.object).toMatchObject({ silentHours: 2 });
  });

  it('does not fire while emission is paused, nor for a tenant that never issued, nor when it is off', async () => {
    const { engine, tenantId } = await silent();
    at(engine, '2026-03-10T08:00:00');
    expect(await evaluateAlerts(engine)).toEqual([]);
    at(engine, '2026-03-10T15:00:00');
    expect(await evaluateAlerts(engine)).toEqual([]); // never issued
    await issue(engine, tenantId);
    await pauseEmission(engine, 'tenant', tenantId, { reason: 'vacaciones' }, { kind: 'operator' });
    at(engine, '2026-03-11T15:00:00');
    expect(await evaluateAlerts(engine)).toEqual([]);
    await resumeEmission(engine, 'tenant', tenantId, {}, { kind: 'operator' });
    await setSetting(engine, 'alerts.no_emission_hours', null, tenantId);
    expect(await evaluateAlerts(engine)).toEqual([]);
    await setSetting(engine, 'alerts.no_emission_hours', 2, tenantId);
    expect((await evaluateAlerts(engine)).map((x) => x.type)).toEqual(['alert.emission_silence']);
  });

  it('without business hours every hour counts', async () => {
    const { engine, tenantId } = await silent(3, null);
    at(engine, '2026-03-10T22:00:00');
    await issue(engine, tenantId);
    at(engine, '2026-03-11T00:59:00');
    expect(await evaluateAlerts(engine)).toEqual([]);
    at(engine, '2026-03-11T01:00:00');
    expect((await evaluateAlerts(engine))[0]?.data.object).toMatchObject({ silentHours: 3, thresholdHours: 3 });
  });
});

describe('business hours', () => {
  const d = (s: string) => new Date(`${s}-04:00`);
  it('spans midnight when the end is before the start, and is the whole day when both are equal', () => {
    const night = parseBusinessHours('22:00-06:00')!;
    expect(insideBusinessHours(d('2026-03-10T23:00:00'), night)).toBe(true);
    expect(insideBusinessHours(d('2026-03-11T05:59:00'), night)).toBe(true);
    expect(insideBusinessHours(d('2026-03-11T06:00:00'), night)).toBe(false);
    expect(businessMsBetween(d('2026-03-10T20:00:00'), d('2026-03-11T12:00:00'), night)).toBe(8 * HOUR);
    const day = parseBusinessHours('08:00-18:00')!;
    expect(insideBusinessHours(d('2026-03-10T08:00:00'), day)).toBe(true);
    expect(insideBusinessHours(d('2026-03-10T18:00:00'), day)).toBe(false);
    expect(businessMsBetween(d('2026-03-09T12:00:00'), d('2026-03-11T09:30:00'), day)).toBe((6 + 10 + 1.5) * HOUR);
    expect(businessMsBetween(d('2026-03-10T12:00:00'), d('2026-03-10T12:00:00'), parseBusinessHours('00:00-00:00'))).toBe(0);
    expect(businessMsBetween(d('2026-03-10T12:00:00'), d('2026-03-11T12:00:00'), parseBusinessHours('09:00-09:00'))).toBe(24 * HOUR);
  });
});

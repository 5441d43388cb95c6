import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { observeTaxauthCall } from '../../src/engine/taxauth/call-listeners.js';
import { setContingency } from '../../src/engine/submission/contingency.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { TaxauthError } from '../../src/engine/taxauth/errors.js';
import { TaxauthClient } from '../../src/engine/taxauth/client.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { sandbox } from '../engine/taxauth/fixtures.js';
import { api } from '../api.js';

const LOCAL = { remoteAddress: '127.0.0.1' };

/** The samples of a text exposition: `name{labels} value` per line, comments left out. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l)!;
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}
const value = (text: string, name: string, labels: Record<string, string> = {}) =>
  samples(text).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('GET /metrics', () => {
  it('follows metrics.exposure: loopback (default) answers 127.0.0.0/8, ::1 and ::ffff:127.x only; off answers 404 to all; public to anyone', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    try {
      const from = (remoteAddress: string) => api(app).get('/metrics', { remoteAddress });
      for (const local of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1']) expect((await from(local)).statusCode, local).toBe(200);
      for (const other of ['192.168.1.20', '10.0.0.1', '::ffff:192.168.1.20', 'fe80::1', '2001:db8::1', '0.0.0.0', '::']) {
        const res = await from(other);
        expect(res.statusCode, other).toBe(404);
        // The same problem as a path that does not exist: the endpoint is not revealed.
        expect(res.json()).toMatchObject({ code: 'Http.RouteNotFound', status: 404 });
      }
      // A forwarded-for header does not make a remote caller local.
      const spoofed = await api(app).get('/metrics', { headers: { 'x-forwarded-for': '127.0.0.1', forwarded: 'for=127.0.0.1' }, remoteAddress: '192.168.1.20' });
      expect(spoofed.statusCode).toBe(404);
      const ok = await from('127.0.0.1');
      expect(ok.headers['content-type']).toContain('text/plain');
      expect(ok.body).toContain('# TYPE ecf_issued_total counter');

      await setSetting(engine, 'metrics.exposure', 'off');
      expect((await from('127.0.0.1')).statusCode).toBe(404);
      await setSetting(engine, 'metrics.exposure', 'public');
      expect((await from('203.0.113.9')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('counts e-CF, backlog and its oldest, contingency, webhook deliveries, certificate expiry and e-NCF left, from the store at scrape time', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine, { rangeSize: 100 });
    const app = await buildApp({ engine });
    try {
      const issued = [];
      for (let i = 0; i < 3; i++) {
        issued.push((await issueEcf(engine, tenant.id, { idempotencyKey: `m-${i}`, payload: invoice31() })).ecf);
        engine.clock.advance(60_000);
      }
      await engine.db.updateTable('ecf').set({ status: 'accepted' }).where('id', '=', issued[0]!.id).execute();
      await engine.db.updateTable('ecf').set({ status: 'rejected' }).where('id', '=', issued[1]!.id).execute();
      await setContingency(engine, true);

      // Two endpoints; deliveries pending at both, dead at one (rows as the outbox writes them).
      const stamp = engine.clock.now().toISOString();
      for (const [id, enabled] of [['ep-1', 1], ['ep-2', 0]] as const) {
        await engine.db.insertInto('webhook_endpoints').values({
          id, tenant_id: tenant.id, url: 'https://hooks.example/ecf', description: null, events: '["*"]', enabled,
          consecutive_failures: 0, disabled_reason: null, disabled_at: null, secret_store: 'file', secret_ref: `webhook-${id}`, created_at: stamp, updated_at: null,
        }).execute();
      }
      const deliveries: [string, string, string][] = [['d1', 'ep-1', 'pending'], ['d2', 'ep-1', 'pending'], ['d3', 'ep-1', 'dead'], ['d4', 'ep-2', 'pending'], ['d5', 'ep-2', 'delivered']];
      const events = (await engine.db.selectFrom('events').select('id').where('tenant_id', '=', tenant.id).execute()).map((e) => e.id);
      for (const [n, [id, endpoint, status]] of deliveries.entries()) {
        await engine.db.insertInto('webhook_deliveries').values({
          id, endpoint_id: endpoint, tenant_id: tenant.id, event_id: events[n % events.length]!, event_type: 'ecf.accepted', status, attempts: 1,
          next_attempt_at: stamp, lease_owner: null, lease_expires_at: null, last_status_code: null, last_error: null, created_at: stamp, updated_at: stamp,
        }).execute();
      }

      const text = (await api(app).get('/metrics', LOCAL)).body;
      const e31 = { environment: 'test', type: '31' };
      expect(value(text, 'ecf_issued_total', e31)).toBe(3);
      expect(value(text, 'ecf_accepted_total', e31)).toBe(1);
      expect(value(text, 'ecf_rejected_total', e31)).toBe(1);
      expect(value(text, 'ecf_submission_backlog', { environment: 'test' })).toBe(1);
      // The third was issued 2 minutes after the first; the clock is now a minute after it.
      expect(value(text, 'ecf_submission_oldest_pending_age_seconds')).toBe(60);
      expect(value(text, 'ecf_contingency_active')).toBe(1);
      expect(value(text, 'ecf_store_up')).toBe(1);
      expect(value(text, 'ecf_webhook_deliveries', { status: 'pending' })).toBe(3);
      expect(value(text, 'ecf_webhook_deliveries', { status: 'dead' })).toBe(1);
      expect(value(text, 'ecf_webhook_endpoints_with_deliveries', { status: 'pending' })).toBe(2);
      expect(value(text, 'ecf_webhook_endpoint_deliveries_max', { status: 'pending' })).toBe(2);
      expect(value(text, 'ecf_webhook_endpoints', { state: 'disabled' })).toBe(1);
      const certDays = value(text, 'ecf_certificate_expiry_days', { tenant_rnc: tenant.rnc })!;
      expect(certDays).toBeGreaterThan(0);
      expect(value(text, 'ecf_encf_remaining', { tenant_rnc: tenant.rnc, environment: 'test', type: '31' })).toBe(97);
      expect(value(text, 'ecf_encf_remaining', { tenant_rnc: tenant.rnc, environment: 'test', type: '33' })).toBe(100);
      // Event loop lag and the other process metrics (prom-client's defaults).
      expect(text).toContain('nodejs_eventloop_lag_seconds');

      // Scrape time, not memory: moving the clock ages the oldest pending and shortens the certificate.
      engine.clock.advance(10 * 86_400_000);
      const later = (await api(app).get('/metrics', LOCAL)).body;
      expect(value(later, 'ecf_submission_oldest_pending_age_seconds')).toBe(60 + 10 * 86_400);
      expect(value(later, 'ecf_certificate_expiry_days', { tenant_rnc: tenant.rnc })).toBe(certDays - 10);

      // Bounded labels: no e-NCF, no id, no raw URL anywhere.
      for (const s of samples(later)) {
        for (const v of Object.values(s.labels)) {
          expect(v).not.toMatch(/^E\d{12}$/);
          expect(v).not.toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
          expect(v).not.toMatch(/^ep-|^d\d$/);
        }
      }
    } finally {
      await app.close();
    }
  });

  it('ecf_build_info names the version; certificate expiry is a Unix timestamp; every series read from the store says it is cluster-wide', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const app = await buildApp({ engine });
    try {
      await issueEcf(engine, tenant.id, { idempotencyKey: 'cluster-1', payload: invoice31() });
      const text = (await api(app).get('/metrics', LOCAL)).body;
      const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
      expect(value(text, 'ecf_build_info', { version, node_version: process.version })).toBe(1);

      const [certificate] = await engine.db.selectFrom('certificates').select('not_after').where('tenant_id', '=', tenant.id).execute();
      expect(value(text, 'ecf_certificate_expiry_timestamp_seconds', { tenant_rnc: tenant.rnc })).toBe(Date.parse(certificate!.not_after) / 1000);

      // Every node of a cluster reads the same store: these would count each e-CF once per node if summed.
      const help = new Map([...text.matchAll(/^# HELP (\S+) (.*)$/gm)].map((m) => [m[1]!, m[2]!]));
      const fromStore = [
        'ecf_issued_total', 'ecf_accepted_total', 'ecf_rejected_total', 'ecf_submission_backlog', 'ecf_submission_oldest_pending_age_seconds',
        'ecf_contingency_active', 'ecf_taxauth_failing_seconds', 'ecf_webhook_deliveries', 'ecf_webhook_endpoints_with_deliveries',
        'ecf_webhook_endpoint_deliveries_max', 'ecf_webhook_endpoints', 'ecf_certificate_expiry_days', 'ecf_certificate_expiry_timestamp_seconds', 'ecf_encf_remaining',
      ];
      for (const name of fromStore) expect(help.get(name), name).toMatch(/^Cluster-wide \(read from the shared store; every node reports the same value: aggregate with max, never sum\):/);
      // The rest are this process's own, and none of them says cluster-wide.
      const own = [...help.keys()].filter((name) => name.startsWith('ecf_') && !fromStore.includes(name));
      expect(own.sort()).toEqual(['ecf_build_info', 'ecf_http_request_duration_seconds', 'ecf_store_up', 'ecf_taxauth_request_duration_seconds', 'ecf_taxauth_requests_in_flight']);
      for (const name of own) expect(help.get(name), name).toMatch(/this process/i);
    } finally {
      await app.close();
    }
  });

  it('HTTP durations by route pattern, never the raw URL; one series for every unknown path', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    try {
      for (let i = 0; i < 5; i++) {
        await api(app).get(`/api/v1/ecf/0000000${i}-aaaa-bbbb-cccc-dddddddddddd`);
        await api(app).get(`/no/such/path/${i}?x=${i}`);
      }
      await api(app).get('/healthz');
      const text = (await api(app).get('/metrics', LOCAL)).body;
      const routes = new Set(samples(text).filter((s) => s.name === 'ecf_http_request_duration_seconds_count').map((s) => s.labels.route));
      expect(routes).toContain('/api/v1/ecf/:id');
      expect(routes).toContain('unmatched');
      expect(routes).toContain('/healthz');
      for (const r of routes) expect(r).not.toMatch(/0000000|no\/such|\?/);
      expect(value(text, 'ecf_http_request_duration_seconds_count', { route: '/api/v1/ecf/:id', method: 'GET', status_code: '401' })).toBe(5);
      expect(value(text, 'ecf_http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })).toBe(5);
    } finally {
      await app.close();
    }
  });

  it('calls to the authority: in flight while under way, then a latency sample by operation and outcome; each app its own registry', async () => {
    const engine = await testEngine();
    const [a, b] = [await buildApp({ engine }), await buildApp({ engine })];
    try {
      let release!: () => void;
      const pending = observeTaxauthCall('semilla', () => new Promise<string>((r) => (release = () => r('ok'))));
      let text = (await api(a).get('/metrics', LOCAL)).body;
      expect(value(text, 'ecf_taxauth_requests_in_flight', { operation: 'semilla' })).toBe(1);
      release();
      await pending;
      await expect(observeTaxauthCall('recepcion', () => Promise.reject(new TaxauthError('timeout', 'No answer')))).rejects.toThrow('No answer');
      text = (await api(a).get('/metrics', LOCAL)).body;
      expect(value(text, 'ecf_taxauth_requests_in_flight', { operation: 'semilla' })).toBe(0);
      expect(value(text, 'ecf_taxauth_request_duration_seconds_count', { operation: 'semilla', outcome: 'ok' })).toBe(1);
      expect(value(text, 'ecf_taxauth_request_duration_seconds_count', { operation: 'recepcion', outcome: 'timeout' })).toBe(1);
      // The other app counted the same calls in its own registry, and its HTTP series are its own.
      const other = (await api(b).get('/metrics', LOCAL)).body;
      expect(value(other, 'ecf_taxauth_request_duration_seconds_count', { operation: 'semilla', outcome: 'ok' })).toBe(1);
      expect(value(other, 'ecf_http_request_duration_seconds_count', { route: '/metrics' })).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
    // A closed app stops listening.
    await observeTaxauthCall('semilla', async () => 'ok');
  });

  it("the authority client's own calls feed them: a seed from the sandbox, and a refused validation", async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const authority = await sandbox();
    try {
      const client = new TaxauthClient({ baseUrl: `${authority.url}/testecf`, fcUrl: `${authority.url}/testecf`, timeoutMs: 5000 });
      expect(await client.seed()).toContain('<SemillaModel');
      await expect(client.validateSeed('<SemillaModel><valor>x</valor></SemillaModel>')).rejects.toBeInstanceOf(TaxauthError);
      const text = (await api(app).get('/metrics', LOCAL)).body;
      expect(value(text, 'ecf_taxauth_request_duration_seconds_count', { operation: 'semilla', outcome: 'ok' })).toBe(1);
      const refused = samples(text).filter((x) => x.name === 'ecf_taxauth_request_duration_seconds_count' && x.labels.operation !== 'semilla');
      expect(refused).toHaveLength(1);
      expect(refused[0]!.labels.outcome).not.toBe('ok');
      expect(value(text, 'ecf_taxauth_requests_in_flight', { operation: 'semilla' })).toBe(0);
    } finally {
      await app.close();
    }
  });
});

import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLoopback } from '../loopback.js';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo, listenToTaxauthCalls, PENDING_STATUS, storeSnapshot, type StoreSnapshot } from '../../engine/metrics/index.js';
import { getSetting } from '../../engine/settings/index.js';

/**
 * Prometheus metrics on GET /metrics. Who may read them is the
 * `metrics.exposure` setting, read on each scrape: `off` answers 404 to
 * everyone, `loopback` (the default) only to callers on this machine
 * (127.0.0.0/8, ::1, ::ffff:127.x), `public` to anyone who reaches the port.
 * A refused caller gets the same 404 as a path that does not exist, so the
 * endpoint's existence is not revealed. No API key: scrapers rarely carry one.
 *
 * Each app has its own Registry (never prom-client's global one), so several
 * apps in one process (tests) do not collide. prom-client is loaded by the
 * built app, never when the CLI starts, and not before the app answers.
 *
 * Series read from the store are cluster-wide and say so in their help
 * (CLUSTER_WIDE); the rest (HTTP, authority calls, build, process) are this
 * process's own and add up over nodes.
 *
 * Labels are bounded: environment (3), e-CF type (10), status, HTTP method,
 * the route's pattern (never the raw URL), the status code, the authority's
 * operation (10) and outcome (5), the tenant's RNC (bounded by the tenants).
 * No e-NCF, no id: webhook deliveries are counted per state across endpoints,
 * with the number of endpoints concerned and the most at any one endpoint.
 */
export type MetricsExposure = 'off' | 'loopback' | 'public';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TAXAUTH_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];
const DAY_MS = 86_400_000;

interface Metrics {
  readonly registry: Registry;
  readonly http: Histogram<'method' | 'route' | 'status_code'>;
  readonly taxauthInFlight: Gauge<'operation'>;
  readonly taxauthDuration: Histogram<'operation' | 'outcome'>;
  readonly storeUp: Gauge;
  readonly issued: Counter<'environment' | 'type'>;
  readonly accepted: Counter<'environment' | 'type'>;
  readonly rejected: Counter<'environment' | 'type'>;
  readonly backlog: Gauge<'environment'>;
  readonly oldestPending: Gauge;
  readonly contingency: Gauge;
  readonly failingSeconds: Gauge;
  readonly deliveries: Gauge<'status'>;
  readonly deliveryEndpoints: Gauge<'status'>;
  readonly deliveryMax: Gauge<'status'>;
  readonly endpoints: Gauge<'state'>;
  readonly certificateDays: Gauge<'tenant_rnc'>;
  readonly certificateExpiry: Gauge<'tenant_rnc'>;
  readonly encfRemaining: Gauge<'tenant_rnc' | 'environment' | 'type'>;
}

type PromClient = typeof import('prom-client');

/**
 * Said first in the help of every series read from the store. Every node of a
 * PostgreSQL cluster reads the same store, so each reports the cluster's
 * number: summed over nodes it would count each e-CF once per node.
 */
export const CLUSTER_WIDE = 'Cluster-wide (read from the shared store; every node reports the same value: aggregate with max, never sum):';

function createMetrics(client: PromClient): Metrics {
  const registry = new client.Registry();
  const registers = [registry];
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new client.Gauge<L>({ name, help, labelNames, registers });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new client.Counter<L>({ name, help, labelNames, registers });
  const cluster = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => gauge(name, `${CLUSTER_WIDE} ${help}`, labelNames);
  const clusterCounter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => counter(name, `${CLUSTER_WIDE} ${help}`, labelNames);
  // Per process, set once: which version answers, for dashboards that join on it (the usual *_build_info).
  const build = buildInfo();
  gauge('ecf_build_info', 'This process: always 1, labelled with the appliance version and the Node.js version it runs on', ['version', 'node_version'] as const).set(
    { version: build.version, node_version: build.nodeVersion },
    1,
  );
  return {
    registry,
    http: new client.Histogram({
      name: 'ecf_http_request_duration_seconds',
      help: 'HTTP requests this process served, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    taxauthInFlight: gauge('ecf_taxauth_requests_in_flight', 'Calls to the tax authority under way in this process', ['operation'] as const),
    taxauthDuration: new client.Histogram({
      name: 'ecf_taxauth_request_duration_seconds',
      help: 'Calls to the tax authority from this process, by operation and outcome (ok, http, timeout, network, protocol)',
      labelNames: ['operation', 'outcome'] as const,
      buckets: TAXAUTH_BUCKETS,
      registers,
    }),
    storeUp: gauge('ecf_store_up', 'This process: 1 when the store answered this scrape; the cluster-wide metrics are absent when 0'),
    issued: clusterCounter('ecf_issued_total', 'e-CF issued (signed), whatever their state now', ['environment', 'type'] as const),
    accepted: clusterCounter('ecf_accepted_total', 'e-CF the authority accepted (conditionally accepted included)', ['environment', 'type'] as const),
    rejected: clusterCounter('ecf_rejected_total', 'e-CF the authority rejected', ['environment', 'type'] as const),
    backlog: cluster('ecf_submission_backlog', 'e-CF signed and waiting for the authority\'s verdict', ['environment'] as const),
    oldestPending: cluster('ecf_submission_oldest_pending_age_seconds', 'Age of the oldest e-CF waiting for its verdict; 0 when none waits'),
    contingency: cluster('ecf_contingency_active', '1 while the platform is in contingency'),
    failingSeconds: cluster('ecf_taxauth_failing_seconds', 'How long calls to the authority have been failing with no success; 0 when not failing'),
    deliveries: cluster('ecf_webhook_deliveries', 'Webhook deliveries pending or dead, across endpoints', ['status'] as const),
    deliveryEndpoints: cluster('ecf_webhook_endpoints_with_deliveries', 'Webhook endpoints with at least one delivery in the state', ['status'] as const),
    deliveryMax: cluster('ecf_webhook_endpoint_deliveries_max', 'The most deliveries in the state at any one endpoint', ['status'] as const),
    endpoints: cluster('ecf_webhook_endpoints', 'Webhook endpoints, enabled or disabled', ['state'] as const),
    certificateDays: cluster('ecf_certificate_expiry_days', 'Whole days until the signing certificate of a tenant expires (ecf_certificate_expiry_timestamp_seconds is exact)', ['tenant_rnc'] as const),
    certificateExpiry: cluster('ecf_certificate_expiry_timestamp_seconds', 'When the signing certificate of a tenant expires, in Unix seconds (alert on it minus time())', ['tenant_rnc'] as const),
    encfRemaining: cluster('ecf_encf_remaining', 'e-NCF left in the active, unexpired ranges of a tenant, environment and type', ['tenant_rnc', 'environment', 'type'] as const),
  };
}

const STORE_DERIVED = (m: Metrics) =>
  [m.issued, m.accepted, m.rejected, m.backlog, m.oldestPending, m.contingency, m.failingSeconds, m.deliveries, m.deliveryEndpoints, m.deliveryMax, m.endpoints, m.certificateDays, m.certificateExpiry, m.encfRemaining] as const;

/** Sets the store-derived metrics from one snapshot; series that vanished from the store vanish here too. */
function apply(m: Metrics, s: StoreSnapshot, now: Date): void {
  for (const metric of STORE_DERIVED(m)) metric.reset();
  // Every environment and type with e-CF gets all three series (zeros included), so rates and ratios work.
  for (const r of s.ecf) {
    const labels = { environment: r.environment, type: String(r.type) };
    m.issued.inc(labels, r.n);
    m.accepted.inc(labels, r.status === 'accepted' || r.status === 'accepted_conditional' ? r.n : 0);
    m.rejected.inc(labels, r.status === 'rejected' ? r.n : 0);
    m.backlog.inc({ environment: r.environment }, r.status === PENDING_STATUS ? r.n : 0);
  }
  m.oldestPending.set(s.oldestPendingIssuedAt ? Math.max(0, (now.getTime() - Date.parse(s.oldestPendingIssuedAt)) / 1000) : 0);
  m.contingency.set(s.contingency.active ? 1 : 0);
  m.failingSeconds.set(s.contingency.failingSince ? Math.max(0, (now.getTime() - Date.parse(s.contingency.failingSince)) / 1000) : 0);
  for (const d of s.webhookDeliveries) {
    m.deliveries.set({ status: d.status }, d.deliveries);
    m.deliveryEndpoints.set({ status: d.status }, d.endpoints);
    m.deliveryMax.set({ status: d.status }, d.maxAtOneEndpoint);
  }
  m.endpoints.set({ state: 'enabled' }, s.webhookEndpoints.enabled);
  m.endpoints.set({ state: 'disabled' }, s.webhookEndpoints.disabled);
  for (const c of s.certificates) {
    m.certificateDays.set({ tenant_rnc: c.tenantRnc }, Math.floor((Date.parse(c.notAfter) - now.getTime()) / DAY_MS));
    m.certificateExpiry.set({ tenant_rnc: c.tenantRnc }, Date.parse(c.notAfter) / 1000);
  }
  for (const r of s.encfRemaining) m.encfRemaining.set({ tenant_rnc: r.tenantRnc, environment: r.environment, type: String(r.type) }, r.remaining);
}

/**
 * prom-client costs a few hundred milliseconds to load on a busy machine,
 * which `ecf serve` should not spend before it answers: it is loaded this long
 * after the app is built, or at the first scrape if that comes sooner.
 */
const PRELOAD_AFTER_MS = 2_000;
/** Observations made before prom-client is loaded are kept (this many at most) and replayed into it. */
const EARLY_CAP = 50_000;

/**
 * Registers GET /metrics and the hooks that time every request, on the root
 * instance so they see every route. Touches no store until the first scrape
 * (the route listing builds an app without one).
 */
export async function registerMetrics(app: FastifyInstance): Promise<void> {
  const { engine } = app;
  let client: PromClient | undefined;
  let metrics: Metrics | undefined;
  let loading: Promise<Metrics> | undefined;
  let defaults = false;
  const early: ((m: Metrics) => void)[] = [];
  const record = (observe: (m: Metrics) => void) => {
    if (metrics) observe(metrics);
    else if (early.length < EARLY_CAP) early.push(observe);
  };
  const load = (): Promise<Metrics> =>
    (loading ??= import('prom-client').then((loaded) => {
      const made = createMetrics(loaded);
      for (const observe of early.splice(0)) observe(made);
      client = loaded;
      metrics = made;
      return made;
    }));
  // Scrapes that arrive while a snapshot is being read share it: one set of store queries at a time.
  let reading: Promise<StoreSnapshot> | undefined;
  const snapshot = () => (reading ??= storeSnapshot(engine).finally(() => (reading = undefined)));
  const preload = setTimeout(() => void load().catch(() => undefined), PRELOAD_AFTER_MS);
  preload.unref();

  app.addHook('onResponse', async (request, reply) => {
    // The route's pattern; a request that matched no route is one series, whatever its URL.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    const seconds = reply.elapsedTime / 1000;
    record((m) => m.http.observe(labels, seconds));
  });

  const stopListening = listenToTaxauthCalls({
    started(operation) {
      const started = performance.now();
      record((m) => m.taxauthInFlight.inc({ operation }));
      return (outcome) => {
        const seconds = (performance.now() - started) / 1000;
        record((m) => {
          m.taxauthInFlight.dec({ operation });
          m.taxauthDuration.observe({ operation, outcome }, seconds);
        });
      };
    },
  });
  app.addHook('onClose', async () => {
    clearTimeout(preload);
    stopListening();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    let exposure: MetricsExposure;
    try {
      exposure = await getSetting(engine, 'metrics.exposure');
    } catch {
      // The setting lives in the store: with the store down, only this machine may look.
      exposure = 'loopback';
    }
    if (exposure === 'off' || (exposure === 'loopback' && !isLoopback(request.ip))) return reply.callNotFound();
    const m = await load();
    if (!defaults) {
      // Process metrics (event loop lag, memory, CPU, handles) start with the first scrape: an app
      // nobody scrapes (most tests) keeps no event-loop monitor running.
      client!.collectDefaultMetrics({ register: m.registry });
      defaults = true;
    }
    try {
      apply(m, await snapshot(), engine.clock.now());
      m.storeUp.set(1);
    } catch (err) {
      for (const metric of STORE_DERIVED(m)) metric.reset();
      m.storeUp.set(0);
      request.log.warn({ err }, 'metrics: the store did not answer');
    }
    reply.header('cache-control', 'no-store').type(m.registry.contentType);
    return m.registry.metrics();
  });
}

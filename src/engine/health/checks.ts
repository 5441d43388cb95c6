import { performance } from 'node:perf_hooks';
import type { Engine } from '../engine-types.js';
import { listCertificates } from '../certificates/certificates.js';
import { dominicanDate } from '../clock.js';
import type { Environment } from '../schema-types.js';
import { listRanges } from '../sequences/ranges.js';
import { parseAuthorityDate } from '../taxauth/parse.js';

/** One line of `ecf doctor`: what was checked, how it stands, and what to do about it. */
export type HealthCheck = {
  readonly check: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
};

const DAY_MS = 86_400_000;
/** A certificate or a range this close to its end is worth a warning. */
export const SOON_DAYS = 30;
/**
 * Past this difference between our clock and the authority's, signing times
 * and the seed's validity window stop lining up (NOTES: the seed must be
 * signed promptly; issue dates are Dominican days).
 */
export const MAX_CLOCK_SKEW_MS = 60_000;

const days = (ms: number): number => Math.floor(ms / DAY_MS);

async function tenants(engine: Engine) {
  return engine.db.selectFrom('tenants').select(['id', 'rnc', 'default_environment']).orderBy('rnc').execute();
}

/** Per tenant: a certificate that signs, and for how long. */
export async function certificateChecks(engine: Engine): Promise<HealthCheck[]> {
  const now = engine.clock.now();
  const checks: HealthCheck[] = [];
  for (const t of await tenants(engine)) {
    const check = `certificate ${t.rnc}`;
    const active = (await listCertificates(engine, t.id)).find((c) => c.status === 'active');
    if (!active) {
      checks.push({ check, status: 'warn', detail: `no certificate can sign for ${t.rnc}; import one: ecf cert import FILE --tenant ${t.rnc}` });
      continue;
    }
    const left = days(Date.parse(active.notAfter) - now.getTime());
    if (left < SOON_DAYS) {
      checks.push({ check, status: 'warn', detail: `the signing certificate expires in ${left} days (${active.notAfter.slice(0, 10)}); import its renewal: ecf cert import FILE --tenant ${t.rnc}` });
    } else {
      checks.push({ check, status: 'ok', detail: `signs until ${active.notAfter.slice(0, 10)} (${left} days)` });
    }
  }
  return checks;
}

/** Per tenant: every range with numbers left, not about to expire. */
export async function sequenceChecks(engine: Engine): Promise<HealthCheck[]> {
  const today = dominicanDate(engine.clock.now());
  const soon = new Date(Date.parse(`${today}T00:00:00Z`) + SOON_DAYS * DAY_MS).toISOString().slice(0, 10);
  const checks: HealthCheck[] = [];
  for (const t of await tenants(engine)) {
    const check = `sequences ${t.rnc}`;
    const ranges = (await listRanges(engine, t.id)).filter((r) => r.active);
    if (ranges.length === 0) {
      checks.push({ check, status: 'warn', detail: `no e-NCF ranges; load the authorized ones: ecf sequence add --tenant ${t.rnc} …` });
      continue;
    }
    const problems: string[] = [];
    for (const r of ranges) {
      const name = `${r.environment} E${r.type} ${r.rangeFrom}-${r.rangeTo}`;
      if (r.expiresOn && r.expiresOn < today) problems.push(`${name} expired on ${r.expiresOn}`);
      else if (r.remaining === 0) problems.push(`${name} is used up`);
      else if (r.isLowStock) problems.push(`${name} has ${r.remaining} of ${r.capacity} left`);
      else if (r.expiresOn && r.expiresOn <= soon) problems.push(`${name} expires on ${r.expiresOn}`);
    }
    checks.push(
      problems.length
        ? { check, status: 'warn', detail: `${problems.join('; ')}; request new ranges from the authority and load them with ecf sequence add` }
        : { check, status: 'ok', detail: `${ranges.length} ranges with numbers left` },
    );
  }
  return checks;
}

/** The environments some tenant works in: its default, and any with ranges. */
export async function environmentsInUse(engine: Engine): Promise<Environment[]> {
  const defaults = await engine.db.selectFrom('tenants').select('default_environment as environment').distinct().execute();
  const ranged = await engine.db.selectFrom('sequence_ranges').select('environment').distinct().execute();
  const order: Environment[] = ['test', 'cert', 'production'];
  const used = new Set([...defaults, ...ranged].map((r) => r.environment));
  return order.filter((e) => used.has(e));
}

/**
 * Per environment in use: the authority answers the seed request (no
 * certificate needed), and its clock, read from the seed's `fecha`, agrees
 * with ours.
 */
export async function authorityChecks(engine: Engine, environments?: readonly Environment[]): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  for (const env of environments ?? (await environmentsInUse(engine))) {
    const client = await engine.taxauth.client(env);
    const started = performance.now();
    let seed: string;
    try {
      seed = await client.seed();
    } catch (err) {
      checks.push({ check: `authority ${env}`, status: 'fail', detail: `${client.baseUrl} does not answer the seed request: ${err instanceof Error ? err.message : String(err)}; check the network, proxy and taxauth.url.${env}` });
      continue;
    }
    const sentAt = started + (performance.now() - started) / 2;
    checks.push({ check: `authority ${env}`, status: 'ok', detail: `${client.baseUrl} answered in ${Math.round(performance.now() - started)} ms` });
    const fecha = parseAuthorityDate(/<fecha>([^<]*)<\/fecha>/.exec(seed)?.[1]);
    if (!fecha) {
      checks.push({ check: `clock ${env}`, status: 'warn', detail: 'the seed carried no readable date, so the clock could not be compared' });
      continue;
    }
    // Our time at the middle of the round trip, against the authority's.
    const ours = engine.clock.now().getTime() - (performance.now() - sentAt);
    const skew = ours - fecha.getTime();
    const seconds = Math.round(skew / 1000);
    checks.push(
      Math.abs(skew) > MAX_CLOCK_SKEW_MS
        ? { check: `clock ${env}`, status: 'warn', detail: `this machine's clock is ${Math.abs(seconds)} s ${skew > 0 ? 'ahead of' : 'behind'} the authority's; turn on time synchronization (timedatectl set-ntp true, or the Windows time service)` }
        : { check: `clock ${env}`, status: 'ok', detail: `within ${Math.abs(seconds)} s of the authority's` },
    );
  }
  return checks;
}

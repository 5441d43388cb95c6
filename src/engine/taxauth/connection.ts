import { performance } from 'node:perf_hooks';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import type { Environment } from '../schema-types.js';
import { requireTenant } from '../tenants/lookup.js';
import { TaxauthError, type TaxauthErrorKind } from './errors.js';
import { defaultTokenCache, type TaxauthLogger, type TokenCache } from './token-cache.js';
import { authorityStatus, statusView, type AuthorityStatusView } from './authority-status.js';

/**
 * Whether a tenant can work with the tax authority in an environment: the
 * seed, signature and token flow run now (a cached token is replaced by a
 * fresh one, kept for later calls). The token itself is never part of the
 * answer nor of anything logged.
 */
export interface ConnectionCheck {
  readonly environment: Environment;
  /** The authority answered over HTTP (the seed, at least). */
  readonly ok: boolean;
  /** A token was obtained. */
  readonly authenticated: boolean;
  readonly elapsedMs: number;
  /** When the new token expires (Dominican ISO); null without one. */
  readonly tokenExpiresAt: string | null;
  readonly error: ConnectionError | null;
  /** The status host's word on this environment (read at most every few minutes); "status services not configured" without a key. */
  readonly authorityStatus: AuthorityStatusView;
}

export interface ConnectionError {
  /** A TaxauthError kind, or `certificate` when the tenant has no certificate that can sign. */
  readonly kind: TaxauthErrorKind | 'certificate';
  readonly status: number | null;
  readonly message: string;
}

export interface CheckConnectionOptions {
  readonly cache?: TokenCache;
  readonly logger?: TaxauthLogger;
}

export async function checkConnection(
  engine: Engine,
  tenantId: string,
  environment?: Environment | null,
  options: CheckConnectionOptions = {},
): Promise<ConnectionCheck> {
  const tenant = await requireTenant(engine.db, tenantId);
  const env = environment ?? (tenant.default_environment as Environment);
  const cache = options.cache ?? defaultTokenCache;
  const started = performance.now();
  // The status host is asked alongside the token, not after it: its own calls have their own timeout.
  const status = readStatus(engine, env);
  let result: Omit<ConnectionCheck, 'authorityStatus'>;
  try {
    const token = await cache.renew(engine, tenantId, env);
    result = { environment: env, ok: true, authenticated: true, elapsedMs: elapsed(started), tokenExpiresAt: toDominicanIso(token.expiresAt), error: null };
  } catch (e) {
    const error = connectionError(e);
    // The authority answered unless the failure was on the way there (or nothing came back).
    const ok = error.kind === 'http' || error.kind === 'protocol' || error.kind === 'certificate';
    result = { environment: env, ok, authenticated: false, elapsedMs: elapsed(started), tokenExpiresAt: null, error };
  }
  const { error, ...facts } = { ...result, authorityStatus: await status };
  if (error) options.logger?.warn({ tenantId, ...facts, error }, 'tax authority connection check failed');
  else options.logger?.info({ tenantId, ...facts }, 'tax authority connection check succeeded');
  return { ...result, authorityStatus: facts.authorityStatus };
}

/** Never throws: a status host that cannot be read is part of the answer, not a failed check. */
async function readStatus(engine: Engine, env: Environment): Promise<AuthorityStatusView> {
  try {
    return statusView(await authorityStatus(engine, { refresh: 'stale' }), env, engine.clock.now());
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { configured: true, checkedAt: null, status: null, available: null, servicesDown: [], inMaintenance: false, nextWindow: null, error: message, summary: message };
  }
}

const elapsed = (started: number): number => Math.round(performance.now() - started);

function connectionError(e: unknown): ConnectionError {
  if (e instanceof TaxauthError) return { kind: e.kind, status: e.status, message: e.message };
  if (e instanceof EngineError && e.code.startsWith('Certificate.')) return { kind: 'certificate', status: null, message: e.message };
  throw e;
}

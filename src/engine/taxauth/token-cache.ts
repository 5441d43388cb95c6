import { signingCredentials } from '../certificates/certificates.js';
import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { signCanonical, signingKey, type SigningKey } from '../signing/xmldsig.js';
import { serialize } from '../xml/canonical.js';
import type { TaxauthClient } from './client.js';
import { begin, eventOfError, prepared, step, type Limits } from './conversation.js';
import { TaxauthError, decodeEntities } from './errors.js';
import type { TokenGrant } from './types.js';

/**
 * Bearer tokens of the tax authority, one per tenant and environment
 * (NOTES §2): seed → sign with the tenant's certificate → validarsemilla.
 * A token is kept until 10 minutes before it expires, measured on the
 * engine's clock; concurrent callers share one renewal.
 *
 * The token is a credential. It is handed only to the function given to
 * `withToken` (which passes it to the client's methods) and to `token()`
 * callers; it is never logged, never put in an error and never part of what
 * `renew` or `checkConnection` return.
 */

/** Minimal logger, pino-compatible. */
export interface TaxauthLogger {
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
}

export interface TokenCacheOptions {
  /** Renew this long before the token expires (default 10 minutes, NOTES §2 via [PP]). */
  readonly renewBeforeMs?: number;
  /** Builds the client of an environment; by default from the platform settings. */
  readonly clientFor?: (engine: Engine, environment: Environment) => Promise<TaxauthClient>;
  readonly logger?: TaxauthLogger;
}

/** What is known of a token without the token itself. */
export interface TokenInfo {
  readonly expiresAt: Date;
  readonly issuedAt: Date;
  /** When the cache will fetch a new one, on the engine's clock. */
  readonly renewAt: Date;
  readonly certificateId: string;
}

interface Entry extends TokenInfo {
  readonly token: string;
  readonly baseUrl: string;
}

const DEFAULT_RENEW_BEFORE_MS = 10 * 60 * 1000;

/** withToken makes one call: its failures other than a 401 are the caller's, so no ladder applies here. */
const ONE_CALL: Limits = { polls: 0, transport: 0, busy: 0 };

export class TokenCache {
  readonly #renewBeforeMs: number;
  readonly #clientFor: (engine: Engine, environment: Environment) => Promise<TaxauthClient>;
  readonly #logger: TaxauthLogger | undefined;
  /** Per engine, so two engines in one process (tests, tools) never share tokens. */
  readonly #entries = new WeakMap<Engine, Map<string, Entry>>();
  readonly #pending = new WeakMap<Engine, Map<string, Promise<Entry>>>();

  constructor(options: TokenCacheOptions = {}) {
    this.#renewBeforeMs = options.renewBeforeMs ?? DEFAULT_RENEW_BEFORE_MS;
    this.#clientFor = options.clientFor ?? ((engine, environment) => engine.taxauth.client(environment));
    this.#logger = options.logger;
  }

  /** A valid token for the tenant in the environment: the cached one, or a new one. */
  async token(engine: Engine, tenantId: string, environment: Environment): Promise<string> {
    return (await this.#current(engine, tenantId, environment)).token;
  }

  /**
   * Calls `fn` with a token. If the authority answers 401 the token is
   * dropped, a new one fetched, and `fn` called once more; a second 401
   * is the caller's.
   */
  async withToken<T>(engine: Engine, tenantId: string, environment: Environment, fn: (token: string) => Promise<T>): Promise<T> {
    // The conversation (conversation.ts) says what a 401 leads to: one renewal, then the same call.
    let call = begin(prepared()).state;
    let entry = await this.#current(engine, tenantId, environment);
    for (;;) {
      try {
        return await fn(entry.token);
      } catch (e) {
        if (!(e instanceof TaxauthError)) throw e;
        const move = step(call, eventOfError(e), ONE_CALL);
        if (move.command.do !== 'renew-token') throw e;
        this.#log('warn', { tenantId, environment }, 'the tax authority refused the token (401); renewing it once');
        this.#drop(engine, key(tenantId, environment), entry.token);
        entry = await this.#current(engine, tenantId, environment);
        call = step(move.state, { type: 'renewed' }, ONE_CALL).state;
      }
    }
  }

  /** Fetches a new token now (replacing the cached one) and says when it expires. */
  async renew(engine: Engine, tenantId: string, environment: Environment): Promise<TokenInfo> {
    const k = key(tenantId, environment);
    const cached = this.#map(this.#entries, engine).get(k);
    if (cached) this.#drop(engine, k, cached.token);
    return info(await this.#current(engine, tenantId, environment));
  }

  /** What the cache holds for the tenant in the environment, without the token; null when nothing valid. */
  cached(engine: Engine, tenantId: string, environment: Environment): TokenInfo | null {
    const entry = this.#map(this.#entries, engine).get(key(tenantId, environment));
    return entry && engine.clock.now().getTime() < entry.renewAt.getTime() ? info(entry) : null;
  }

  /** Forgets the tenant's tokens (all environments unless one is given), e.g. after its certificate changes. */
  invalidate(engine: Engine, tenantId: string, environment?: Environment): void {
    const map = this.#map(this.#entries, engine);
    for (const env of environment ? [environment] : (['test', 'cert', 'production'] as const)) map.delete(key(tenantId, env));
  }

  async #current(engine: Engine, tenantId: string, environment: Environment): Promise<Entry> {
    const k = key(tenantId, environment);
    const client = await this.#clientFor(engine, environment);
    const entries = this.#map(this.#entries, engine);
    const cached = entries.get(k);
    if (cached && cached.baseUrl === client.baseUrl && engine.clock.now().getTime() < cached.renewAt.getTime()) return cached;

    const pending = this.#map(this.#pending, engine);
    let renewal = pending.get(k);
    if (!renewal) {
      renewal = this.#fetch(engine, tenantId, environment, client).finally(() => pending.delete(k));
      pending.set(k, renewal);
    }
    const entry = await renewal;
    entries.set(k, entry);
    return entry;
  }

  async #fetch(engine: Engine, tenantId: string, environment: Environment, client: TaxauthClient): Promise<Entry> {
    const startedAt = engine.clock.now().getTime();
    const { grant, certificateId } = await authenticate(engine, tenantId, client);
    // Measure the lifetime the authority gave on our own clock, so a skew between the two clocks does not matter.
    const declared = grant.expiresAt.getTime() - grant.issuedAt.getTime();
    const lifetime = declared > 0 ? declared : grant.expiresAt.getTime() - startedAt;
    const margin = Math.min(this.#renewBeforeMs, Math.max(0, lifetime) / 2);
    const renewAt = new Date(startedAt + lifetime - margin);
    this.#log('info', { tenantId, environment, expiresAt: grant.expiresAt.toISOString(), renewAt: renewAt.toISOString() }, 'tax authority token obtained');
    return { token: grant.token, expiresAt: grant.expiresAt, issuedAt: grant.issuedAt, renewAt, certificateId, baseUrl: client.baseUrl };
  }

  #drop(engine: Engine, k: string, token: string): void {
    const entries = this.#map(this.#entries, engine);
    if (entries.get(k)?.token === token) entries.delete(k);
  }

  #map<V>(store: WeakMap<Engine, Map<string, V>>, engine: Engine): Map<string, V> {
    let map = store.get(engine);
    if (!map) {
      map = new Map();
      store.set(engine, map);
    }
    return map;
  }

  #log(level: 'info' | 'warn', obj: Record<string, unknown>, msg: string): void {
    this.#logger?.[level](obj, msg);
  }
}

/** The process's token cache, held by the engine's port (`engine.taxauth.withToken`) and the connection check. */
export const defaultTokenCache = new TokenCache();

const key = (tenantId: string, environment: Environment): string => `${tenantId}\u0000${environment}`;

const info = (e: Entry): TokenInfo => ({ expiresAt: e.expiresAt, issuedAt: e.issuedAt, renewAt: e.renewAt, certificateId: e.certificateId });

/**
 * The whole authentication (NOTES §2): fetch the seed, sign it with the
 * tenant's certificate, exchange it for a token. The seed is fetched first,
 * so a tenant without a certificate still learns whether the authority
 * answers (connection.ts).
 */
export async function authenticate(engine: Engine, tenantId: string, client: TaxauthClient): Promise<{ grant: TokenGrant; certificateId: string }> {
  const seed = await client.seed();
  const credentials = await signingCredentials(engine, tenantId);
  const signed = signSeed(seed, signingKey(credentials.privateKey, credentials.certificate));
  const grant = await client.validateSeed(signed);
  return { grant, certificateId: credentials.certificateId };
}

/**
 * Signs the seed the authority sent. The document arrives pretty-printed
 * and its bytes are not what gets signed (NOTES §2 pitfalls): `valor`,
 * `fecha` and the root's attributes (xmlns:xsi, xmlns:xsd) are read out of
 * it, the document is written again in canonical form, and signed with the
 * root's namespaces declared for SignedInfo's canonical form.
 */
export function signSeed(seedXml: string, key: SigningKey): string {
  const root = /<SemillaModel((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*>/.exec(seedXml);
  const valor = /<valor>([^<]*)<\/valor>/.exec(seedXml)?.[1];
  const fecha = /<fecha>([^<]*)<\/fecha>/.exec(seedXml)?.[1];
  if (!root || valor === undefined || fecha === undefined) {
    throw new TaxauthError('protocol', 'Unexpected answer from the tax authority (semilla): no SemillaModel with valor and fecha.', {
      rawBody: seedXml,
      operation: 'semilla',
    });
  }
  const rootAttributes: Record<string, string> = Object.create(null);
  const rootNamespaces: [string, string][] = [];
  for (const m of (root[1] ?? '').matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = m[1]!;
    const value = decodeEntities(m[2] ?? m[3] ?? '');
    if (name === 'xmlns') continue; // a default namespace would move the elements out of no-namespace
    rootAttributes[name] = value;
    if (name.startsWith('xmlns:')) rootNamespaces.push([name.slice(6), value]);
  }
  const canonical = serialize('semilla', { valor: decodeEntities(valor), fecha: decodeEntities(fecha) }, { rootAttributes });
  return signCanonical(canonical, key, { rootNamespaces }).xml;
}

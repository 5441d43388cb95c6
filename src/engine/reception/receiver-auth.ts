import { createHash, randomBytes } from 'node:crypto';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine.js';
import { EngineError, ValidationError } from '../errors.js';
import { parseXml, textOf, verifySignature } from '../signing/verify.js';
import { unauthenticated } from '../tenants/access.js';
import { requireTenant } from '../tenants/tenants.js';
import { validateAgainstSchema } from '../xml/xsd.js';
import { getSetting } from '../settings/settings.js';
import { REQUIRE_BEARER_SETTING } from './queries.js';

/**
 * Authentication of callers of the tenant's receiver (NOTES §10.1), the
 * authority's own model turned around: GET a seed, sign it, POST it to
 * validacioncertificado for a bearer token. A seed is good for one
 * exchange within 5 minutes; a token for one hour. Both live in the memory
 * of the process that serves the receiver (a restart makes callers
 * authenticate again, which they do whenever a token is refused); tokens are
 * kept only as their SHA-256.
 */

export const SEED_LIFETIME_MS = 5 * 60_000;
export const TOKEN_LIFETIME_MS = 60 * 60_000;
const MAX_SEEDS = 10_000;
const MAX_TOKENS = 10_000;

interface State {
  readonly seeds: Map<string, { tenantId: string; expiresAt: number }>;
  readonly tokens: Map<string, { tenantId: string; expiresAt: number }>;
}

const states = new WeakMap<Engine, State>();
function stateOf(engine: Engine): State {
  let s = states.get(engine);
  if (!s) {
    s = { seeds: new Map(), tokens: new Map() };
    states.set(engine, s);
  }
  return s;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Keeps a map under its cap by dropping expired entries, then the oldest. */
function prune(map: Map<string, { expiresAt: number }>, now: number, cap: number): void {
  if (map.size < cap) return;
  for (const [k, v] of map) if (v.expiresAt <= now) map.delete(k);
  while (map.size >= cap) map.delete(map.keys().next().value!);
}

/** A new seed document (SemillaModel, as the authority writes it), a different `valor` each time. */
export async function issueReceiverSeed(engine: Engine, tenantId: string): Promise<string> {
  await requireTenant(engine.db, tenantId);
  const now = engine.clock.now();
  const { seeds } = stateOf(engine);
  prune(seeds, now.getTime(), MAX_SEEDS);
  const valor = randomBytes(48).toString('base64');
  seeds.set(valor, { tenantId, expiresAt: now.getTime() + SEED_LIFETIME_MS });
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
    `<valor>${valor}</valor><fecha>${toDominicanIso(now)}</fecha></SemillaModel>`
  );
}

export interface ReceiverToken {
  readonly token: string;
  /** yyyy-MM-ddTHH:mm:ssZ, as the authority writes them. */
  readonly expira: string;
  readonly expedido: string;
}

const refuse = (message: string) => new ValidationError([{ path: 'xml', code: 'Receiver.SeedRefused', message }], message);
const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** Checks a signed seed (schema, signature, one of ours for this tenant, unused, in time) and gives a token. */
export async function validateReceiverSeed(engine: Engine, tenantId: string, xml: string): Promise<ReceiverToken> {
  await requireTenant(engine.db, tenantId);
  const now = engine.clock.now();
  const parsed = parseXml(xml);
  if (!parsed.ok) throw refuse(parsed.reason);
  if (parsed.root.localName !== 'SemillaModel') throw refuse('the document is not a SemillaModel');
  const schema = validateAgainstSchema('semilla', xml);
  if (!schema.valid) throw refuse(`the seed does not follow its schema: ${schema.errors.slice(0, 3).join('; ')}`);
  const signature = verifySignature(xml, parsed, now);
  if (!signature.ok) throw refuse(`the signature is not valid: ${signature.reason}`);
  const { seeds, tokens } = stateOf(engine);
  const valor = textOf(parsed.root, 'valor') ?? '';
  const seed = seeds.get(valor);
  if (!seed || seed.tenantId !== tenantId) throw refuse('the seed was not issued by this receiver');
  seeds.delete(valor);
  if (seed.expiresAt <= now.getTime()) throw refuse('the seed expired; ask for a new one');
  prune(tokens, now.getTime(), MAX_TOKENS);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS);
  tokens.set(hash(token), { tenantId, expiresAt: expiresAt.getTime() });
  return { token, expira: isoSeconds(expiresAt), expedido: isoSeconds(now) };
}

/**
 * Who may call the tenant's receiver routes: anyone while the tenant does not
 * require a bearer token, otherwise a caller with a live token of this
 * tenant. `authorization` null: a route that needs no token (seed and
 * token exchange). An unknown tenant is 404.
 */
export async function receiverScope(engine: Engine, tenantId: string, authorization: string | undefined | null): Promise<string> {
  await requireTenant(engine.db, tenantId);
  if (authorization === null) return tenantId;
  if ((await getSetting<boolean>(engine, REQUIRE_BEARER_SETTING, tenantId)) !== true) return tenantId;
  const m = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw unauthenticated('Receiver.TokenRequired', 'This receiver requires a bearer token from /fe/autenticacion/api/validacioncertificado.');
  const entry = stateOf(engine).tokens.get(hash(m[1]!));
  if (!entry || entry.tenantId !== tenantId || entry.expiresAt <= engine.clock.now().getTime()) {
    throw unauthenticated('Receiver.TokenInvalid', 'The bearer token is unknown or expired; authenticate again.');
  }
  return tenantId;
}

export const receiverUnavailable = (message: string) => new EngineError('unavailable', 'Receiver.Unavailable', message);

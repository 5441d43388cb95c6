import { randomBytes } from 'node:crypto';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError } from '../errors.js';
import { parseXml, textOf, verifySignature } from '../signing/verify.js';
import { unauthenticated } from '../tenants/access.js';
import { requireTenant } from '../tenants/lookup.js';
import { validateAgainstSchema } from '../xml/xsd.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction } from '../store/database.js';
import { REQUIRE_BEARER_SETTING } from './queries.js';
import { keepCredential, spendSeed, tokenIsLive } from './receiver-credentials.js';

/**
 * Authentication of callers of the tenant's receiver (NOTES §10.1), the
 * authority's own model turned around: GET a seed, sign it, POST it to
 * validacioncertificado for a bearer token. A seed is good for one
 * exchange within 5 minutes; a token for one hour. Both are kept in the
 * store, as hashes (receiver-credentials.ts), so every node of a cluster
 * answers every step and a restart keeps them.
 */

export const SEED_LIFETIME_MS = 5 * 60_000;
export const TOKEN_LIFETIME_MS = 60 * 60_000;
/** Live seeds and tokens kept per tenant; past that the oldest go. */
const MAX_SEEDS = 10_000;
const MAX_TOKENS = 10_000;

/** A new seed document (SemillaModel, as the authority writes it), a different `valor` each time. */
export async function issueReceiverSeed(engine: Engine, tenantId: string): Promise<string> {
  await requireTenant(engine.db, tenantId);
  const now = engine.clock.now();
  const valor = randomBytes(48).toString('base64');
  await inTransaction(engine.db, (tx) => keepCredential(tx, 'reception_seeds', tenantId, valor, now, new Date(now.getTime() + SEED_LIFETIME_MS), MAX_SEEDS));
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
  const valor = textOf(parsed.root, 'valor') ?? '';
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS);
  // The seed is spent even when it turns out expired: the transaction commits, and the refusal comes after.
  const outcome = await inTransaction(engine.db, async (tx) => {
    const seedExpiresAt = await spendSeed(tx, tenantId, valor);
    if (!seedExpiresAt) return 'unknown' as const;
    if (seedExpiresAt.getTime() <= now.getTime()) return 'expired' as const;
    await keepCredential(tx, 'reception_tokens', tenantId, token, now, expiresAt, MAX_TOKENS);
    return 'granted' as const;
  });
  if (outcome === 'unknown') throw refuse('the seed was not issued by this receiver');
  if (outcome === 'expired') throw refuse('the seed expired; ask for a new one');
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
  if ((await getSetting(engine, REQUIRE_BEARER_SETTING, tenantId)) !== true) return tenantId;
  const m = /^bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw unauthenticated('Receiver.TokenRequired', 'This receiver requires a bearer token from /fe/autenticacion/api/validacioncertificado.');
  if (!(await tokenIsLive(engine.db, tenantId, m[1]!, engine.clock.now()))) {
    throw unauthenticated('Receiver.TokenInvalid', 'The bearer token is unknown or expired; authenticate again.');
  }
  return tenantId;
}

export const receiverUnavailable = (message: string) => new EngineError('unavailable', 'Receiver.Unavailable', message);

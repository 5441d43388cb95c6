import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { toDominicanIso } from '../clock.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, notFound, type FieldError } from '../errors.js';
import { UNSUBSCRIBABLE, typesMatching, typesNamedBy } from '../events/catalogue.js';
import { endpointEventsOf } from '../events/endpoint-events.js';
import { isUuid, newId } from '../ids.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { getSetting } from '../settings/settings.js';
import { inTransaction, type Db } from '../store/database.js';
import type { WebhookEndpointsTable } from '../store/schema.js';
import { requireTenant } from '../tenants/lookup.js';
import { emitted } from '../tenants/views.js';
import { fieldErrors } from '../validation.js';
import { AddressRefused, checkTarget, parseAllowed, type Resolver } from './address-guard.js';
import { DISABLED_BY_TENANT, MAX_ENDPOINTS_PER_TENANT } from './rules.js';
import { CreateWebhookBody, UpdateWebhookBody, type CreatedWebhook, type SecretResult, type WebhookEndpointView } from './schemas.js';
import { schemeProblem, type SendPolicy } from './send.js';
import { newWebhookSecret } from './signature.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export function endpointView(r: EndpointRow): WebhookEndpointView {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    url: r.url,
    description: r.description,
    events: endpointEventsOf(r.events),
    enabled: r.enabled === 1,
    consecutiveFailures: r.consecutive_failures,
    disabledReason: r.disabled_reason,
    disabledAt: emitted(r.disabled_at),
    createdAt: toDominicanIso(r.created_at),
    updatedAt: emitted(r.updated_at),
  };
}

/** Ways to reach the network that tests replace; production uses the system resolver. */
export interface GuardOptions {
  readonly resolve?: Resolver | undefined;
}

/** The operator's webhook settings, read before any transaction or network call. */
export async function sendPolicy(engine: Engine, options: GuardOptions & { timeoutMs?: number | undefined } = {}): Promise<SendPolicy> {
  const [developmentMode, cidrs] = await Promise.all([
    getSetting(engine, 'webhooks.development_mode'),
    getSetting(engine, 'webhooks.allowed_private_cidrs'),
  ]);
  return { developmentMode, allowedCidrs: parseAllowed(cidrs), resolve: options.resolve, timeoutMs: options.timeoutMs };
}

export async function loadEndpoint(db: Db, tenantId: string, id: string): Promise<EndpointRow> {
  const row = isUuid(id)
    ? await db.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Webhook');
  return row;
}

export async function listWebhooks(engine: Engine, tenantId: string): Promise<WebhookEndpointView[]> {
  await requireTenant(engine.db, tenantId);
  const rows = await engine.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(endpointView);
}

export async function getWebhook(engine: Engine, tenantId: string, id: string): Promise<WebhookEndpointView> {
  return endpointView(await loadEndpoint(engine.db, tenantId, id));
}

/**
 * Problems with the entries of `events`: each an existing type, a category wildcard or `*`; never
 * only types the catalogue keeps unsubscribable (webhook.ping, or webhook.* which names nothing else).
 */
function eventErrors(events: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  events.forEach((entry, i) => {
    const path = `events[${i}]`;
    const named = typesNamedBy(entry);
    if (named.length > 0 && named.every((t) => UNSUBSCRIBABLE.has(t))) {
      errors.push({ path, code: 'Webhook.PingNotSubscribable', message: `${named.join(', ')} is sent only by the ping operation and cannot be subscribed to` });
    } else if (typesMatching(entry).length === 0) {
      errors.push({
        path,
        code: 'Webhook.UnknownEventType',
        message: `${entry} is not an event type; use an existing type (ecf.accepted), a category wildcard (ecf.*) or *`,
      });
    }
  });
  return errors;
}

/** Problems with the URL that need no network: absolute, scheme, no credentials or fragment. */
function urlErrors(text: string, developmentMode: boolean): FieldError[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [{ path: 'url', code: 'Webhook.UrlNotAbsolute', message: 'must be an absolute URL such as https://erp.example.com/hooks/ecf' }];
  }
  const scheme = schemeProblem(url, developmentMode);
  if (scheme) return [{ path: 'url', code: url.protocol === 'http:' ? 'Webhook.HttpsRequired' : 'Webhook.UrlScheme', message: scheme }];
  if (url.username || url.password) return [{ path: 'url', code: 'Webhook.UrlCredentials', message: 'must not carry a user name or password' }];
  if (url.hash) return [{ path: 'url', code: 'Webhook.UrlFragment', message: 'must not carry a fragment (#...)' }];
  return [];
}

/** Shape errors and the rules above, all at once. */
function validate(schema: typeof CreateWebhookBody | typeof UpdateWebhookBody, input: unknown, developmentMode: boolean): void {
  const errors = fieldErrors(schema, input);
  const body = (input ?? {}) as { url?: unknown; events?: unknown };
  const shapeFailed = (field: string) => errors.some((e) => e.path === field || e.path.startsWith(`${field}[`) || e.path.startsWith(`${field}.`));
  if (typeof body.url === 'string' && !shapeFailed('url')) errors.push(...urlErrors(body.url, developmentMode));
  if (Array.isArray(body.events) && !shapeFailed('events')) errors.push(...eventErrors(body.events as string[]));
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * The SSRF guard at subscription: resolves the host and refuses private and
 * reserved addresses. Returns the URL as the WHATWG parser normalises it, the
 * form that is stored and checked again at every delivery.
 */
async function guardUrl(text: string, policy: SendPolicy): Promise<string> {
  const url = new URL(text);
  try {
    await checkTarget(url, policy.allowedCidrs, policy.resolve);
  } catch (e) {
    if (e instanceof AddressRefused) throw new ValidationError([{ path: 'url', code: e.code, message: e.message }]);
    throw e;
  }
  return url.href;
}

const unique = (entries: readonly string[]) => [...new Set(entries)];

async function countEndpoints(db: Db, tenantId: string): Promise<number> {
  const r = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const limitReached = () =>
  new EngineError('validation', 'Webhook.LimitReached', `A tenant may hold at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.`);

/** Secrets by store and name, per process. A rotation writes a new name, so a cached secret is never stale. */
const secrets = new Map<string, Promise<string>>();
const cacheKey = (store: string, ref: string) => `${store}:${ref}`;

/** The endpoint's whsec_ secret, from the secret store. */
export function endpointSecret(engine: Engine, row: Pick<EndpointRow, 'id' | 'secret_store' | 'secret_ref'>): Promise<string> {
  const key = cacheKey(row.secret_store, row.secret_ref);
  let secret = secrets.get(key);
  if (!secret) {
    secret = engine.secrets.of(row.secret_store as SecretStoreKind)
      .get(row.secret_ref)
      .then((raw) => {
        if (!raw) {
          throw new EngineError('unavailable', 'Webhook.SecretMissing', `The secret store (${row.secret_store}) no longer holds the secret of webhook ${row.id}; rotate it.`);
        }
        return raw.toString('utf8');
      });
    secrets.set(key, secret);
    secret.catch(() => secrets.delete(key));
  }
  return secret;
}

async function forgetSecret(engine: Engine, store: string, ref: string): Promise<void> {
  secrets.delete(cacheKey(store, ref));
  await engine.secrets.of(store as SecretStoreKind).delete(ref).catch(() => undefined);
}

/** A new secret in the secret store under a name of its own; the row is written after. */
async function storeNewSecret(engine: Engine, endpointId: string): Promise<{ secret: string; store: SecretStoreKind; ref: string }> {
  const secret = newWebhookSecret();
  const store = await engine.secrets.current();
  const ref = `webhook/${endpointId}/${randomBytes(6).toString('hex')}`;
  await store.put(ref, Buffer.from(secret, 'utf8'));
  return { secret, store: store.kind, ref };
}

/**
 * Subscribes an endpoint: checks the body, the tenant's endpoint limit and
 * the URL (resolving its host), keeps a new secret in the secret store and
 * returns it with the endpoint. The secret is never shown again.
 */
export async function createWebhook(engine: Engine, tenantId: string, input: unknown, options: GuardOptions = {}): Promise<CreatedWebhook> {
  await requireTenant(engine.db, tenantId);
  const policy = await sendPolicy(engine, options);
  validate(CreateWebhookBody, input, policy.developmentMode);
  const body = input as CreateWebhookBody;
  if ((await countEndpoints(engine.db, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) throw limitReached();
  const url = await guardUrl(body.url, policy);

  const id = newId();
  const stored = await storeNewSecret(engine, id);
  try {
    await inTransaction(engine.db, async (tx) => {
      // Counted again inside the write transaction: two concurrent creations cannot both pass.
      if ((await countEndpoints(tx, tenantId)) >= MAX_ENDPOINTS_PER_TENANT) throw limitReached();
      await tx
        .insertInto('webhook_endpoints')
        .values({
          id,
          tenant_id: tenantId,
          url,
          description: body.description ?? null,
          events: JSON.stringify(unique(body.events)),
          enabled: 1,
          consecutive_failures: 0,
          disabled_reason: null,
          disabled_at: null,
          secret_store: stored.store,
          secret_ref: stored.ref,
          created_at: engine.clock.now().toISOString(),
          updated_at: null,
        })
        .execute();
    });
  } catch (e) {
    await forgetSecret(engine, stored.store, stored.ref);
    throw e;
  }
  return { endpoint: await getWebhook(engine, tenantId, id), secret: stored.secret };
}

/**
 * PATCH: changes the fields given. `enabled: false` pauses (deliveries wait,
 * new events are not queued for it); `enabled: true` re-enables and resets
 * `consecutiveFailures`. Answers the endpoint view.
 */
export async function updateWebhook(engine: Engine, tenantId: string, id: string, input: unknown, options: GuardOptions = {}): Promise<WebhookEndpointView> {
  await loadEndpoint(engine.db, tenantId, id);
  const policy = await sendPolicy(engine, options);
  validate(UpdateWebhookBody, input, policy.developmentMode);
  const body = input as UpdateWebhookBody;
  const url = body.url === undefined ? undefined : await guardUrl(body.url, policy);
  const now = engine.clock.now().toISOString();
  await inTransaction(engine.db, async (tx) => {
    const row = await loadEndpoint(tx, tenantId, id);
    const changes: Partial<EndpointRow> = {};
    if (url !== undefined) changes.url = url;
    if (body.events !== undefined) changes.events = JSON.stringify(unique(body.events));
    if (body.description !== undefined) changes.description = body.description;
    if (body.enabled === true) {
      Object.assign(changes, { enabled: 1, consecutive_failures: 0, disabled_reason: null, disabled_at: null });
    } else if (body.enabled === false && row.enabled === 1) {
      Object.assign(changes, { enabled: 0, disabled_reason: DISABLED_BY_TENANT, disabled_at: now });
    }
    if (Object.keys(changes).length === 0 && Object.keys(body).length === 0) return;
    await tx.updateTable('webhook_endpoints').set({ ...changes, updated_at: now }).where('id', '=', id).execute();
  });
  return getWebhook(engine, tenantId, id);
}

/** Removes the endpoint and its delivery log at once; nothing more is sent to it. */
export async function deleteWebhook(engine: Engine, tenantId: string, id: string): Promise<void> {
  const row = await inTransaction(engine.db, async (tx) => {
    const found = await loadEndpoint(tx, tenantId, id);
    await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await tx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    return found;
  });
  await forgetSecret(engine, row.secret_store, row.secret_ref);
}

/** A new secret; the previous one stops signing at once (every delivery reads the endpoint's current secret). */
export async function rotateWebhookSecret(engine: Engine, tenantId: string, id: string): Promise<SecretResult> {
  const before = await loadEndpoint(engine.db, tenantId, id);
  const stored = await storeNewSecret(engine, id);
  let replaced: boolean;
  try {
    replaced = await inTransaction(engine.db, async (tx) => {
      const r = await tx
        .updateTable('webhook_endpoints')
        .set({ secret_store: stored.store, secret_ref: stored.ref, updated_at: engine.clock.now().toISOString() })
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .where('secret_ref', '=', before.secret_ref)
        .executeTakeFirst();
      return r.numUpdatedRows > 0n;
    });
  } catch (e) {
    await forgetSecret(engine, stored.store, stored.ref);
    throw e;
  }
  if (!replaced) {
    // Deleted, or rotated by someone else meanwhile: this secret never became the endpoint's.
    await forgetSecret(engine, stored.store, stored.ref);
    await loadEndpoint(engine.db, tenantId, id);
    throw new EngineError('conflict', 'Webhook.RotationRaced', 'The secret was rotated by another request at the same moment; rotate again.');
  }
  await forgetSecret(engine, before.secret_store, before.secret_ref);
  return { secret: stored.secret };
}

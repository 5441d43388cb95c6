import { Value } from '@sinclair/typebox/value';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError } from '../errors.js';
import { fieldErrors } from '../validation.js';
import { parseJsonColumn } from '../json-column.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { inTransaction, type Db, type Tx } from '../store/database.js';
import { appendJournal } from '../journal/append.js';
import { prepared } from '../store/prepared.js';
import { SETTINGS, settingDefinition, type SettingDefinition, type SettingKey, type SettingKeyOf, type SettingValue, type SettingValues } from './catalogue.js';

const PLATFORM = 'platform';

export interface SettingView {
  readonly key: string;
  readonly value: unknown;
  /** Where the effective value comes from. */
  readonly source: 'default' | 'platform' | 'tenant';
  readonly scope: SettingDefinition['scope'];
  readonly default: unknown;
  readonly description: string;
}

function definition(key: string): SettingDefinition {
  const def = settingDefinition(key);
  if (!def) {
    throw new ValidationError(
      [{ path: 'key', code: 'UnknownSetting', message: `unknown setting; known: ${SETTINGS.map((s) => s.key).join(', ')}` }],
      `Unknown setting ${key}.`,
    );
  }
  return def;
}

/**
 * The effective value: the tenant's own, else the platform's, else the default,
 * typed by the key's schema and checked against it on read (a stored value that
 * does not fit is a DamagedColumnError naming the key, never a silent cast).
 */
export async function getSetting<K extends SettingKey>(engine: Engine, key: K, tenantId?: string | null): Promise<SettingValue<K>> {
  return (await settingView(engine, key, tenantId)).value as SettingValue<K>;
}

/** A stored value read back through its setting's schema. */
const storedValue = (def: SettingDefinition, scope: string, text: string): unknown =>
  parseJsonColumn(def.schema, text, `settings.value of ${def.key} (scope ${scope})`);

const keyRows = prepared((db, p: { key: string; tenantId: string; platform: string }) =>
  db
    .selectFrom('settings')
    .select(['scope', 'value'])
    .where('key', '=', p.key)
    .where((eb) => eb.or([eb('scope', '=', p.tenantId), eb('scope', '=', p.platform)])),
);

export async function settingView(engine: Engine, key: string, tenantId?: string | null): Promise<SettingView> {
  const def = definition(key);
  // A platform-only setting never takes a tenant's row: both scopes are asked for the platform's then.
  const own = tenantId && def.scope === 'tenant' ? tenantId : PLATFORM;
  const rows = await keyRows(engine.db, { key, tenantId: own, platform: PLATFORM });
  const tenantRow = rows.find((r) => r.scope !== PLATFORM);
  const platform = rows.find((r) => r.scope === PLATFORM);
  const hit = tenantRow ?? platform;
  return {
    key,
    value: hit ? storedValue(def, hit.scope, hit.value) : def.default,
    source: tenantRow ? 'tenant' : platform ? 'platform' : 'default',
    scope: def.scope,
    default: def.default,
    description: def.description,
  };
}

/** Several effective values in one read (the issuing path reads five per request); answered from memory until the store changes. */
const scopeRows = prepared(
  (db, p: { tenantId: string; platform: string }) =>
    db.selectFrom('settings').select(['scope', 'key', 'value']).where((eb) => eb.or([eb('scope', '=', p.tenantId), eb('scope', '=', p.platform)])),
  { reuseUntilCommit: true },
);

export async function getSettings<K extends SettingKey>(engine: Engine, keys: readonly K[], tenantId: string): Promise<SettingValues<K>> {
  return settingsIn(engine.db, keys, tenantId);
}

/** getSettings read through the caller's connection or transaction. */
export async function settingsIn<K extends SettingKey>(db: Db, keys: readonly K[], tenantId: string): Promise<SettingValues<K>> {
  const defs = keys.map(definition);
  // Every row of both scopes (a few dozen at most): one statement whatever keys are asked for.
  const rows = await scopeRows(db, { tenantId, platform: PLATFORM });
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const own = def.scope === 'tenant' ? rows.find((r) => r.key === def.key && r.scope === tenantId) : undefined;
    const hit = own ?? rows.find((r) => r.key === def.key && r.scope === PLATFORM);
    out[def.key] = hit ? storedValue(def, hit.scope, hit.value) : def.default;
  }
  // Each value was checked against its own key's schema just above.
  return out as SettingValues<K>;
}

export async function listSettings(engine: Engine, tenantId?: string | null): Promise<SettingView[]> {
  if (tenantId) await requireTenant(engine.db, tenantId);
  return Promise.all(SETTINGS.map((s) => settingView(engine, s.key, tenantId)));
}

/**
 * Reads a value typed on a command line: JSON when it parses (0.2, true,
 * null, "x"), the raw text otherwise (managed, 08:00-18:00).
 */
export function parseSettingText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function setSetting(
  engine: Engine,
  key: string,
  value: unknown,
  tenantId?: string | null,
): Promise<SettingView> {
  const def = definition(key);
  if (tenantId && def.scope === 'platform') {
    throw new EngineError('validation', 'Settings.PlatformOnly', `${key} is a platform setting and cannot be set per tenant.`);
  }
  if (tenantId) await requireTenant(engine.db, tenantId);
  const errors = fieldErrors(def.schema, value, 'value');
  if (errors.length > 0) throw new ValidationError(errors, `Invalid value for ${key}.`);
  const scope = tenantId ?? PLATFORM;
  const row = { scope, key, value: JSON.stringify(Value.Clone(value)), updated_at: engine.clock.now().toISOString() };
  await inTransaction(engine.db, async (tx) => {
    await tx
      .insertInto('settings')
      .values(row)
      .onConflict((oc) => oc.columns(['scope', 'key']).doUpdateSet({ value: row.value, updated_at: row.updated_at }))
      .execute();
    if (tenantId) await journalSetting(tx, engine.clock.now(), tenantId, key, row.value);
  });
  return settingView(engine, key, tenantId);
}

/**
 * A tenant's setting changed: its new value as stored (JSON text), or no
 * data when the override was removed. Platform settings are not a tenant's
 * record and have no entry; a setting holding a secret would record no value
 * (none does: secrets live in the secret store, not in settings).
 */
async function journalSetting(tx: Tx, now: Date, tenantId: string, key: string, value: string | null): Promise<void> {
  appendJournal(tx, now, { tenantKey: await tenantKey(tx, tenantId), kind: 'settings.changed', ref: key, data: value });
}

/** Removes an override so the platform value or the default applies again. */
export async function unsetSetting(engine: Engine, key: string, tenantId?: string | null): Promise<SettingView> {
  definition(key);
  if (tenantId) await requireTenant(engine.db, tenantId);
  await inTransaction(engine.db, async (tx) => {
    const removed = await tx.deleteFrom('settings').where('key', '=', key).where('scope', '=', tenantId ?? PLATFORM).executeTakeFirst();
    if (tenantId && Number(removed.numDeletedRows) > 0) await journalSetting(tx, engine.clock.now(), tenantId, key, null);
  });
  return settingView(engine, key, tenantId);
}

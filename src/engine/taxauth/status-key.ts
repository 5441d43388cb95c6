import { Type, type Static } from '@sinclair/typebox';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { parseJsonColumn } from '../json-column.js';
import type { SecretStoreKind } from '../secrets/secret-store.js';
import { inTransaction, type Db } from '../store/database.js';

/**
 * The API key of the authority's status services (NOTES §3), one for the
 * whole appliance. It rests in the secret store like certificate
 * passwords (keychain, or sealed with the key outside the database); the
 * store only records where: `platform_state` row `taxauth.status_key` =
 * `{store, ref, setAt, hint}`, `hint` being the key's last four characters
 * so an operator can tell which key is set without seeing it.
 */

export const STATUS_KEY_STATE = 'taxauth.status_key';
const SECRET_REF = 'taxauth/status-api-key';

/** The `platform_state` row's value: where the key rests (the secret store's kinds), its name there, when and which. */
const KeyRecordValue = Type.Object({
  store: Type.Union([Type.Literal('keychain'), Type.Literal('file')]),
  ref: Type.String(),
  setAt: Type.String(),
  hint: Type.String(),
});
type KeyRecord = Readonly<Static<typeof KeyRecordValue>> & { readonly store: SecretStoreKind };

export interface StatusKeyInfo {
  readonly configured: boolean;
  /** Where it rests: keychain or file. */
  readonly store: SecretStoreKind | null;
  readonly setAt: string | null;
  /** e.g. …a1b2 */
  readonly hint: string | null;
}

/** The API key's allowed shape: printable, no spaces (it travels in a header). */
const KEY = /^[\x21-\x7e]{8,512}$/;

async function record(db: Db): Promise<KeyRecord | null> {
  const row = await db.selectFrom('platform_state').select('value').where('key', '=', STATUS_KEY_STATE).executeTakeFirst();
  return row ? parseJsonColumn(KeyRecordValue, row.value, `platform_state.value of ${STATUS_KEY_STATE}`) : null;
}

/** Whether a key is set, and which, without opening it. */
export async function statusKeyInfo(engine: Engine): Promise<StatusKeyInfo> {
  const r = await record(engine.db);
  return r ? { configured: true, store: r.store, setAt: r.setAt, hint: r.hint } : { configured: false, store: null, setAt: null, hint: null };
}

/** Stores the key (replacing any), sealed in the current secret store. */
export async function setStatusKey(engine: Engine, apiKey: string): Promise<StatusKeyInfo> {
  const key = apiKey.trim();
  if (!KEY.test(key)) {
    throw new EngineError('validation', 'Taxauth.StatusKeyInvalid', 'The status API key must be 8 to 512 printable characters without spaces, as the authority issued it.');
  }
  const previous = await record(engine.db);
  const store = await engine.secrets.current();
  // The secret is written before the row that names it; a key in another store is removed after.
  await store.put(SECRET_REF, Buffer.from(key, 'utf8'));
  const now = engine.clock.now();
  const next: KeyRecord = { store: store.kind, ref: SECRET_REF, setAt: now.toISOString(), hint: `…${key.slice(-4)}` };
  await inTransaction(engine.db, async (tx) => {
    const value = JSON.stringify(next);
    await tx
      .insertInto('platform_state')
      .values({ key: STATUS_KEY_STATE, value, updated_at: now.toISOString() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now.toISOString() }))
      .execute();
    // What was read with the old key says nothing about the new one.
    await tx.deleteFrom('platform_state').where('key', '=', STATUS_SNAPSHOT_STATE).execute();
  });
  if (previous && previous.store !== store.kind) await engine.secrets.of(previous.store).delete(previous.ref).catch(() => undefined);
  return { configured: true, store: next.store, setAt: next.setAt, hint: next.hint };
}

/** Forgets the key; true when one was set. */
export async function unsetStatusKey(engine: Engine): Promise<boolean> {
  const previous = await record(engine.db);
  if (!previous) return false;
  await inTransaction(engine.db, async (tx) => {
    await tx.deleteFrom('platform_state').where('key', 'in', [STATUS_KEY_STATE, STATUS_SNAPSHOT_STATE]).execute();
  });
  await engine.secrets.of(previous.store).delete(previous.ref).catch(() => undefined);
  return true;
}

/**
 * The key in clear, for the status client only; null when none is set.
 * A row whose secret is gone (a store moved without its secrets) is an
 * error that says to set the key again, not a silent "not configured".
 */
export async function readStatusKey(engine: Engine): Promise<string | null> {
  const r = await record(engine.db);
  if (!r) return null;
  const secret = await engine.secrets.of(r.store).get(r.ref);
  if (!secret) {
    throw new EngineError('unavailable', 'Taxauth.StatusKeyMissing', `The status API key is recorded in the ${r.store} secret store but is not there; set it again: ecf taxauth status-key set`);
  }
  return secret.toString('utf8');
}

/** platform_state row of the cached status (authority-status.ts); here so a new key clears it. */
export const STATUS_SNAPSHOT_STATE = 'taxauth.status';

import { hostname } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';
import type { Engine } from '../engine-types.js';
import { EngineError } from '../errors.js';
import { leaseOwnerName } from '../work/queue.js';
import { holderState } from '../work/holder.js';
import { inTransaction } from '../store/database.js';
import { forUpdate } from '../store/locking.js';

/** Who runs a set now: kept in `platform_state`, renewed while the run lives; `owner` names the process as work leases do. */
const HolderValue = Type.Object({ owner: Type.String(), host: Type.String(), pid: Type.Integer(), startedAt: Type.String(), expiresAt: Type.String() });
type Holder = Static<typeof HolderValue>;
const holderOf = (key: string, stored: string): Holder => parseJsonColumn(HolderValue, stored, `platform_state.value of ${key}`);

export interface RunClaim {
  /** Extends the claim; throws when another run took it over (this one was thought dead). */
  renew(): Promise<void>;
  release(): Promise<void>;
}

const keyOf = (tenantId: string, paso: number) => `certification.run:${tenantId}:${paso}`;

/** A claim is held while unexpired, unless its holder is known dead from here (work/holder.ts: same pid space, its process gone). */
function holds(h: Holder, now: number): boolean {
  if (Date.parse(h.expiresAt) <= now) return false;
  return holderState(h.owner) !== 'dead';
}

/**
 * Takes the one claim on running a tenant's Paso 2 or 3 set. A second `ecf
 * certify run` beside the first would only wait on the cases the first is
 * sending and then report work it did not do, so it is refused at once,
 * saying who runs. A run that died (kill -9, a lost machine) leaves its claim
 * to expire after `leaseMs`; on the same machine its dead process frees it at once.
 */
export async function claimRun(engine: Engine, tenantId: string, paso: 2 | 3, leaseMs: number): Promise<RunClaim> {
  const key = keyOf(tenantId, paso);
  const owner = leaseOwnerName('certify-run');
  const at = () => engine.clock.now();
  const value = (startedAt: string): string =>
    JSON.stringify({ owner, host: hostname(), pid: process.pid, startedAt, expiresAt: new Date(at().getTime() + leaseMs).toISOString() } satisfies Holder);
  // The row exists before it is locked, so two runs starting together queue on the same row.
  await engine.db
    .insertInto('platform_state')
    .values({ key, value: JSON.stringify({ owner: '', host: '', pid: 0, startedAt: '', expiresAt: new Date(0).toISOString() }), updated_at: at().toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const startedAt = at().toISOString();
  await inTransaction(engine.db, async (tx) => {
    const row = await forUpdate(tx, tx.selectFrom('platform_state').select('value').where('key', '=', key)).executeTakeFirstOrThrow();
    const h = holderOf(key, row.value);
    if (holds(h, at().getTime())) {
      throw new EngineError(
        'conflict',
        'Certification.RunInProgress',
        `Another \`ecf certify run\` is sending Paso ${paso} (process ${h.pid} on ${h.host}, since ${h.startedAt}); this one sent nothing. Wait for it to end, or stop it; if it died, run again after ${h.expiresAt}.`,
      );
    }
    await tx.updateTable('platform_state').set({ value: value(startedAt), updated_at: at().toISOString() }).where('key', '=', key).execute();
  });
  return {
    async renew() {
      await inTransaction(engine.db, async (tx) => {
        const row = await forUpdate(tx, tx.selectFrom('platform_state').select('value').where('key', '=', key)).executeTakeFirst();
        const h = row ? holderOf(key, row.value) : null;
        if (h?.owner !== owner) {
          throw new EngineError('conflict', 'Certification.RunInProgress', `Another \`ecf certify run\` took over Paso ${paso} while this one was held up; this one stops.`);
        }
        await tx.updateTable('platform_state').set({ value: value(startedAt), updated_at: at().toISOString() }).where('key', '=', key).execute();
      });
    },
    async release() {
      await inTransaction(engine.db, async (tx) => {
        const row = await forUpdate(tx, tx.selectFrom('platform_state').select('value').where('key', '=', key)).executeTakeFirst();
        if (row && holderOf(key, row.value).owner === owner) await tx.deleteFrom('platform_state').where('key', '=', key).execute();
      });
    },
  };
}

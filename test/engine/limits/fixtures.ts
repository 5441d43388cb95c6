import { issueEcf } from '../../../src/engine/ecf/issue.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { addRange } from '../../../src/engine/sequences/ranges.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import type { Environment } from '../../../src/engine/schema-types.js';
import { invoice31 } from '../../helpers.js';

let n = 0;
/** Issues a fresh type-31 e-CF (a new key each time); duplicate detection is off for these tenants. */
export async function issue(engine: Engine, tenantId: string, environment?: Environment) {
  return issueEcf(engine, tenantId, { idempotencyKey: `limits-${++n}`, payload: invoice31(), ...(environment && { environment }) });
}

/** A production range of type 31 and duplicate detection off, so the same invoice can be issued again and again. */
export async function readyForProduction(engine: Engine, tenantId: string): Promise<void> {
  await addRange(engine, { tenantId, environment: 'production', type: 31, rangeFrom: 1, rangeTo: 10_000, expiresOn: '2035-12-31' });
  await setSetting(engine, 'duplicates.mode', 'off', tenantId);
}

/** Events of some types, oldest first, as [type, data.object]. */
export async function eventsOf(engine: Engine, prefix: string | string[], afterSeq = 0) {
  const prefixes = [prefix].flat();
  return (await listEvents(engine.db, { afterSeq }))
    .filter((e) => prefixes.some((p) => e.type.startsWith(p)))
    .map((e) => ({ type: e.type, tenantId: e.tenantId, object: e.data.object as Record<string, unknown> }));
}

export const lastSeq = async (engine: Engine): Promise<number> => {
  const all = await listEvents(engine.db);
  return all.length ? all[all.length - 1]!.seq : 0;
};

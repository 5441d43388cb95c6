import type { Engine } from '../../../src/engine/engine-types.js';
import { newId } from '../../../src/engine/ids.js';

/**
 * A copy of an issued e-CF's row (`template`) with an id and store key of its
 * own and the `fields` given (at least its e-NCF and idempotency key): it
 * enters through the same triggers as an issued row, so the kept counts see it.
 */
export async function insertRowCopy(engine: Engine, template: Record<string, unknown>, fields: Record<string, unknown>): Promise<void> {
  await engine.db
    .insertInto('ecf')
    .values({ ...template, store_key: undefined, id: newId(), internal_number: null, ...fields } as never)
    .execute();
}

import type { Selectable } from 'kysely';
import { EngineError } from '../errors.js';
import { encfOf } from '../documents/encf.js';
import type { Db, Tx } from '../store/database.js';
import type { SequenceRangesTable } from '../store/schema.js';

/**
 * Ranges held after a restore (issue 32, point 7). A backup is a moment in
 * the past: the store it came from may have issued, and the authority
 * accepted, numbers above the restored pointers. So a restore holds every
 * range, and a held range hands out nothing until its next number is known
 * unused: by the authority check (`ecf sequence verify`, restore-check.ts)
 * or by an operator who knows it (`ecf sequence next --set`, next-number.ts).
 */

type Range = Pick<Selectable<SequenceRangesTable>, 'id' | 'tenant_id' | 'environment' | 'type' | 'series' | 'range_from' | 'range_to' | 'next'>;

/** Holds every range of the store; called by a restore once the restored rows are in place. Returns how many. */
export async function holdRangesAfterRestore(db: Db | Tx, now: Date): Promise<number> {
  const held = await db.updateTable('sequence_ranges').set({ unverified_since: now.toISOString() }).returning('id').execute();
  return held.length;
}

/** The command that runs the authority check for this range's tenant and environment. */
export const verifyCommandFor = (range: Pick<Range, 'tenant_id' | 'environment'>): string =>
  `ecf sequence verify --tenant ${range.tenant_id} --env ${range.environment}`;

/** What an allocation from a held range answers: which range, why, and what to run. */
export function heldAfterRestore(range: Range): EngineError {
  return new EngineError(
    'conflict',
    'Sequence.UnverifiedAfterRestore',
    `The e-NCF range ${range.range_from}–${range.range_to} of type ${range.type} in ${range.environment} (range ${range.id}) came back from a backup and issues nothing ` +
      `until its next number, ${encfOf(range.series, range.type, range.next)}, is known unused: the store the backup was taken from may have used it. ` +
      `Run \`${verifyCommandFor(range)}\` to ask the tax authority and move past the numbers it knows, ` +
      `or, if you know the next unused number yourself, set it: \`ecf sequence next --tenant ${range.tenant_id} --env ${range.environment} --type ${range.type} --set N\` (N = ${range.next} confirms the number it holds).`,
  );
}

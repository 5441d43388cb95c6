import type { Static, TSchema } from '@sinclair/typebox';
import { EngineError } from './errors.js';
import { compile, fieldErrors } from './validation.js';

/**
 * A JSON column (or a settings value) that does not read back in the shape its
 * schema says: the store was changed outside the engine or damaged. It names
 * where, so the operator knows which row to repair or restore.
 */
export class DamagedColumnError extends EngineError {
  readonly where: string;
  constructor(where: string, reason: string) {
    super('damaged', 'Store.ColumnDamaged', `The stored JSON in ${where} is damaged: ${reason}. Restore it from a backup or set it again (docs/operating.md).`);
    this.name = 'DamagedColumnError';
    this.where = where;
  }
}

/**
 * Parses one stored JSON text and checks it against the column's schema.
 * `where` names the table and column (e.g. `ecf.retry`), and the row when that
 * helps. The compiled check is a few property tests: cheap enough for the list
 * and detail paths; errors are only walked when the check fails.
 */
export function parseJsonColumn<T extends TSchema>(schema: T, text: string, where: string): Static<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new DamagedColumnError(where, `not JSON (${(e as Error).message})`);
  }
  return checkJsonColumn(schema, value, where);
}

/** Checks a value already parsed from a JSON column (one that is rewritten before it is checked, e.g. short keys expanded). */
export function checkJsonColumn<T extends TSchema>(schema: T, value: unknown, where: string): Static<T> {
  if (compile(schema).Check(value)) return value as Static<T>;
  const first = fieldErrors(schema, value, '')[0];
  // fieldErrors names the root of the value `(body)`, a request's word: here it is the stored value.
  const path = !first || first.path === '(body)' ? 'the value' : first.path;
  throw new DamagedColumnError(where, first ? `${path} ${first.message}` : 'it does not match its schema');
}

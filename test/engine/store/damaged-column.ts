import { expect } from 'vitest';
import { DamagedColumnError } from '../../../src/engine/json-column.js';

/** The DamagedColumnError `work` throws; fails the test when it throws nothing or something else. */
export async function damaged(work: () => unknown): Promise<DamagedColumnError> {
  try {
    await work();
  } catch (e) {
    expect(e).toBeInstanceOf(DamagedColumnError);
    return e as DamagedColumnError;
  }
  throw new Error('expected a DamagedColumnError, nothing was thrown');
}

/** The error names the column (and row) and says what is wrong with the value. */
export function expectNames(err: DamagedColumnError, where: string, reason: string): void {
  expect(err.code).toBe('Store.ColumnDamaged');
  expect(err.kind).toBe('damaged');
  expect(err.where).toBe(where);
  expect(err.message).toContain(where);
  expect(err.message).toContain(reason);
}

import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { pages } from '../../scripts/gen-docs-tables.mjs';

/** The settings and role tables of docs/ are the code's own: a change to either must regenerate them. */
describe('generated docs tables', () => {
  it('match what the code generates (npm run gen:docs)', async () => {
    const all = (await pages()) as [string, string, string][];
    expect(all.length).toBeGreaterThan(0);
    for (const [page, committed, wanted] of all) {
      expect(committed, `${page} is stale: run npm run gen:docs`).toBe(wanted);
    }
  });
});

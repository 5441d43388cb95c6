import { expect } from 'vitest';
import type { Engine } from '../../src/engine/engine-types.js';
import { listEcf } from '../../src/engine/ecf/queries.js';

/** The totals a loaded store's lists give (from its kept counts) are the e-CF counted by reading its rows. */
export async function expectListTotalsByReading(engine: Engine, tenantId: string, rows: number): Promise<void> {
  const stored = (await engine.db.selectFrom('ecf').select(['type', 'status', 'issue_date', 'monto_total_cents']).execute()) as {
    type: number;
    status: string;
    issue_date: string;
    monto_total_cents: number;
  }[];
  expect(stored).toHaveLength(rows);
  const month = { From: '2026-03-01', To: '2026-03-31' };
  const queries: [object, (r: (typeof stored)[number]) => boolean][] = [
    [{}, () => true],
    [{ Type: 32 }, (r) => r.type === 32],
    [{ Status: 'accepted' }, (r) => r.status === 'accepted'],
    [month, (r) => r.issue_date >= month.From && r.issue_date <= month.To],
    [{ MinAmount: '1000', MaxAmount: '50000' }, (r) => r.monto_total_cents >= 100_000 && r.monto_total_cents <= 5_000_000],
  ];
  for (const [query, matches] of queries) expect((await listEcf(engine, tenantId, query)).totalCount, JSON.stringify(query)).toBe(stored.filter(matches).length);
}

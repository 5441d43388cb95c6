import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { dominicanDate, fromRowInstant, toRowInstant } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { daysByMonths } from '../../../src/engine/ecf/list-counts-postgres.js';
import { countBranch, withinSortBounds } from '../../../src/engine/ecf/search-postgres.js';
import { listEcf } from '../../../src/engine/ecf/queries.js';
import { insertRowCopy } from './row-copies.js';
import { dialectOf } from '../../../src/engine/store/dialect.js';
import { rowKey } from '../../../src/engine/store/functions.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';

/**
 * The PostgreSQL list paths (list-counts-postgres.ts, search-postgres.ts):
 * the same answers as a count and sort by reading. The helpers' SQL is the
 * same on both stores, so they are checked on both.
 */

/** Instants around month ends and Dominican day starts (04:00 UTC), over five months. */
const INSTANTS = [
  '2026-01-31T03:59:59.999Z', // Dominican 2026-01-30
  '2026-01-31T04:00:00.000Z',
  '2026-02-01T03:30:00.000Z', // Dominican 2026-01-31
  '2026-02-01T04:00:00.000Z',
  '2026-02-14T12:00:00.000Z',
  '2026-02-28T23:00:00.000Z',
  '2026-03-01T04:00:00.000Z',
  '2026-03-15T10:00:00.000Z',
  '2026-03-31T22:00:00.000Z',
  '2026-04-01T03:00:00.000Z', // Dominican 2026-03-31
  '2026-04-02T05:00:00.000Z',
  '2026-05-20T15:00:00.000Z',
];

async function storeWithMonths(): Promise<{ engine: Engine; tenantId: string }> {
  const engine = await testEngine();
  const { tenant } = await seedIssuer(engine);
  const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'first', payload: invoice31() });
  const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
  let n = 0;
  for (const at of INSTANTS) {
    for (const environment of ['test', 'production']) {
      n++;
      await insertRowCopy(engine, template, {
        encf: `E31${String(5000 + n).padStart(10, '0')}`,
        idempotency_key: `month-${n}`,
        environment,
        issued_at: toRowInstant(at),
        monto_total_cents: 1000 * n,
        monto_total: (10 * n).toFixed(2),
      });
    }
  }
  return { engine, tenantId: tenant.id };
}

async function countByReading(engine: Engine, tenantId: string, f: { from?: string; to?: string; environment?: string }): Promise<number> {
  const rows = await engine.db
    .selectFrom('ecf')
    .select(['issued_at', 'environment'])
    .where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenantId))
    .execute();
  return rows.filter((r) => {
    const day = dominicanDate(fromRowInstant(r.issued_at));
    return (!f.from || day >= f.from) && (!f.to || day <= f.to) && (!f.environment || r.environment === f.environment);
  }).length;
}

describe('the PostgreSQL list paths', () => {
  it('count From/To by whole months and the days of the edge months, as a count by reading does', async () => {
    const { engine, tenantId } = await storeWithMonths();
    const bounds: { from?: string; to?: string; environment?: string }[] = [
      { from: '2026-02-01' },
      { from: '2026-01-31' },
      { from: '2026-01-30', environment: 'production' },
      { from: '2026-02-15' },
      { to: '2026-03-31' },
      { to: '2026-04-01' },
      { to: '2026-02-28', environment: 'test' },
      { from: '2026-01-31', to: '2026-03-31' },
      { from: '2026-02-01', to: '2026-02-28' },
      { from: '2026-01-30', to: '2026-04-02' },
      { from: '2026-02-14', to: '2026-05-20' },
      { from: '2026-06-01' },
      { to: '2025-12-31' },
    ];
    for (const f of bounds) {
      const n = await daysByMonths(engine, tenantId, f);
      expect({ f, n }).toEqual({ f, n: await countByReading(engine, tenantId, f) });
      // And through the list itself, which takes this path on PostgreSQL.
      const page = await listEcf(engine, tenantId, { From: f.from, To: f.to, Environment: f.environment });
      expect({ f, total: page.totalCount }).toEqual({ f, total: await countByReading(engine, tenantId, f) });
    }
    // No whole month within the range: the caller sums the days.
    expect(await daysByMonths(engine, tenantId, { from: '2026-02-02', to: '2026-03-30' })).toBeUndefined();
    expect(await daysByMonths(engine, tenantId, { from: '2026-03-31', to: '2026-04-02' })).toBeUndefined();
  });

  it('bound a search page to the sort values its matches span, on PostgreSQL only, with the same page', async () => {
    const { engine, tenantId } = await storeWithMonths();
    const key = (await engine.db.selectFrom('tenants').select('store_key').where('id', '=', tenantId).executeTakeFirstOrThrow()).store_key;
    // As searchBranches selects a branch: the list's row key (rowid on SQLite, id on PostgreSQL), the two sort columns.
    const branch = engine.db.selectFrom('ecf').where('tenant_key', '=', key).where('encf', '>=', 'E31000000501').where('encf', '<', 'E31000000502').select([rowKey(engine.db).ref.as('rid'), 'issued_at', 'monto_total_cents']);
    const matches = await branch.select('id').execute();
    expect(matches.length).toBe(10);
    const counted = await countBranch(engine.db, branch, 'issued_at');
    const postgres = dialectOf(engine.db) === 'postgres';
    expect(counted).toEqual(
      postgres ? { n: 10, low: Math.min(...matches.map((m) => m.issued_at)), high: Math.max(...matches.map((m) => m.issued_at)) } : { n: 10 },
    );
    const bounded = withinSortBounds(engine.db.selectFrom(branch.as('h')), 'issued_at', [counted]).select('rid').compile().sql;
    expect(bounded.includes('"issued_at" >=')).toBe(postgres);
    // A branch counted without bounds leaves the page unbounded; so does no match at all.
    expect(withinSortBounds(engine.db.selectFrom(branch.as('h')), 'issued_at', [counted, { n: 3 }]).select('rid').compile().sql).not.toContain('"issued_at" >=');
    expect(withinSortBounds(engine.db.selectFrom(branch.as('h')), 'issued_at', [{ n: 0 }]).select('rid').compile().sql).not.toContain('"issued_at" >=');
    // The list's search page is the same as a sort by reading, in both orders and by amount.
    const pagings: { Sort?: 'montoTotal'; Order?: 'asc'; Page: number; PageSize: number }[] = [
      { Page: 1, PageSize: 4 },
      { Order: 'asc', Page: 1, PageSize: 4 },
      { Sort: 'montoTotal', Page: 1, PageSize: 4 },
      { Sort: 'montoTotal', Order: 'asc', Page: 2, PageSize: 3 },
    ];
    for (const paging of pagings) {
      const page = await listEcf(engine, tenantId, { Search: 'E31000000501', ...paging });
      const column = paging.Sort ? 'monto_total_cents' : 'issued_at';
      const sign = paging.Order ? 1 : -1;
      // Ties (the two environments share each instant) go by the row key, in the order asked.
      const sorted = [...matches].sort((a, b) => sign * (Number(a[column]) - Number(b[column]) || (a.rid < b.rid ? -1 : 1)));
      const from = (paging.Page - 1) * paging.PageSize;
      expect({ paging, ids: page.items.map((i) => i.id), total: page.totalCount }).toEqual({ paging, ids: sorted.slice(from, from + paging.PageSize).map((m) => m.id), total: 10 });
    }
  });

  it('answer a page past the kept total on PostgreSQL without reading the day counts or skipping rows', async () => {
    const { engine, tenantId } = await storeWithMonths();
    const total = (await listEcf(engine, tenantId, {})).totalCount;
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      sent.push(typeof config === 'string' ? config : (config.text ?? ''));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      for (const q of [{ Skip: total }, { Skip: total + 5, Sort: 'montoTotal' as const }, { Page: 10, PageSize: 5, Type: 31 }, { Skip: total, From: '2026-02-01' }]) {
        sent.length = 0;
        const page = await listEcf(engine, tenantId, q, { seekPast: 1 });
        expect({ q, items: page.items, total: page.totalCount }).toEqual({ q, items: [], total: q.From ? await countByReading(engine, tenantId, { from: q.From }) : total });
        if (dialectOf(engine.db) === 'postgres') expect({ q, sent: sent.filter((s) => /ecf_day_counts" .*group by|offset/i.test(s)) }).toEqual({ q, sent: [] });
      }
    } finally {
      pg.Client.prototype.query = query;
    }
  });
});

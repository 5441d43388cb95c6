import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dominicanDate, fromRowInstant, toRowInstant } from '../../../src/engine/clock.js';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { listEcf, type ListQuery } from '../../../src/engine/ecf/queries.js';
import { amountBand, bandBounds } from '../../../src/engine/ecf/amount-band.js';
import { insertRowCopy } from './row-copies.js';
import { searchKey } from '../../../src/engine/ecf/search-key.js';
import type { Engine } from '../../../src/engine/engine-types.js';
import { invoice31, seedIssuer, testEngine } from '../../helpers.js';
import { pageWindow } from '../../../src/engine/paging.js';
import { rowKey } from '../../../src/engine/store/functions.js';

const TYPES = [31, 32, 33];
const STATUSES = ['signed', 'accepted', 'rejected', 'failed'] as const;
const ENVIRONMENTS = ['test', 'production'] as const;
/** Dominican days around a month end; the hours put some e-CF before 04:00 UTC, on the previous Dominican day. */
const DAYS = ['2026-03-30', '2026-03-31', '2026-04-01', '2026-04-02'];
/** Amounts on and around coarse and fine band edges (ecf/amount-band.ts), so a bound often falls inside a band that holds e-CF. */
const AMOUNTS = ['0.99', '1', '9.99', '10', '10.19', '10.20', '10.50', '10.99', '11', '50', '99.99', '100', '123.45', '1234.56'];
const CENTS = fc.oneof(fc.constantFrom(...AMOUNTS.map((a) => Math.round(Number(a) * 100))), fc.integer({ min: 100, max: 1_000_000 }));
/** Buyers a search can find by RNC or name; 'E31 Comercial' also matches an e-NCF search, so one e-CF may match two ways. */
const BUYERS = [null, { rnc: '131880001', name: 'Ferretería Ñoño' }, { rnc: '401000002', name: 'E31 Comercial' }];
const HOURS = ['02:30:00.000Z', '03:30:00.000Z', '04:00:00.000Z', '15:45:10.000Z', '23:59:59.999Z'];

/** A copy of an issued e-CF's row with its own id, e-NCF and the varied dimensions: rows enter through the same triggers as issued ones. */
async function addCopy(engine: Engine, template: Record<string, unknown>, n: number, v: { type: number; status: string; environment: string; day: number; hour: number; cents: number; retrying: boolean; buyer: number }) {
  const issuedAt = `${DAYS[v.day]}T${HOURS[v.hour]}`;
  await insertRowCopy(engine, template, {
    encf: `E${v.type}${String(1000 + n).padStart(10, '0')}`,
    idempotency_key: `copy-${n}`,
    type: v.type,
    status: v.status,
    environment: v.environment,
    issued_at: toRowInstant(issuedAt),
    monto_total_cents: v.cents,
    monto_total: (v.cents / 100).toFixed(2),
    retry: v.retrying ? JSON.stringify({ count: 1, max: 3, nextAttemptAt: issuedAt }) : null,
    buyer_rnc: BUYERS[v.buyer]?.rnc ?? null,
    buyer_name: BUYERS[v.buyer]?.name ?? null,
    buyer_name_key: BUYERS[v.buyer] ? searchKey(BUYERS[v.buyer]!.name) : null,
  });
}

/** The count by reading every row, as the filters say in words. */
async function naiveCount(engine: Engine, tenantId: string, q: ListQuery): Promise<number> {
  return (await naiveMatches(engine, tenantId, q)).length;
}

/** The page's ids by sorting every match in JavaScript: the sort column, then the row key (rowid on SQLite, id on PostgreSQL), both in the order asked. */
async function naivePage(engine: Engine, tenantId: string, q: ListQuery): Promise<string[]> {
  const sign = q.Order === 'asc' ? 1 : -1;
  const column = q.Sort === 'montoTotal' ? 'monto_total_cents' : 'issued_at';
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = (await naiveMatches(engine, tenantId, q)).sort(
    (a, b) => sign * (compare(column === 'issued_at' ? a.issued_at : Number(a.monto_total_cents), column === 'issued_at' ? b.issued_at : Number(b.monto_total_cents)) || compare(a.rid, b.rid)),
  );
  const { offset, pageSize } = pageWindow({ page: q.Page, pageSize: q.PageSize, skip: q.Skip });
  return sorted.slice(offset, offset + pageSize).map((r) => r.id);
}

async function naiveMatches(engine: Engine, tenantId: string, q: ListQuery) {
  const rows = await engine.db
    .selectFrom('ecf')
    .selectAll()
    .select(rowKey(engine.db).ref.as('rid'))
    .where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenantId))
    .execute();
  const s = q.Search?.trim();
  return rows.filter((r) => {
    const day = dominicanDate(fromRowInstant(r.issued_at));
    return (
      (s === undefined ||
        r.encf.startsWith(s.toUpperCase()) ||
        (r.buyer_rnc ?? '').startsWith(s) ||
        (r.internal_number ?? '').startsWith(s) ||
        (r.buyer_name_key !== null && r.buyer_name_key.startsWith(searchKey(s)))) &&
      (q.Type === undefined || r.type === q.Type) &&
      (q.Status === undefined || r.status === q.Status) &&
      (q.Environment === undefined || r.environment === q.Environment) &&
      (q.From === undefined || day >= q.From) &&
      (q.To === undefined || day <= q.To) &&
      (q.Retrying === undefined || (r.retry !== null) === q.Retrying) &&
      (q.MinAmount === undefined || Number(r.monto_total_cents) >= Math.round(Number(q.MinAmount) * 100)) &&
      (q.MaxAmount === undefined || Number(r.monto_total_cents) <= Math.round(Number(q.MaxAmount) * 100))
    );
  });
}

const variant = fc.record({
  type: fc.constantFrom(...TYPES),
  status: fc.constantFrom(...STATUSES),
  environment: fc.constantFrom(...ENVIRONMENTS),
  day: fc.nat(DAYS.length - 1),
  hour: fc.nat(HOURS.length - 1),
  cents: CENTS,
  retrying: fc.boolean(),
  buyer: fc.nat(BUYERS.length - 1),
});

const change = fc.oneof(
  fc.record({ kind: fc.constant('status' as const), pick: fc.nat(), status: fc.constantFrom(...STATUSES) }),
  fc.record({ kind: fc.constant('retry' as const), pick: fc.nat(), retrying: fc.boolean() }),
  fc.record({ kind: fc.constant('moved' as const), pick: fc.nat(), day: fc.nat(DAYS.length - 1), hour: fc.nat(HOURS.length - 1) }),
  fc.record({ kind: fc.constant('amount' as const), pick: fc.nat(), cents: CENTS }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('buyer' as const), pick: fc.nat(), buyer: fc.nat(BUYERS.length - 1) }),
);

/** One to three filters at a time, as a person combines them: with all eight, almost nothing matches. */
const filters = fc.tuple(
  fc.record({
    Type: fc.constantFrom(...TYPES),
    Status: fc.constantFrom(...STATUSES),
    Environment: fc.constantFrom(...ENVIRONMENTS),
    From: fc.constantFrom('2026-03-29', ...DAYS),
    To: fc.constantFrom(...DAYS, '2026-04-03'),
    Retrying: fc.boolean(),
    MinAmount: fc.constantFrom(...AMOUNTS),
    MaxAmount: fc.constantFrom(...AMOUNTS),
    Search: fc.constantFrom('E3', 'E31', 'e31 ', 'E3100000010', '131', '4010', 'ferreteria n', 'f', 'FERRE', 'x'),
  }),
  fc.subarray(['Search', 'Type', 'Status', 'Environment', 'From', 'To', 'Retrying', 'MinAmount', 'MaxAmount'] as const, { minLength: 0, maxLength: 3 }),
).map(([all, keys]) => Object.fromEntries(keys.map((k) => [k, all[k]])) as ListQuery);

/** How the page is asked: sort, order and deep pages, by Page or Skip. */
const paging = fc.record(
  { Sort: fc.constantFrom('issuedAt', 'montoTotal'), Order: fc.constantFrom('asc', 'desc'), PageSize: fc.integer({ min: 1, max: 4 }), Page: fc.integer({ min: 1, max: 8 }), Skip: fc.nat(30) },
  { requiredKeys: [] },
) as fc.Arbitrary<Pick<ListQuery, 'Sort' | 'Order' | 'PageSize' | 'Page' | 'Skip'>>;

describe('amount bands', () => {
  it('hold every amount within their bounds, in the order of the amounts', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 10 ** 13 }), fc.integer({ min: -1_000_000, max: 10 ** 13 }), fc.constantFrom(2 as const, 3 as const), (a, b, lead) => {
        const { low, high } = bandBounds(amountBand(a, lead), lead);
        expect(low <= a && a <= high).toBe(true);
        if (a <= b) expect(amountBand(a, lead) <= amountBand(b, lead)).toBe(true);
        // A fine band lies inside the coarse band of its amounts.
        const coarse = bandBounds(amountBand(a));
        const fine = bandBounds(amountBand(a, 3), 3);
        expect(coarse.low <= fine.low && fine.high <= coarse.high).toBe(true);
      }),
    );
  });
});

describe('the list counts kept per day and per amount band (ecf_day_counts, ecf_amount_counts, ecf_day_amount_counts)', () => {
  it('give the rows, order and totalCount of a plain count and sort over random filters, searches, sorts and deep pages after issues, status, retry and amount changes, moved dates and deletes', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'first', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    let copies = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(variant, { minLength: 1, maxLength: 10 }), fc.array(change, { maxLength: 4 }), fc.array(fc.tuple(filters, paging, fc.constantFrom(1, 2, 1000)), { minLength: 1, maxLength: 6 }), async (added, changes, queries) => {
        for (const v of added) await addCopy(engine, template, copies++, v);
        const ids = (await engine.db.selectFrom('ecf').select('id').where('tenant_key', '=', (eb) => eb.selectFrom('tenants').select('store_key').where('id', '=', tenant.id)).orderBy('id').execute()).map((r) => r.id);
        for (const c of changes) {
          const id = ids[c.pick % ids.length]!;
          if (id === issued.ecf.id) continue; // the issued one keeps its document
          const where = engine.db.updateTable('ecf').where('id', '=', id);
          if (c.kind === 'status') await where.set({ status: c.status }).execute();
          if (c.kind === 'retry') await where.set({ retry: c.retrying ? JSON.stringify({ count: 2, max: 3, nextAttemptAt: null }) : null }).execute();
          if (c.kind === 'moved') await where.set({ issued_at: toRowInstant(`${DAYS[c.day]}T${HOURS[c.hour]}`) }).execute();
          if (c.kind === 'amount') await where.set({ monto_total_cents: c.cents, monto_total: (c.cents / 100).toFixed(2) }).execute();
          if (c.kind === 'delete') await engine.db.deleteFrom('ecf').where('id', '=', id).execute();
          if (c.kind === 'buyer') {
            const b = BUYERS[c.buyer];
            await where.set({ buyer_rnc: b?.rnc ?? null, buyer_name: b?.name ?? null, buyer_name_key: b ? searchKey(b.name) : null }).execute();
          }
        }
        for (const [q, p, lookupCost] of queries) {
          const query = { ...q, ...p };
          // seekPast 1: a deep page seeks its day (dayOfRow) whenever it can, as it does past 20,000 rows on a big store;
          // walkPast 0: a search with one matching branch walks the issue-instant index within as many rows as
          // its matches divided by lookupCost (1: all of them; 2: half, so the walk often falls back to the sort).
          const page = await listEcf(engine, tenant.id, query, { seekPast: 1, walkPast: 0, lookupCost });
          expect({ query, total: page.totalCount, ids: page.items.map((i) => i.id) }).toEqual({ query, total: await naiveCount(engine, tenant.id, q), ids: await naivePage(engine, tenant.id, query) });
        }
      }),
      { numRuns: 25 },
    );
  });

  it('find the page of a search matching many e-CF by walking the issue-instant index, or by sorting when the walk would read too far, with the same rows and count', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'first', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    // Ferretería on the first two days only, the others later: walking from the newest day finds none of
    // them at first, so a short walk must give way to the sort rather than answer with what it found.
    for (let n = 0; n < 40; n++) {
      const day = n < 16 ? n % 2 : 2 + (n % 2);
      await addCopy(engine, template, n, { type: 31, status: 'accepted', environment: 'test', day, hour: n % HOURS.length, cents: 1000 + n, retrying: false, buyer: n < 16 || n % 5 === 0 ? 1 : 0 });
    }
    for (const lookupCost of [1, 2, 3, 1000]) {
      // To: DAYS[1] leaves out the newest Ferretería e-CF, the walk's first candidates: the walk must filter them too.
      for (const q of [{ Search: 'ferre' }, { Search: 'FERRETERIA Ñ', Order: 'asc' }, { Search: 'f', From: '2026-03-31' }, { Search: 'ferre', Skip: 5 }, { Search: 'ferre', To: DAYS[1], PageSize: 2 }] as const) {
        for (const Page of [1, 2, 3, 7]) {
          const query = { PageSize: 3, ...q, Page };
          const page = await listEcf(engine, tenant.id, query, { walkPast: 0, lookupCost });
          expect({ query, lookupCost, ids: page.items.map((i) => i.id), total: page.totalCount }).toEqual({ query, lookupCost, ids: await naivePage(engine, tenant.id, query), total: await naiveCount(engine, tenant.id, query) });
        }
      }
    }
  });

  it('count amount bounds inside a band either way (the part asked, or the band less the rest) over fine and coarse bands, with and without other filters', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'first', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    // Amounts at both ends and the middle of the coarse band 10.00-10.99 and its fine bands (10.10-10.19 ...).
    const cents = [999, 1000, 1001, 1009, 1010, 1015, 1019, 1020, 1049, 1050, 1051, 1089, 1090, 1098, 1099, 1100];
    for (const [n, c] of cents.entries()) await addCopy(engine, template, n, { type: TYPES[n % 2]!, status: 'accepted', environment: 'test', day: n % 2, hour: 3, cents: c, retrying: false, buyer: 0 });
    const bounds = ['9.99', '10', '10.01', '10.10', '10.15', '10.19', '10.20', '10.49', '10.50', '10.51', '10.90', '10.98', '10.99', '11'];
    for (const others of [{}, { Type: 31 }, { From: DAYS[1] }] as const) {
      for (const lo of [undefined, ...bounds]) {
        for (const hi of [undefined, ...bounds]) {
          if (lo === undefined && hi === undefined) continue;
          const query = { ...others, ...(lo && { MinAmount: lo }), ...(hi && { MaxAmount: hi }) } as ListQuery;
          expect({ query, total: (await listEcf(engine, tenant.id, { ...query, PageSize: 1 })).totalCount }).toEqual({ query, total: await naiveCount(engine, tenant.id, query) });
        }
      }
    }
  });

  it('break ties of a search read into memory by the row key in the order asked, as the store sorts them', async () => {
    const engine = await testEngine();
    const { tenant } = await seedIssuer(engine);
    const issued = await issueEcf(engine, tenant.id, { idempotencyKey: 'first', payload: invoice31() });
    const template = await engine.db.selectFrom('ecf').selectAll().where('id', '=', issued.ecf.id).executeTakeFirstOrThrow();
    // Six e-CF at one instant and one amount: only the row key orders them.
    for (let n = 0; n < 6; n++) await addCopy(engine, template, n, { type: 31, status: 'accepted', environment: 'test', day: 1, hour: 3, cents: 5000, retrying: false, buyer: 0 });
    for (const paging of [{ Order: 'desc' }, { Order: 'asc' }, { Order: 'asc', Sort: 'montoTotal' }, { Order: 'desc', Sort: 'montoTotal' }] as const) {
      for (const Page of [1, 2, 3]) {
        const query = { Search: 'E31', Status: 'accepted' as const, PageSize: 2, Page, ...paging };
        const page = await listEcf(engine, tenant.id, query);
        expect({ query, ids: page.items.map((i) => i.id), total: page.totalCount }).toEqual({ query, ids: await naivePage(engine, tenant.id, query), total: 6 });
      }
    }
  });
});

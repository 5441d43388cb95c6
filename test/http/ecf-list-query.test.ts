import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ECF_STATUSES } from '../../src/engine/ecf/views.js';
import { MAX_PAGE } from '../../src/engine/paging.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

async function setup(issued = 0) {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const { keys } = await seedIssuer(engine);
  for (let i = 0; i < issued; i++) {
    const res = await api(app, keys).as('emisor').post('/api/v1/ecf', JSON.stringify(invoice31({ internalNumber: `F-${i}` })), { headers: { 'content-type': 'application/json', 'idempotency-key': `list-${i}` } });
    expect(res.statusCode).toBe(201);
  }
  const list = (query: string) => api(app, keys).as('consultor').get(`/api/v1/ecf?${query}`);
  return { list };
}

const fieldsOf = (res: { json: () => { errors: Record<string, string[]> } }) => Object.keys(res.json().errors);

describe('GET /api/v1/ecf', () => {
  it('pages by Skip consistently: the page the window starts on, cut at Skip; Page is not read with Skip', async () => {
    const { list } = await setup(5);
    const page = (query: string) => list(query).then((r) => {
      expect(r.statusCode, query).toBe(200);
      const { items, ...rest } = r.json();
      return { ...rest, numbers: items.map((i: { internalNumber: string }) => i.internalNumber) };
    });
    expect(await page('Skip=2&PageSize=2&Order=asc')).toEqual({ numbers: ['F-2', 'F-3'], totalCount: 5, page: 2, pageSize: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    expect(await page('Skip=2&PageSize=2&Order=asc&Page=7')).toEqual(await page('Skip=2&PageSize=2&Order=asc'));
    expect(await page('Skip=2&PageSize=2&Order=asc')).toEqual(await page('Page=2&PageSize=2&Order=asc'));
    expect(await page('Skip=4&PageSize=2&Order=asc')).toMatchObject({ numbers: ['F-4'], page: 3, totalPages: 3, hasNextPage: false, hasPreviousPage: true });
    // Not a multiple of PageSize: row 0 alone makes page 1, then 1-2, 3-4.
    expect(await page('Skip=1&PageSize=2&Order=asc')).toMatchObject({ numbers: ['F-1', 'F-2'], page: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    expect(await page('skip=0&pagesize=2&order=asc')).toMatchObject({ numbers: ['F-0', 'F-1'], page: 1, totalPages: 3, hasPreviousPage: false });
    // Past the last row: no items, a page above totalPages.
    expect(await page('Skip=9&PageSize=2')).toMatchObject({ numbers: [], page: 6, totalPages: 3, hasNextPage: false, hasPreviousPage: true });
  });

  it('brings a page or skip too large for exact arithmetic into range instead of failing', async () => {
    const { list } = await setup();
    const huge = await list('Page=99999999999999999999');
    expect(huge.statusCode).toBe(200);
    expect(huge.json()).toMatchObject({ items: [], page: MAX_PAGE });
    const skip = await list('Skip=99999999999999999999&PageSize=200');
    expect(skip.statusCode).toBe(200);
    expect(skip.json().items).toEqual([]);
  });

  it('checks Status like the other enums: 400 naming query.Status for an unknown state', async () => {
    const { list } = await setup(1);
    for (const status of ECF_STATUSES) expect((await list(`Status=${status}`)).statusCode, status).toBe(200);
    expect((await list('Status=signed')).json().totalCount).toBe(1);
    for (const status of ['bogus', 'SIGNED', 'constructor', '']) {
      const res = await list(`Status=${status}`);
      expect(res.statusCode, status).toBe(400);
      expect(fieldsOf(res), status).toEqual(['query.Status']);
      expect(res.json().errors['query.Status'][0]).toBe(`must be one of ${ECF_STATUSES.join(', ')}`);
    }
  });

  it('refuses integers written as something else rather than reading them as 1', async () => {
    const { list } = await setup();
    for (const [query, field] of [['Page=1.5', 'query.Page'], ['Type=true', 'query.Type'], ['PageSize=2abc', 'query.PageSize'], ['Skip=1e3', 'query.Skip']] as const) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(fieldsOf(res), query).toEqual([field]);
    }
    expect((await list('Page=2&PageSize=3')).json()).toMatchObject({ page: 2, pageSize: 3 });
  });
});

import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { MAX_FIELD_ERRORS } from '../../src/engine/validation.js';
import { seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

// A small body can carry a wrong item per two bytes: listing every problem would make a 400 far larger
// than the request and take a time in proportion to the square of their number.
describe('a body with more problems than a 400 lists', () => {
  it(`lists the first ${MAX_FIELD_ERRORS} and says there are more, on engine-checked and route-checked bodies`, async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const { keys } = await seedIssuer(engine);
    const admin = api(app, keys).as('admin_tenant');
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'many' };
    for (const [url, body] of [
      ['/api/v1/sequences/annulments', { environment: 'test', reason: 'x', lines: Array(100_000).fill(1) }],
      ['/api/v1/ecf', { type: 31, lines: Array(200_000).fill(1) }],
      ['/api/v1/webhooks', { url: 'https://93.184.216.34/x', events: Array(100_000).fill(1) }],
    ] as const) {
      const res = await admin.post(url, JSON.stringify(body), { headers });
      expect(res.statusCode, url).toBe(400);
      const errors = res.json().fieldErrors as { path: string; code: string }[];
      // The shape's problems are cut at the limit; a payload's own rules may add a few of their own.
      expect(errors.length, url).toBeGreaterThan(MAX_FIELD_ERRORS);
      expect(errors.length, url).toBeLessThanOrEqual(MAX_FIELD_ERRORS + 20);
      expect(errors.filter((e) => e.code === 'TooManyErrors'), url).toHaveLength(1);
    }
    expect(await engine.db.selectFrom('ecf').selectAll().execute()).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { api } from '../api.js';

describe('GET /api/v1/ecf/{id}/representation?layout=', () => {
  async function setup() {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const { keys, tenant } = await seedIssuer(engine);
    const issued = await api(app, keys).as('emisor').post('/api/v1/ecf', JSON.stringify(invoice31()), { headers: { 'content-type': 'application/json', 'idempotency-key': 'layout-1' } });
    const ecf = issued.json();
    const get = (query: string) => api(app, keys).as('consultor').get(`${ecf.links.representation}?${query}`);
    return { app, ecf, tenant, get };
  }

  it('takes the contract’s integers beside the names: 1 letter, 2 pos, 3 pos58', async () => {
    const { ecf, tenant, get } = await setup();
    const name = (res: { headers: Record<string, unknown> }) => String(res.headers['content-disposition']);
    for (const [number, suffix] of [['1', ''], ['2', '-pos'], ['3', '-pos58'], [' 2 ', '-pos']] as const) {
      const res = await get(`layout=${encodeURIComponent(number)}`);
      expect(res.statusCode, number).toBe(200);
      expect(name(res), number).toBe(`inline; filename="${tenant.rnc}${ecf.encf}${suffix}.pdf"`);
      const byName = await get(`layout=${['letter', 'pos', 'pos58'][Number(number) - 1]}`);
      expect(byName.rawPayload.length, number).toBe(res.rawPayload.length);
    }
  });

  it('answers 400 naming query.layout for any other value', async () => {
    const { get } = await setup();
    for (const value of ['0', '4', '-1', '1.5', 'a4', 'constructor', 'toString', '', '99999999999999999999']) {
      const res = await get(`layout=${encodeURIComponent(value)}`);
      expect(res.statusCode, value).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(Object.keys(res.json().errors), value).toEqual(['query.layout']);
    }
  });

  it('documents both forms in the OpenAPI document', async () => {
    const { app } = await setup();
    const doc = (await api(app).get('/api/v1/openapi.json')).json();
    const layout = doc.paths['/api/v1/ecf/{id}/representation'].get.parameters.find((p: { name: string }) => p.name === 'layout');
    expect(layout.schema.anyOf).toEqual([
      { type: 'string', enum: ['letter'] },
      { type: 'string', enum: ['pos'] },
      { type: 'string', enum: ['pos58'] },
      { type: 'integer', minimum: 1, maximum: 3 },
    ]);
    expect(layout.description).toContain('1 (letter), 2 (pos), 3 (pos58)');
  });
});

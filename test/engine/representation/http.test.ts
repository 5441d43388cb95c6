import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { setSetting } from '../../../src/engine/settings/settings.js';
import { invoice31, seedIssuer, seedTenant, testEngine } from '../../helpers.js';
import { pdfInfo, pdfText, qrCodes, renderPages } from './read-back.js';
import { api } from '../../api.js';

async function setup() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const seeded = await seedIssuer(engine);
  const issued = await api(app, seeded.keys).as('emisor').post('/api/v1/ecf', JSON.stringify(invoice31()), { headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' } });
  expect(issued.statusCode).toBe(201);
  const ecf = issued.json();
  const get = (url: string, key = seeded.keys.consultor) => api(app).key(key).get(url);
  return { engine, app, ecf, get, ...seeded };
}

describe('GET /api/v1/ecf/{id}/representation', () => {
  it('answers the PDF to all three roles, inline by default, as an attachment with download=true, named by RNC and e-NCF', async () => {
    const { ecf, get, keys, tenant } = await setup();
    expect(ecf.links.representation).toBe(`/api/v1/ecf/${ecf.id}/representation`);
    for (const role of ['admin_tenant', 'emisor', 'consultor'] as const) {
      const res = await get(ecf.links.representation, keys[role]);
      expect(res.statusCode, role).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe(`inline; filename="${tenant.rnc}${ecf.encf}.pdf"`);
      expect(res.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
    const res = await get(`${ecf.links.representation}?download=true`);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${tenant.rnc}${ecf.encf}.pdf"`);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(pdfInfo(res.rawPayload).size).toEqual([612, 792]);
    expect(pdfText(res.rawPayload)).toContain(`e-NCF: ${ecf.encf}`);
    expect(qrCodes(renderPages(res.rawPayload)[0]!)).toEqual([ecf.qrUrl]);
    const inline = await get(`${ecf.links.representation}?download=false`);
    expect(inline.headers['content-disposition']).toMatch(/^inline;/);
  });

  it('draws the layout asked for, in any casing, else the tenant default; the file name says which roll', async () => {
    const { ecf, get, engine, tenant } = await setup();
    const pos = await get(`${ecf.links.representation}?layout=POS&download=true`);
    expect(pos.statusCode).toBe(200);
    expect(pos.headers['content-disposition']).toBe(`attachment; filename="${tenant.rnc}${ecf.encf}-pos.pdf"`);
    expect(pdfInfo(pos.rawPayload).size[0]).toBeCloseTo(226.77, 1);
    const narrow = await get(`${ecf.links.representation}?Layout=pos58`);
    expect(pdfInfo(narrow.rawPayload).size[0]).toBeCloseTo(164.41, 1);

    await setSetting(engine, 'representation.default_layout', 'pos', tenant.id);
    const byDefault = await get(ecf.links.representation);
    expect(byDefault.headers['content-disposition']).toBe(`inline; filename="${tenant.rnc}${ecf.encf}-pos.pdf"`);
    const letter = await get(`${ecf.links.representation}?layout=letter`);
    expect(pdfInfo(letter.rawPayload).size).toEqual([612, 792]);
  });

  it('answers 400 naming the field for a bad layout or download, 404 for an unknown or another tenant’s e-CF', async () => {
    const { ecf, get, engine } = await setup();
    const bad = await get(`${ecf.links.representation}?layout=a4`);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(bad.json()).toMatchObject({
      status: 400,
      code: 'Validation.Failed',
      errors: { 'query.layout': ['must be letter, pos, pos58 or the number of one: 1 (letter), 2 (pos), 3 (pos58)'] },
    });
    const numeric = await get(`${ecf.links.representation}?layout=4`);
    expect(numeric.statusCode).toBe(400);
    const download = await get(`${ecf.links.representation}?download=perhaps`);
    expect(download.statusCode).toBe(400);
    expect(Object.keys(download.json().errors)).toEqual(['query.download']);

    const unknown = await get(`/api/v1/ecf/${randomUUID()}/representation`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'Ecf.NotFound' });
    const other = await seedTenant(engine);
    const foreign = await get(ecf.links.representation, other.keys.consultor);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ status: 404, code: 'Ecf.NotFound' });
    const notUuid = await get('/api/v1/ecf/E310000000001/representation');
    expect(notUuid.statusCode).toBe(400);
  });

  it('is documented in the OpenAPI document with its parameters and roles', async () => {
    const { app } = await setup();
    const doc = (await api(app).get('/api/v1/openapi.json')).json();
    const op = doc.paths['/api/v1/ecf/{id}/representation'].get;
    expect(op.description).toContain('Roles: admin_tenant, emisor, consultor.');
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}.${p.name}`).sort()).toEqual(['path.id', 'query.download', 'query.layout']);
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/pdf']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '404']));
  });
});

import { describe, expect, it } from 'vitest';
import { organizationKey, seedIssuer, seedOrganization } from '../../helpers.js';
import { annulHarness, expectValidAnecf, line, storedAnecf } from './tools.js';
import { api } from '../../api.js';

const URL = '/api/v1/sequences/annulments';

describe('the annulment routes', () => {
  it('POST answers 200 with the record; GET lists and shows it; retry answers 200; XML sent is the stored one', async () => {
    const h = await annulHarness();
    const admin = api(h.app, h.keys).as('admin_tenant');
    h.sandbox.control.script({ outcomes: [{ kind: 'http5xx', status: 502 }] });
    const res = await admin.post(URL, { environment: 'test', reason: 'Sucursal cerrada', lines: [{ type: '31', series: 'E', rangeFrom: '101', rangeTo: 200 }] });
    expect(res.statusCode).toBe(200);
    const failed = res.json();
    expect(failed).toEqual({
      id: expect.any(String),
      environment: 'test',
      reason: 'Sucursal cerrada',
      status: 'failed',
      totalCount: 100,
      lines: [{ type: 31, series: 'E', rangeFrom: 101, rangeTo: 200, count: 100, typeName: 'Factura de Crédito Fiscal Electrónica' }],
      taxauthCode: null,
      taxauthMessages: [],
      lastError: expect.stringContaining('HTTP 502'),
      attempts: 1,
      submittedAt: null,
      voidedAt: null,
      createdAt: '2026-03-10T10:00:00.000-04:00',
    });

    const listed = await admin.get(URL);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([failed]);
    const shown = await admin.get(`${URL}/${failed.id}`);
    expect(shown.json()).toEqual(failed);

    const retried = await admin.post(`${URL}/${failed.id}/retry`);
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ id: failed.id, status: 'voided', attempts: 2, taxauthCode: '15', lastError: null });
    const { xml } = await storedAnecf(h.engine, failed.id);
    expect(h.sandbox.control.annulments().map((a) => a.xml)).toEqual([xml]);
    await expectValidAnecf(h.engine, h.tenant.id, xml);

    const again = await admin.post(`${URL}/${failed.id}/retry`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 409, code: 'Annulment.NotRetryable' });

    const ranges = (await admin.get('/api/v1/sequences')).json();
    expect(ranges.find((r: { type: number; rangeFrom: number }) => r.type === 31 && r.rangeFrom === 1)).toMatchObject({ next: 1, remaining: 900 });
  });

  it('answers 400 with every field error, naming path and rule, and changes nothing', async () => {
    const h = await annulHarness();
    const admin = api(h.app, h.keys).as('admin_tenant');
    const shape = await admin.post(URL, { environment: 'test', lines: [{ type: 31, series: 'E', rangeFrom: 1 }] });
    expect(shape.statusCode).toBe(400);
    expect(shape.headers['content-type']).toContain('application/problem+json');
    expect(shape.json()).toMatchObject({
      status: 400,
      code: 'Validation.Failed',
      errors: { reason: ['is required'], 'lines[0].rangeTo': ['is required'] },
      fieldErrors: [
        { path: 'reason', code: 'ObjectRequiredProperty', message: 'is required' },
        { path: 'lines[0].rangeTo', code: 'ObjectRequiredProperty', message: 'is required' },
      ],
    });

    const rules = await admin.post(URL, { environment: 'test', reason: 'x', lines: [line(31, 1, 10), line(31, 5, 20), line(32, 999, 1001)] });
    expect(rules.statusCode).toBe(400);
    expect(rules.json().fieldErrors).toEqual([
      { path: 'lines[1]', code: 'Annulment.LinesOverlap', message: 'E310000000005–E310000000020 overlaps lines[0] (E310000000001–E310000000010)' },
      { path: 'lines[2]', code: 'Annulment.OutsideRange', message: 'E320000000999–E320000001001 is not inside one authorized range of type 32 in test (loaded: 1–1000)' },
    ]);
    expect(rules.json().errors).toEqual({
      'lines[1]': ['E310000000005–E310000000020 overlaps lines[0] (E310000000001–E310000000010)'],
      'lines[2]': ['E320000000999–E320000001001 is not inside one authorized range of type 32 in test (loaded: 1–1000)'],
    });
    const list = await admin.get(URL);
    expect(list.json()).toEqual([]);
    expect(h.sandbox.control.annulments()).toEqual([]);
  });

  it('is admin_tenant only; another tenant’s annulment is 404', async () => {
    const h = await annulHarness();
    const body = { environment: 'test', reason: 'x', lines: [line(31, 1, 1)] };
    for (const role of ['emisor', 'consultor'] as const) {
      for (const [method, url] of [['POST', URL], ['GET', URL]] as const) {
        const res = await api(h.app, h.keys).as(role).send(method, url, method === 'POST' ? body : undefined);
        expect(res.statusCode, `${role} ${method}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'Auth.RoleNotAllowed' });
      }
    }
    const { organization, owner } = await seedOrganization(h.engine);
    const orgRes = await api(h.app).key(await organizationKey(h.engine, organization.id, owner.id)).post(URL, body);
    expect(orgRes.json()).toMatchObject({ status: 403, code: 'Auth.TenantKeyRequired' });
    expect(h.sandbox.control.annulments()).toEqual([]);

    const mine = (await api(h.app, h.keys).as('admin_tenant').post(URL, body)).json();
    expect(mine.status).toBe('voided');
    const other = await seedIssuer(h.engine);
    const theirs = api(h.app, other.keys).as('admin_tenant');
    expect((await theirs.get(`${URL}/${mine.id}`)).statusCode).toBe(404);
    expect((await theirs.post(`${URL}/${mine.id}/retry`)).statusCode).toBe(404);
    expect((await theirs.get(URL)).json()).toEqual([]);
    expect((await theirs.get(`${URL}/not-a-uuid`)).statusCode).toBe(400);
  });

  it('is in the OpenAPI document with its role', async () => {
    const h = await annulHarness();
    const doc = (await api(h.app).get('/api/v1/openapi.json')).json();
    expect(doc.paths[URL].post.description).toContain('Roles: admin_tenant.');
    expect(doc.paths[`${URL}/{id}/retry`].post.description).toContain('Roles: admin_tenant.');
    expect(Object.keys(doc.paths[URL].post.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '409']));
  });
});

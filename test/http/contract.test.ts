import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

describe('HTTP contract plumbing', () => {
  it('serves the OpenAPI document without a key, with request and response schemas on every route', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const res = await api(app).get('/api/v1/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    // The B2B receiver routes (/{tenantId}/fe/...) are the authority's protocol, not this API: no key, plain-text answers.
    for (const r of app.routeAccess.filter((r) => r.access !== 'public' && r.access !== 'receiver' && r.access !== 'receiver-auth')) {
      const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(Object.keys(op.responses), `${r.method} ${path} responses`).toContain('401');
      expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
      if (r.method === 'PUT') expect(op.requestBody, `${r.method} ${path} body`).toBeDefined();
    }
    expect(Object.keys(doc.paths['/api/v1/certificates'].post.requestBody.content)).toEqual(['multipart/form-data']);
    expect(doc.paths['/api/v1/organizations/{id}/tenants'].post.requestBody).toBeDefined();
    const docs = await api(app).get('/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('answers unknown routes with a 404 problem', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const res = await api(app).get('/api/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, code: 'Http.RouteNotFound' });
  });

  it('answers 413 with a problem when the body is larger than the limit', async () => {
    const engine = await testEngine();
    const app = await buildApp({ engine, bodyLimit: 1024 });
    const { keys } = await seedTenant(engine);
    const res = await api(app, keys).as('admin_tenant').put('/api/v1/emitter-profile', { address: 'x'.repeat(5000) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, title: 'Payload too large' });
  });

  it('hides internals of unexpected failures behind a 500 problem with a request id', async () => {
    const engine = await testEngine();
    const logged: string[] = [];
    const app = await buildApp({
      engine,
      logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } },
    });
    const { keys } = await seedTenant(engine);
    await engine.db.destroy(); // the store goes away under the server
    const res = await api(app, keys).as('admin_tenant').get('/api/v1/emitter-profile');
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ status: 500, code: 'Internal', title: 'Internal server error' });
    expect(JSON.stringify(body)).not.toMatch(/destroyed|kysely|driver/i);
    expect(logged.join('\n')).toContain(body.requestId);
  });
});

import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { MAX_CERTIFICATE_FILE_BYTES } from '../../src/engine/certificates/certificates.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

/** A multipart/form-data body with the given text fields and files. */
function multipart(fields: Record<string, string | { filename: string; content: Buffer }>) {
  const boundary = `----ecf${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const head =
      typeof value === 'string'
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: application/x-pkcs12\r\n\r\n`;
    chunks.push(Buffer.from(head), typeof value === 'string' ? Buffer.from(value) : value.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function setup() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  const seeded = await seedTenant(engine);
  return { engine, app, ...seeded };
}

describe('certificates over HTTP', () => {
  it('uploads a .p12 with an ñ password, lists, shows and revokes it', async () => {
    const { app, keys, tenant } = await setup();
    const body = multipart({ password: 'contraseña', file: { filename: 'firma.p12', content: makeP12(makeIdentity(), 'contraseña') } });
    const res = await api(app, keys).as('admin_tenant').post('/api/v1/certificates', body.payload, { headers: body.headers });
    expect(res.statusCode).toBe(200);
    const cert = res.json();
    expect(cert).toMatchObject({ tenantId: tenant.id, status: 'active', keyBits: 2048, revokedAt: null });
    expect(JSON.stringify(cert)).not.toMatch(/contraseña|PRIVATE KEY|p12/);

    const list = await api(app, keys).as('admin_tenant').get('/api/v1/certificates');
    expect(list.json().map((c: { id: string }) => c.id)).toEqual([cert.id]);
    const one = await api(app, keys).as('admin_tenant').get(`/api/v1/certificates/${cert.id}`);
    expect(one.json()).toEqual(cert);
    const revoked = await api(app, keys).as('admin_tenant').post(`/api/v1/certificates/${cert.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: cert.id, status: 'revoked' });
  });

  it('answers 400 problems that name the reason, for each kind of bad upload', async () => {
    const { app, keys } = await setup();
    const post = (fields: Parameters<typeof multipart>[0]) => {
      const body = multipart(fields);
      return api(app, keys).as('admin_tenant').post('/api/v1/certificates', body.payload, { headers: body.headers });
    };
    const cases: [Parameters<typeof multipart>[0], string, string][] = [
      [{ password: 'x', file: { filename: 'a.p12', content: Buffer.from('hola') } }, 'Certificate.NotPkcs12', 'not a PKCS#12'],
      [{ password: 'mala', file: { filename: 'a.p12', content: makeP12(makeIdentity(), 'buena') } }, 'Certificate.WrongPassword', 'password does not open'],
      [{ password: 'p', file: { filename: 'a.p12', content: makeP12(makeIdentity({ bits: 1024 }), 'p') } }, 'Certificate.KeyTooShort', 'at least 2048'],
    ];
    for (const [fields, code, words] of cases) {
      const res = await post(fields);
      expect(res.statusCode, code).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, code });
      expect(res.json().detail).toContain(words);
    }
    const missing = await post({ note: 'nothing useful' });
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json().errors)).toEqual(['file', 'password']);
    const list = await api(app, keys).as('admin_tenant').get('/api/v1/certificates');
    expect(list.json()).toEqual([]);
  });

  it('answers 413 for a file over the limit and 400 for a body that is not multipart', async () => {
    const { app, keys } = await setup();
    const body = multipart({ password: 'p', file: { filename: 'big.p12', content: Buffer.alloc(MAX_CERTIFICATE_FILE_BYTES + 10, 7) } });
    const big = await api(app, keys).as('admin_tenant').post('/api/v1/certificates', body.payload, { headers: body.headers });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ status: 413, title: 'Payload too large' });
    const json = await api(app, keys).as('admin_tenant').post('/api/v1/certificates', { file: 'x', password: 'y' });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toMatchObject({ code: 'Certificate.NotMultipart' });
  });

  it('answers 404 for another tenant’s certificate', async () => {
    const { app, engine, keys } = await setup();
    const other = await seedTenant(engine);
    const body = multipart({ password: 'p', file: { filename: 'a.p12', content: makeP12(makeIdentity(), 'p') } });
    const created = await api(app, other.keys).as('admin_tenant').post('/api/v1/certificates', body.payload, { headers: body.headers });
    const id = created.json().id;
    for (const req of [
      { method: 'GET' as const, url: `/api/v1/certificates/${id}` },
      { method: 'POST' as const, url: `/api/v1/certificates/${id}/revoke` },
    ]) {
      const res = await api(app, keys).as('admin_tenant').send(req.method, req.url);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('Certificate.NotFound');
    }
    const still = await api(app, other.keys).as('admin_tenant').get(`/api/v1/certificates/${id}`);
    expect(still.json().status).toBe('active');
  });
});

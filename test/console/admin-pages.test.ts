import { describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { listCertificates } from '../../src/engine/certificates/index.js';
import { listRanges } from '../../src/engine/sequences/index.js';
import { listAnnulments } from '../../src/engine/sequences/annulling.js';
import { listDeliveries } from '../../src/engine/webhooks/index.js';
import { startCertification, recordPaso } from '../../src/engine/certification/index.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { seedIssuer } from '../helpers.js';
import { receptionHarness } from '../engine/reception/harness.js';
import { deadDelivery } from './admin-fixtures.js';
import { setStatusKey } from '../../src/engine/taxauth/index.js';
import { STATUS_SNAPSHOT_STATE } from '../../src/engine/taxauth/status-key.js';
import { FORM, form, signIn } from './inject.js';

type App = Awaited<ReturnType<typeof receptionHarness>>['app'];
const ROLES = ['admin_tenant', 'emisor', 'consultor'] as const;

/** A multipart body as a browser sends it. */
function multipart(parts: { name: string; value: string | Buffer; filename?: string }[]) {
  const boundary = '----console-test-boundary';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"\r\nContent-Type: application/x-pkcs12` : ''}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: Buffer.concat(chunks) };
}

/** The text of an element by id in a page (tags dropped). */
const byId = (res: LightMyRequestResponse, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(res.body)?.[1];

describe('the console admin pages over HTTP', () => {
  it('lets each role open what the role table allows, and refuses a forged POST from the others, without a session or a CSRF token', async () => {
    const h = await receptionHarness();
    const { endpoint, delivery } = await deadDelivery(h.engine, h.tenant.id);
    const cert = (await listCertificates(h.engine, h.tenant.id))[0]!;
    const sessions = Object.fromEntries(await Promise.all(ROLES.map(async (r) => [r, await signIn(h.app, h.keys[r])] as const)));
    const pages = ['/console/', '/console/sequences', '/console/certificates', '/console/webhooks', '/console/certification'];
    const expected: Record<(typeof ROLES)[number], number[]> = {
      admin_tenant: [200, 200, 200, 200, 200],
      emisor: [200, 403, 403, 403, 403],
      consultor: [200, 403, 403, 403, 403],
    };
    for (const role of ROLES) {
      for (const [i, url] of pages.entries()) {
        const res = await h.app.inject({ method: 'GET', url, headers: { cookie: sessions[role]!.cookie } });
        expect(res.statusCode, `${role} GET ${url}`).toBe(expected[role][i]);
        expect(res.headers['content-type']).toContain('text/html');
      }
    }
    const posts = [
      ['/console/sequences/load', form({ environment: 'test', type: '31', rangeFrom: '5001', rangeTo: '5100', expiresOn: '2035-12-31' })],
      ['/console/sequences/annul', form({ environment: 'test', type: '31', rangeFrom: '900', rangeTo: '901', reason: 'x' })],
      [`/console/certificates/${cert.id}/revoke`, ''],
      [`/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, ''],
    ] as const;
    for (const role of ['emisor', 'consultor'] as const) {
      const { cookie, csrf } = sessions[role]!;
      for (const [url, body] of posts) {
        const res = await h.app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload: `${body}${body ? '&' : ''}_csrf=${csrf}` });
        expect(res.statusCode, `${role} POST ${url}`).toBe(403);
      }
      const upload = multipart([{ name: '_csrf', value: csrf }, { name: 'password', value: 'p' }, { name: 'file', value: Buffer.from('x'), filename: 'c.p12' }]);
      expect((await h.app.inject({ method: 'POST', url: '/console/certificates', headers: { ...upload.headers, cookie }, payload: upload.payload })).statusCode).toBe(403);
    }
    const admin = sessions.admin_tenant!;
    for (const [url, body] of posts) {
      // No session: a 401 page; no CSRF token: a 403 page.
      expect((await h.app.inject({ method: 'POST', url, headers: FORM, payload: body })).statusCode, url).toBe(401);
      expect((await h.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: admin.cookie }, payload: body })).statusCode, url).toBe(403);
    }
    for (const url of pages) expect((await h.app.inject({ method: 'GET', url })).statusCode).toBe(303);
    const noToken = multipart([{ name: 'password', value: 'p' }, { name: 'file', value: makeP12(makeIdentity({ serialNumber: `IDCDO-${h.tenant.rnc}` }), 'p'), filename: 'c.p12' }]);
    expect((await h.app.inject({ method: 'POST', url: '/console/certificates', headers: { ...noToken.headers, cookie: admin.cookie }, payload: noToken.payload })).statusCode).toBe(403);
    // Nothing changed by any refused request.
    expect((await listRanges(h.engine, h.tenant.id)).some((r) => r.rangeFrom === 5001)).toBe(false);
    expect((await listCertificates(h.engine, h.tenant.id)).map((c) => c.status)).toEqual(['active']);
    expect((await listDeliveries(h.engine, h.tenant.id, endpoint.id)).items[0]!.status).toBe('dead');
  });

  it("answers 404 for another tenant's certificate and webhook delivery, and changes nothing of theirs", async () => {
    const h = await receptionHarness();
    const other = await seedIssuer(h.engine);
    const { endpoint, delivery } = await deadDelivery(h.engine, other.tenant.id);
    const theirs = (await listCertificates(h.engine, other.tenant.id))[0]!;
    const { cookie, csrf } = await signIn(h.app, h.keys.admin_tenant);
    for (const url of [`/console/certificates/${theirs.id}/revoke`, `/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`]) {
      const res = await h.app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload: form({ _csrf: csrf }) });
      expect(res.statusCode, url).toBe(404);
    }
    expect((await listCertificates(h.engine, other.tenant.id))[0]!.status).toBe('active');
    expect((await listDeliveries(h.engine, other.tenant.id, endpoint.id)).items[0]!.status).toBe('dead');
  });

  it('loads a range, shows an engine refusal beside its field (nothing stored), uploads a certificate, revokes, retries a dead delivery', async () => {
    const h = await receptionHarness();
    const { endpoint, delivery } = await deadDelivery(h.engine, h.tenant.id);
    const { cookie, csrf } = await signIn(h.app, h.keys.admin_tenant);
    const post = (url: string, fields: Record<string, string>) => h.app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload: form({ ...fields, _csrf: csrf }) });

    const bad = await post('/console/sequences/load', { environment: 'test', type: '31', rangeFrom: '5001', rangeTo: '4000', expiresOn: '' });
    expect(bad.statusCode).toBe(400);
    // The engine's rule in the page's language (Spanish: no ecf_lang cookie, no Accept-Language).
    expect(byId(bad, 'load-to-error')).toBe('El número final no puede ser menor que el inicial.');
    expect(byId(bad, 'load-expires-error')).toBe('Los rangos de este tipo requieren fecha de vencimiento.');
    expect(bad.body).toMatch(/<input id="load-to" name="rangeTo" value="4000"[^>]* aria-describedby="load-to-error" aria-invalid="true">/);
    const overlap = await post('/console/sequences/load', { environment: 'test', type: '31', rangeFrom: '10', rangeTo: '20', expiresOn: '2035-12-31' });
    expect(overlap.statusCode).toBe(400);
    expect(overlap.body).toContain('El rango se superpone con un rango ya cargado.');
    expect((await listRanges(h.engine, h.tenant.id)).filter((r) => r.type === 31)).toHaveLength(1);

    const good = await post('/console/sequences/load', { environment: 'cert', type: '31', rangeFrom: '5001', rangeTo: '5100', expiresOn: '2035-12-31' });
    expect(good.statusCode).toBe(303);
    expect(good.headers.location).toBe('/console/sequences');
    expect((await listRanges(h.engine, h.tenant.id)).find((r) => r.environment === 'cert')).toMatchObject({ type: 31, rangeFrom: 5001, rangeTo: 5100, expiresOn: '2035-12-31' });
    // The flash cookie the redirect set comes back with the next page.
    const flashCookie = ([good.headers['set-cookie']].flat() as string[]).map((l) => l.split(';')[0]).join('; ');
    const list = await h.app.inject({ method: 'GET', url: '/console/sequences', headers: { cookie: `${cookie}; ${flashCookie}` } });
    expect(list.body).toContain('Rango cargado.');
    expect(list.body).toContain('E5001–5100');

    const noReason = await post('/console/sequences/annul', { environment: 'test', type: '31', rangeFrom: '900', rangeTo: '901', reason: '' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toContain('<p class="error" id="annul-reason-error">Escriba el motivo.</p>');
    expect(await listAnnulments(h.engine, h.tenant.id)).toEqual([]);
    const annulled = await post('/console/sequences/annul', { environment: 'test', type: '31', rangeFrom: '900', rangeTo: '901', reason: 'Talonario dañado' });
    expect(annulled.statusCode).toBe(303);
    expect(await listAnnulments(h.engine, h.tenant.id)).toEqual([expect.objectContaining({ status: 'voided', totalCount: 2, reason: 'Talonario dañado' })]);

    const wrong = multipart([{ name: '_csrf', value: csrf }, { name: 'password', value: 'otra' }, { name: 'file', value: makeP12(makeIdentity({ serialNumber: `IDCDO-${h.tenant.rnc}` }), 'buena'), filename: 'c.p12' }]);
    const refused = await h.app.inject({ method: 'POST', url: '/console/certificates', headers: { ...wrong.headers, cookie }, payload: wrong.payload });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<p class="error" id="cert-password-error">La contraseña no abre este archivo de certificado.</p>');
    expect(await listCertificates(h.engine, h.tenant.id)).toHaveLength(1);
    const right = multipart([{ name: '_csrf', value: csrf }, { name: 'password', value: 'buena' }, { name: 'file', value: makeP12(makeIdentity({ commonName: 'Nuevo', serialNumber: `IDCDO-${h.tenant.rnc}` }), 'buena'), filename: 'c.p12' }]);
    const uploaded = await h.app.inject({ method: 'POST', url: '/console/certificates', headers: { ...right.headers, cookie }, payload: right.payload });
    expect(uploaded.statusCode).toBe(303);
    const certs = await listCertificates(h.engine, h.tenant.id);
    expect(certs.map((c) => c.status)).toEqual(['active', 'superseded']);
    expect((await post(`/console/certificates/${certs[1]!.id}/revoke`, {})).statusCode).toBe(303);
    expect((await listCertificates(h.engine, h.tenant.id))[1]!.status).toBe('revoked');

    expect((await post(`/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, {})).statusCode).toBe(303);
    expect((await listDeliveries(h.engine, h.tenant.id, endpoint.id)).items[0]).toMatchObject({ status: 'pending', attempts: 0 });
    // Only a dead delivery is retried: the engine's 404 for any other.
    expect((await post(`/console/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`, {})).statusCode).toBe(404);
  });

  it('shows the overview by role: rejected and received e-CF for all, the admin parts for admins; the certification Pasos as the engine keeps them', async () => {
    const h = await receptionHarness();
    const ecf = await h.issue();
    h.sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    await h.drive();
    const received = await h.sendFresh();
    expect(received.answer).toMatchObject({ status: 200 });
    const admin = await signIn(h.app, h.keys.admin_tenant);
    const page = await h.app.inject({ method: 'GET', url: '/console/', headers: { cookie: admin.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<a href="/console/ecf/${ecf.id}">${ecf.encf}</a>`);
    expect(page.body).toMatch(new RegExp(`<a href="/console/received/[0-9a-f-]{36}">${received.encf}</a>`));
    for (const id of ['authority', 'emission', 'certificate', 'stock', 'webhooks']) expect(page.body, id).toContain(`<h2 id="${id}">`);
    expect(page.body).toContain('La emisión está abierta.');
    const consultor = await signIn(h.app, h.keys.consultor);
    const theirs = await h.app.inject({ method: 'GET', url: '/console/', headers: { cookie: consultor.cookie } });
    expect(theirs.body).toContain(`<a href="/console/ecf/${ecf.id}">`);
    for (const id of ['certificate', 'stock', 'webhooks']) expect(theirs.body, id).not.toContain(`<h2 id="${id}">`);
    expect(theirs.body).not.toContain('href="/console/sequences"');

    // The authority's status as the status watch stored it, with a maintenance window in force: contingency.
    await setStatusKey(h.engine, 'status-key-for-tests');
    const now = h.engine.clock.now().getTime();
    const snapshot = {
      v: 1,
      checkedAt: new Date(now).toISOString(),
      url: 'https://status.invalid',
      services: [],
      windows: [{ environment: 'test', ambiente: 'TesteCF', startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() }],
      environments: { test: { status: 'Mantenimiento', available: false }, cert: { status: 'Disponible', available: true }, production: null },
      problems: [],
      error: null,
    };
    await h.engine.db.insertInto('platform_state').values({ key: STATUS_SNAPSHOT_STATE, value: JSON.stringify(snapshot), updated_at: new Date(now).toISOString() }).execute();
    const contingency = await h.app.inject({ method: 'GET', url: '/console/', headers: { cookie: consultor.cookie } });
    expect(contingency.body).toContain('<li>test: Mantenimiento</li>');
    expect(contingency.body).toContain('<li>cert: Disponible</li>');
    expect(contingency.body).toMatch(/Ventana de mantenimiento en curso hasta [^<]+: contingencia\./);

    const before = await h.app.inject({ method: 'GET', url: '/console/certification', headers: { cookie: admin.cookie } });
    expect(before.body).toContain('La certificación no ha comenzado');
    expect(before.body.match(/<li class="paso paso-pending">/g)).toHaveLength(14);
    await startCertification(h.engine, h.tenant.id);
    await recordPaso(h.engine, h.tenant.id, 2, { state: 'done', note: 'Set de pruebas enviado' });
    const after = await h.app.inject({ method: 'GET', url: '/console/certification', headers: { cookie: admin.cookie } });
    expect(after.body).toContain('<li class="paso paso-done">');
    expect(after.body).toContain('Set de pruebas enviado');
    expect(after.body.match(/<li class="paso paso-pending">/g)).toHaveLength(13);
  });
});

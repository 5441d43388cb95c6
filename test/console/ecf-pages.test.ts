import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { listQueryOf } from '../../src/console/pages/ecf-list.js';
import { listEcf } from '../../src/engine/ecf/index.js';
import { invoice31, seedIssuer, testEngine } from '../helpers.js';
import { FORM, signIn } from './inject.js';

type App = Awaited<ReturnType<typeof buildApp>>;
const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const ROLES = ['admin_tenant', 'emisor', 'consultor'] as const;

/** Two issuing tenants, ours with a type 31 and a credit note modifying it, the other with one e-CF. */
async function setup() {
  const engine = await testEngine();
  const ours = await seedIssuer(engine);
  const other = await seedIssuer(engine);
  const invoice = (await issueEcf(engine, ours.tenant.id, { idempotencyKey: 'inv-1', payload: invoice31() })).ecf;
  const note = (
    await issueEcf(engine, ours.tenant.id, {
      idempotencyKey: 'note-1',
      payload: invoice31({
        type: 34,
        reference: { modifiedNcf: invoice.encf, modifiedNcfDate: invoice.issueDate, modificationCode: '3' },
        lines: [{ name: 'Devolución de cemento', quantity: 1, unitPrice: '350.00' }],
      }),
    })
  ).ecf;
  const foreign = (await issueEcf(engine, other.tenant.id, { idempotencyKey: 'other-1', payload: invoice31() })).ecf;
  const app = await buildApp({ engine });
  apps.push(app);
  return { engine, app, ours, invoice, note, foreign };
}

const get = (app: App, url: string, cookie?: string): Promise<LightMyRequestResponse> => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
const retry = (app: App, id: string, cookie: string, csrf?: string) =>
  app.inject({ method: 'POST', url: `/console/ecf/${id}/retry`, headers: { ...FORM, cookie }, payload: new URLSearchParams(csrf ? { _csrf: csrf } : {}).toString() });

describe('the e-CF pages over HTTP', () => {
  it('lets every role read the list, the statuses, the detail, the PDF and the XML; only issuers may retry; no session goes to sign-in', async () => {
    const { app, ours, invoice, note } = await setup();
    const pages = [`/console/ecf`, `/console/ecf/statuses?ids=${invoice.id}`, `/console/ecf/${invoice.id}`, `/console/ecf/${invoice.id}/pdf?layout=pos`, `/console/ecf/${invoice.id}/xml`];
    for (const url of pages) {
      const res = await get(app, url);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toBe(`/console/sign-in?next=${encodeURIComponent(url)}`);
    }
    const anonymousRetry = await app.inject({ method: 'POST', url: `/console/ecf/${invoice.id}/retry`, headers: FORM, payload: '' });
    expect(anonymousRetry.statusCode).toBe(401);

    for (const role of ROLES) {
      const { cookie, csrf } = await signIn(app, ours.keys[role]);
      const list = await get(app, '/console/ecf', cookie);
      expect(list.statusCode, role).toBe(200);
      expect(list.body).toContain(`href="/console/ecf/${invoice.id}"`);
      expect(list.body).toContain(invoice.encf);
      // Still signed (no jobs here): its status is polled.
      expect(list.body).toContain(`data-poll="/console/ecf/statuses?ids=`);

      const statuses = await get(app, `/console/ecf/statuses?ids=${invoice.id},${note.id}`, cookie);
      expect(statuses.statusCode).toBe(200);
      expect(statuses.json()).toEqual({ statuses: { [invoice.id]: 'signed', [note.id]: 'signed' }, [`s-${invoice.id}`]: 'Firmado', [`s-${note.id}`]: 'Firmado', done: false });

      const detail = await get(app, `/console/ecf/${invoice.id}`, cookie);
      expect(detail.statusCode).toBe(200);
      expect(detail.body).toContain('Constructora Ejemplo SRL');
      expect(detail.body).toContain('Cemento gris');
      // The totals by rate under names a person reads, not the XML's element names.
      expect(detail.body).toContain('Monto gravado al 18 %');
      expect(detail.body).not.toContain('MontoGravadoI1');
      expect(detail.body).toContain(invoice.securityCode);
      expect(detail.body).toContain(`src="/console/ecf/${invoice.id}/pdf?layout=letter"`);
      // The note that modifies it, linked.
      expect(detail.body).toContain(`href="/console/ecf/${note.id}"`);
      // Signed and waiting: nothing to retry, for any role.
      expect(detail.body).not.toContain('/retry"');

      const pdf = await get(app, `/console/ecf/${invoice.id}/pdf?layout=pos&download=true`, cookie);
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.headers['content-disposition']).toMatch(/^attachment; filename=".*-pos\.pdf"$/);
      expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'self'");

      const xml = await get(app, `/console/ecf/${invoice.id}/xml`, cookie);
      expect(xml.statusCode).toBe(200);
      const { bytes } = await (await import('../../src/engine/ecf/index.js')).ecfXml(app.engine, ours.tenant.id, invoice.id);
      expect(Buffer.compare(xml.rawPayload, bytes)).toBe(0);

      // The route checks the role whatever the page shows: a consultor's forged retry is a 403; an issuer's reaches the engine (409: signed is not retryable).
      const posted = await retry(app, invoice.id, cookie, csrf);
      expect(posted.statusCode, role).toBe(role === 'consultor' ? 403 : 409);
      // Without the CSRF token: refused before anything.
      expect((await retry(app, invoice.id, cookie)).statusCode).toBe(403);
    }
    expect((await listEcf(app.engine, ours.tenant.id, { Status: 'signed' })).totalCount).toBe(2);
  });

  it('answers 404 for another tenant’s e-CF on the detail, the PDF, the XML, retry and statuses', async () => {
    const { app, ours, invoice, foreign } = await setup();
    const { cookie, csrf } = await signIn(app, ours.keys.admin_tenant);
    for (const url of [`/console/ecf/not-an-id`, `/console/ecf/${foreign.id}`, `/console/ecf/${foreign.id}/pdf`, `/console/ecf/${foreign.id}/xml`, `/console/ecf/statuses?ids=${invoice.id},${foreign.id}`]) {
      const res = await get(app, url, cookie);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain(foreign.encf);
    }
    expect((await retry(app, foreign.id, cookie, csrf)).statusCode).toBe(404);
    // A bounded number of ids, named in the error.
    const many = Array.from({ length: 201 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
    const tooMany = await get(app, `/console/ecf/statuses?ids=${many}`, cookie);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual({ errors: [{ path: 'ids', code: 'Validation.TooMany', message: 'ids must name at most 200 e-CF, not 201' }] });
  });

  it('maps the list form to the engine’s query, and shows a bad filter beside its field', async () => {
    expect(listQueryOf({ Type: '34', Status: 'rejected', Search: ' E34 ', From: '2026-03-01', To: '', Environment: 'test', Sort: 'montoTotal.asc', Page: '2', PageSize: '50', Retrying: 'true' })).toEqual({
      Type: '34', Status: 'rejected', Search: 'E34', From: '2026-03-01', Environment: 'test', Sort: 'montoTotal', Order: 'asc', Page: '2', PageSize: '50', Retrying: true,
    });
    expect(listQueryOf({ Sort: '', MinAmount: '100.50', MaxAmount: '200', _csrf: 'x' })).toEqual({ MinAmount: '100.50', MaxAmount: '200' });

    const { app, ours, invoice, note } = await setup();
    const { cookie } = await signIn(app, ours.keys.consultor);
    const notes = await get(app, '/console/ecf?Type=34', cookie);
    expect(notes.body).toContain(note.encf);
    expect(notes.body).not.toContain(`>${invoice.encf}<`);
    const search = await get(app, `/console/ecf?Search=${invoice.encf}`, cookie);
    expect(search.body).toContain(`>${invoice.encf}<`);
    expect(search.body).not.toContain(`>${note.encf}<`);
    const none = await get(app, '/console/ecf?Status=accepted', cookie);
    expect(none.body).toContain('Ningún e-CF coincide');
    // Largest first: the invoice (7,060 + ITBIS) before the note.
    const sorted = await get(app, '/console/ecf?Sort=montoTotal.desc', cookie);
    expect(sorted.body.indexOf(invoice.encf)).toBeLessThan(sorted.body.indexOf(`>${note.encf}<`));
    const asc = await get(app, '/console/ecf?Sort=montoTotal.asc', cookie);
    expect(asc.body.indexOf(`>${note.encf}<`)).toBeLessThan(asc.body.indexOf(`>${invoice.encf}<`));

    const bad = await get(app, '/console/ecf?From=03/01/2026', cookie);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/<input id="f-From" name="From" type="date" value="03\/01\/2026" aria-describedby="f-From-error" aria-invalid="true">/);
    expect(bad.body).toContain('<span class="field-error" id="f-From-error">Debe ser una fecha válida (año-mes-día).</span>');
  });
});

import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { listEcf } from '../../src/engine/ecf/index.js';
import { listReceivedEcf } from '../../src/engine/reception/index.js';
import { receptionHarness } from '../engine/reception/harness.js';
import { seedIssuer } from '../helpers.js';
import { FORM, form, signIn } from './inject.js';

type App = Awaited<ReturnType<typeof receptionHarness>>['app'];
type Role = 'admin_tenant' | 'emisor' | 'consultor';
const ROLES: readonly Role[] = ['admin_tenant', 'emisor', 'consultor'];

const LINE = { 'lines[0].name': 'Cemento gris', 'lines[0].quantity': '10', 'lines[0].unitPrice': '350.00', 'lines[0].itbisRate': '18', 'lines[0].discount': '' };
const ISSUE = { type: '31', incomeType: '01', 'buyer.rnc': '131880681', 'buyer.name': 'Constructora Ejemplo SRL', 'payment.condition': '1', ...LINE };

async function setup() {
  const h = await receptionHarness();
  const sessions = {} as Record<Role, { cookie: string; csrf: string }>;
  for (const role of ROLES) sessions[role] = await signIn(h.app, h.keys[role]);
  const sent = await h.sendFresh();
  expect(sent.answer.status).toBe(200);
  const received = (await listReceivedEcf(h.engine, h.tenant.id, {})).items[0]!;
  const post = (role: Role, url: string, fields: Record<string, string>, csrf = true) =>
    h.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: sessions[role].cookie }, payload: form({ ...(csrf && { _csrf: sessions[role].csrf }), ...fields }) });
  const get = (role: Role, url: string) => h.app.inject({ method: 'GET', url, headers: { cookie: sessions[role].cookie } });
  const preview = (role: Role, body: Record<string, string>, csrf = true) =>
    h.app.inject({ method: 'POST', url: '/console/issue/preview', headers: { cookie: sessions[role].cookie, ...(csrf && { 'x-csrf-token': sessions[role].csrf }) }, payload: body });
  return { ...h, sessions, received, post, get, preview };
}

/** The text of the error note a field's aria-describedby names. */
function errorBeside(body: string, id: string): string | undefined {
  if (!new RegExp(`id="${id}"[^>]*aria-invalid="true" aria-describedby="(?:[^"]* )?${id}-error"`).test(body)) return undefined;
  return new RegExp(`<p class="field-error" id="${id}-error"[^>]*>([^<]*)</p>`).exec(body)?.[1];
}

describe('the console: issuing from a form and the received e-CF', () => {
  it('lets each role in only where the role table does; no session, a forged POST, another tenant’s id are refused', async () => {
    const h = await setup();
    const id = h.received.id;
    const expected: Record<Role, number[]> = { admin_tenant: [200, 200, 200, 200, 200], emisor: [200, 200, 200, 200, 200], consultor: [403, 403, 200, 200, 403] };
    for (const role of ROLES) {
      const answers = [
        (await h.get(role, '/console/issue')).statusCode,
        (await h.preview(role, ISSUE)).statusCode,
        (await h.get(role, '/console/received')).statusCode,
        (await h.get(role, `/console/received/${id}`)).statusCode,
        // An add-line submit issues nothing: the access check is what answers.
        (await h.post(role, '/console/issue', { ...ISSUE, action: 'add' })).statusCode,
      ];
      expect(answers, role).toEqual(expected[role]);
    }
    const consultorAnswer = await h.post('consultor', `/console/received/${id}/answer`, { decision: 'accepted' });
    expect(consultorAnswer.statusCode).toBe(403);
    // The consultor's page offers no answer buttons; the emisor's does.
    expect((await h.get('consultor', `/console/received/${id}`)).body).not.toContain('name="decision"');
    expect((await h.get('emisor', `/console/received/${id}`)).body).toContain('name="decision" value="accepted"');

    // No session: GET to the sign-in page, POST a 401 page.
    for (const url of ['/console/issue', '/console/received', `/console/received/${id}`]) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent(url)}`);
    }
    for (const url of ['/console/issue', '/console/issue/preview', `/console/received/${id}/answer`]) {
      expect((await h.app.inject({ method: 'POST', url, headers: FORM, payload: form(ISSUE) })).statusCode, url).toBe(401);
    }
    // Without the CSRF token: 403, nothing issued or answered.
    expect((await h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: 'forged' }, false)).statusCode).toBe(403);
    expect((await h.preview('emisor', ISSUE, false)).statusCode).toBe(403);
    expect((await h.post('emisor', `/console/received/${id}/answer`, { decision: 'accepted' }, false)).statusCode).toBe(403);
    expect((await listEcf(h.engine, h.tenant.id, {})).totalCount).toBe(0);
    expect((await h.get('emisor', `/console/received/${id}`)).body).toContain('name="decision"');

    // Another tenant's received e-CF: 404, to read it and to answer it.
    const other = await seedIssuer(h.engine);
    const stranger = await signIn(h.app, other.keys.admin_tenant);
    const foreign = await h.app.inject({ method: 'GET', url: `/console/received/${id}`, headers: { cookie: stranger.cookie } });
    expect(foreign.statusCode).toBe(404);
    const foreignAnswer = await h.app.inject({
      method: 'POST',
      url: `/console/received/${id}/answer`,
      headers: { ...FORM, cookie: stranger.cookie },
      payload: form({ _csrf: stranger.csrf, decision: 'accepted' }),
    });
    expect(foreignAnswer.statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: '/console/received', headers: { cookie: stranger.cookie } })).body).not.toContain(h.received.encf);
  });

  it('previews with the engine’s own validation: totals when valid, errors by form field (the form row, not the payload line) when not', async () => {
    const h = await setup();
    const ok = await h.preview('emisor', { ...ISSUE, 'lines[1].name': '', 'lines[1].unitPrice': '' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ valid: true, errors: {}, top: [] });
    // 10 × 350.00 = 3,500.00 taxed at 18 %: 630.00, total 4,130.00.
    const totals = ok.json().totals as Record<string, string>;
    expect(totals.montoGravadoTotal).toMatch(/3[,.]?500[.,]00/);
    expect(totals.totalItbis).toMatch(/630[.,]00/);
    expect(totals.montoTotal).toMatch(/4[,.]?130[.,]00/);

    // Row 0 left blank, row 1 without a price, a bad buyer RNC.
    const bad = await h.preview('emisor', { ...ISSUE, 'buyer.rnc': '12', 'lines[0].name': '', 'lines[0].unitPrice': '', 'lines[1].name': 'Varilla', 'lines[1].quantity': '2', 'lines[1].unitPrice': '' });
    const answer = bad.json() as { valid: boolean; totals: unknown; errors: Record<string, string> };
    expect(answer.valid).toBe(false);
    expect(answer.totals).toBeNull();
    expect(Object.keys(answer.errors).sort()).toEqual(['buyer.rnc', 'lines[1].unitPrice']);
  });

  it('issues once for one idempotency key however many times the form is posted, shows errors beside their fields, adds lines without JavaScript', async () => {
    const h = await setup();
    const page = await h.get('emisor', '/console/issue');
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(page.body)![1]!;
    expect(page.body).toContain('name="lines[2].name"');
    expect(page.body).not.toContain('name="lines[3].name"');

    const added = await h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: key, action: 'add' });
    expect(added.statusCode).toBe(200);
    expect(added.body).toContain('value="Cemento gris"');
    expect(added.body).toContain('name="lines[1].name"');
    expect(added.body).toContain(`value="${key}"`);

    const wrong = await h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: key, 'lines[0].unitPrice': '', 'buyer.rnc': '12' });
    expect(wrong.statusCode).toBe(400);
    expect(errorBeside(wrong.body, 'f-lines-0-unitPrice')).toBeTruthy();
    expect(errorBeside(wrong.body, 'f-buyer-rnc')).toBeTruthy();
    expect(errorBeside(wrong.body, 'f-buyer-name')).toBeUndefined();
    expect((await listEcf(h.engine, h.tenant.id, {})).totalCount).toBe(0);

    const first = await h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: key });
    const second = await h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: key });
    expect(first.statusCode).toBe(303);
    expect(second.statusCode).toBe(303);
    const list = await listEcf(h.engine, h.tenant.id, {});
    expect(list.totalCount).toBe(1);
    expect(first.headers.location).toBe(`/console/ecf/${list.items[0]!.id}`);
    expect(second.headers.location).toBe(first.headers.location);
    // The buyer is offered the next time.
    expect((await h.get('emisor', '/console/issue')).body).toMatch(/<datalist id="recent-buyers"><option value="131880681">Constructora Ejemplo SRL<\/option>/);
  });

  it('issues a credit note naming the document it modifies, a credit sale with its due date and an exempt line; offers only the types the form can fill', async () => {
    const h = await setup();
    const page = await h.get('emisor', '/console/issue');
    const types = [...page.body.matchAll(/<option value="(\d\d)"/g)].map((m) => m[1]).filter((v) => Number(v) >= 31);
    expect(types).toEqual(['31', '32', '33', '34', '44', '45', '46']);
    // The note's fields are there for the script to show; hidden while the type is not a note.
    expect(page.body).toMatch(/<fieldset data-note-reference="33 34" hidden>/);

    const fresh = async (fields: Record<string, string>) => {
      const key = /name="idempotencyKey" value="([^"]+)"/.exec((await h.get('emisor', '/console/issue')).body)![1]!;
      return h.post('emisor', '/console/issue', { ...ISSUE, idempotencyKey: key, ...fields });
    };
    const credit = await fresh({ 'payment.condition': '2' });
    expect(credit.statusCode).toBe(400);
    expect(errorBeside(credit.body, 'f-payment-dueDate')).toBeTruthy();
    expect((await fresh({ 'payment.condition': '2', 'payment.dueDate': '2030-01-31' })).statusCode).toBe(303);

    const exempt = await fresh({ 'lines[0].itbisRate': 'E' });
    expect(exempt.statusCode).toBe(303);
    const invoice = (await listEcf(h.engine, h.tenant.id, {})).items.find((e) => exempt.headers.location === `/console/ecf/${e.id}`)!;
    // 10 × 350.00 exempt: no ITBIS.
    expect(Number(invoice.montoTotal)).toBe(3500);

    const noReference = await fresh({ type: '34' });
    expect(noReference.statusCode).toBe(400);
    expect(noReference.body).toMatch(/<fieldset data-note-reference="33 34">/);
    expect(errorBeside(noReference.body, 'f-reference-modifiedNcf')).toBeTruthy();
    const note = await fresh({
      type: '34', 'reference.modifiedNcf': invoice.encf.toLowerCase(), 'reference.modifiedNcfDate': invoice.issueDate, 'reference.modificationCode': '3',
      'lines[0].quantity': '1', 'lines[0].itbisRate': 'E',
    });
    expect(note.statusCode).toBe(303);
    // The invoice's page lists the note that modifies it.
    const detail = await h.get('emisor', `/console/ecf/${invoice.id}`);
    const noteId = note.headers.location!.split('/').pop()!;
    expect(detail.body).toContain(`href="/console/ecf/${noteId}"`);
  });

  it('answers a received e-CF: a rejection needs its reason (beside the field), an approval is signed and shown', async () => {
    const h = await setup();
    const url = `/console/received/${h.received.id}`;
    const inbox = await h.get('consultor', '/console/received?approval=pending');
    expect(inbox.body).toContain(h.received.encf);
    const badFilter = await h.get('consultor', '/console/received?issuerRnc=12');
    expect(badFilter.statusCode).toBe(400);
    expect(badFilter.body).toMatch(/id="f-issuerRnc"[^>]*aria-invalid="true"/);

    const reading: LightMyRequestResponse = await h.get('consultor', url);
    expect(reading.body).toContain(h.received.issuerName ?? h.received.issuerRnc);
    expect(reading.body).toMatch(/<tbody><tr><td class="number">1<\/td><th scope="row">/);

    const noReason = await h.post('admin_tenant', `${url}/answer`, { decision: 'rejected', rejectionReason: ' ' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toMatch(/id="f-rejectionReason"[^>]*aria-invalid="true"/);
    expect(noReason.body).toContain('id="f-rejectionReason-error"');

    const approved = await h.post('admin_tenant', `${url}/answer`, { decision: 'accepted', rejectionReason: 'typed, then approved' });
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe(url);
    const after = await h.get('consultor', url);
    expect(after.body).toContain('data-answer');
    expect(after.body).not.toContain('name="decision"');
    expect((await listReceivedEcf(h.engine, h.tenant.id, { Approval: 'accepted' })).totalCount).toBe(1);
  });
});

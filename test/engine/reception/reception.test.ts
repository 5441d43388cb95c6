import { describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/engine/events/outbox.js';
import { listInboundApprovals } from '../../../src/engine/reception/queries.js';
import { pendingWork } from '../../../src/engine/work/queue.js';
import { validateAgainstSchema } from '../../../src/engine/xml/xsd.js';
import { verifyWithXmlsec1 } from '../signing/verify-tools.js';
import { invoice31 } from '../../helpers.js';
import { receptionHarness } from './harness.js';

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

describe('receiving e-CF from another issuer, over HTTP', () => {
  it('answers a valid e-CF with a signed ARECF (received) that follows its schema and verifies with xmlsec1, stores it and emits the event', async () => {
    const h = await receptionHarness();
    const sent = await h.sendFresh();
    expect(sent.answer.status).toBe(200);
    expect(sent.answer.contentType).toContain('xml');
    const arecf = sent.answer.body;
    expect(validateAgainstSchema('arecf', arecf)).toEqual({ valid: true, errors: [] });
    const verified = verifyWithXmlsec1(arecf, h.certificatePem);
    expect(verified.ok, verified.output).toBe(true);
    expect(tag(arecf, 'Estado')).toBe('0');
    expect(tag(arecf, 'CodigoMotivoNoRecibido')).toBeNull();
    expect(tag(arecf, 'RNCEmisor')).toBe(h.sandbox.control.taxpayer.rnc);
    expect(tag(arecf, 'RNCComprador')).toBe(h.tenant.rnc);
    expect(tag(arecf, 'eNCF')).toBe(sent.encf);

    const events = await listEvents(h.engine.db, { tenantId: h.tenant.id });
    const received = events.filter((e) => e.type === 'inbound_ecf.received');
    expect(received).toHaveLength(1);
    const object = received[0]!.data.object as { id: string; status: string; commercialApprovalAutomatic: boolean };
    expect(object).toMatchObject({ status: 'received', commercialApprovalAutomatic: false });

    const one = await h.api('GET', `/api/v1/received-ecf/${object.id}`, undefined, 'consultor');
    expect(one.status).toBe(200);
    const view = await one.json();
    expect(view).toMatchObject({
      status: 'received',
      encf: sent.encf,
      type: 31,
      issuerRnc: h.sandbox.control.taxpayer.rnc,
      buyerRnc: h.tenant.rnc,
      montoTotal: sent.montoTotal,
      issueDate: sent.issueDate,
      reception: { estado: 0, reasonCode: null, reason: null },
      commercialApprovalAutomatic: false,
      approvalState: 'pending',
      commercialApproval: null,
      arecf,
    });
  });

  it('answers a tampered e-CF "not received" with code 2 (signature), and stores the refusal', async () => {
    const h = await receptionHarness();
    const sent = await h.sendFresh({ mutate: (xml) => xml.replace('<NombreItem>Papel bond (resma)</NombreItem>', '<NombreItem>Papel bond (caja)</NombreItem>') });
    expect(sent.answer.status).toBe(200);
    expect(validateAgainstSchema('arecf', sent.answer.body).valid).toBe(true);
    expect(verifyWithXmlsec1(sent.answer.body, h.certificatePem).ok).toBe(true);
    expect(tag(sent.answer.body, 'Estado')).toBe('1');
    expect(tag(sent.answer.body, 'CodigoMotivoNoRecibido')).toBe('2');
    const list = await (await h.api('GET', '/api/v1/received-ecf?status=not_received')).json();
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ encf: sent.encf, reception: { estado: 1, reasonCode: 2 }, approvalState: 'not_applicable' });
    expect((await listEvents(h.engine.db, { tenantId: h.tenant.id })).filter((e) => e.type === 'inbound_ecf.received')).toHaveLength(1);
  });

  it('refuses an e-CF addressed to another RNC (code 4) and one that breaks its schema (code 1)', async () => {
    const h = await receptionHarness();
    const other = await h.sendFresh({ buyerRnc: '101010101' });
    expect([tag(other.answer.body, 'Estado'), tag(other.answer.body, 'CodigoMotivoNoRecibido')]).toEqual(['1', '4']);
    expect(tag(other.answer.body, 'RNCComprador')).toBe(h.tenant.rnc);
    const broken = await h.sendFresh({ mutate: (xml) => xml.replace(/<MontoTotal>[^<]*<\/MontoTotal>/, '<MontoTotal>mucho</MontoTotal>') });
    expect([tag(broken.answer.body, 'Estado'), tag(broken.answer.body, 'CodigoMotivoNoRecibido')]).toEqual(['1', '1']);
  });

  it('stores the same document once: the same bytes get the first ARECF again, another document with the same e-NCF is a duplicate (code 3)', async () => {
    const h = await receptionHarness();
    const first = await h.sendFresh();
    const again = await h.sandbox.control.taxpayer.sendEcf(h.receiverUrl, first.xml, { encf: first.encf });
    expect(again.body).toBe(first.answer.body);
    h.engine.clock.advance(60_000);
    const resigned = h.sandbox.control.taxpayer.makeEcf({ buyerRnc: h.tenant.rnc, encf: first.encf });
    const duplicate = await h.sandbox.control.taxpayer.sendEcf(h.receiverUrl, resigned.xml, { encf: first.encf });
    expect([tag(duplicate.body, 'Estado'), tag(duplicate.body, 'CodigoMotivoNoRecibido')]).toEqual(['1', '3']);
    const rows = await h.engine.db.selectFrom('received_ecf').select(['status', 'reason_code']).orderBy('received_at').execute();
    expect(rows).toEqual([
      { status: 'received', reason_code: null },
      { status: 'not_received', reason_code: 3 },
    ]);
    expect((await listEvents(h.engine.db, { tenantId: h.tenant.id })).filter((e) => e.type === 'inbound_ecf.received')).toHaveLength(2);
  });

  it('answers 400 in plain text when the upload names no document, and 404 for an unknown tenant', async () => {
    const h = await receptionHarness();
    const form = new FormData();
    form.append('xml', new Blob(['not xml at all']), 'cualquiera.xml');
    const res = await fetch(`${h.receiverUrl}/fe/recepcion/api/ecf`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const unknown = await fetch(`${h.url}/0190a3c2-0000-7000-8000-000000000000/fe/recepcion/api/ecf`, { method: 'POST', body: form });
    expect(unknown.status).toBe(404);
  });

  it('treats the receiver paths case-insensitively', async () => {
    const h = await receptionHarness();
    const made = h.sandbox.control.taxpayer.makeEcf({ buyerRnc: h.tenant.rnc });
    const form = new FormData();
    form.append('xml', new Blob([made.xml]), `${h.sandbox.control.taxpayer.rnc}${made.encf}.xml`);
    const answer = await fetch(`${h.url}/${h.tenant.id.toUpperCase()}/FE/Recepcion/API/ECF`, { method: 'POST', body: form });
    expect(answer.status).toBe(200);
    expect(tag(await answer.text(), 'Estado')).toBe('0');
  });
});

describe('bearer mode', () => {
  it('is off by default; when on, the receiver routes need a token from seed, signature and validacioncertificado', async () => {
    const h = await receptionHarness();
    expect((await h.sendFresh()).answer.status).toBe(200);

    const on = await h.api('PUT', '/api/v1/inbound-ecf-settings', { requireBearerAuth: true });
    expect(on.status).toBe(200);
    expect(await on.json()).toEqual({ requireBearerAuth: true });
    const emisor = await h.api('PUT', '/api/v1/inbound-ecf-settings', { requireBearerAuth: false }, 'emisor');
    expect(emisor.status).toBe(403);

    const refused = await h.sendFresh();
    expect(refused.answer.status).toBe(401);
    expect(refused.answer.contentType).toContain('text/plain');
    const withToken = await h.sendFresh({ authenticate: true });
    expect(withToken.answer.status).toBe(200);
    expect(tag(withToken.answer.body, 'Estado')).toBe('0');
    const forged = await fetch(`${h.receiverUrl}/fe/recepcion/api/ecf`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
    expect(forged.status).toBe(401);

    const invalidBody = await h.api('PUT', '/api/v1/inbound-ecf-settings', { requireBearerAuth: 'yes' });
    expect(invalidBody.status).toBe(400);
    await h.api('PUT', '/api/v1/inbound-ecf-settings', { requireBearerAuth: false });
    expect((await h.sendFresh()).answer.status).toBe(200);
  });

  it('refuses a seed it did not issue and a seed used twice', async () => {
    const h = await receptionHarness();
    await h.api('PUT', '/api/v1/inbound-ecf-settings', { requireBearerAuth: true });
    const seed = await (await fetch(`${h.receiverUrl}/fe/autenticacion/api/semilla`)).text();
    const { signSeed } = await import('../../../src/engine/taxauth/token-cache.js');
    const { makeTaxpayerIdentity } = await import('../../../src/sandbox/taxpayer.js');
    const signed = signSeed(seed, makeTaxpayerIdentity(h.engine.clock.now()).key);
    const post = (xml: string) => {
      const form = new FormData();
      form.append('xml', new Blob([xml]), 'semilla.xml');
      return fetch(`${h.receiverUrl}/fe/autenticacion/api/validacioncertificado`, { method: 'POST', body: form });
    };
    const first = await post(signed);
    expect(first.status).toBe(200);
    expect(Object.keys((await first.json()) as object).sort()).toEqual(['expedido', 'expira', 'token']);
    expect((await post(signed)).status).toBe(400);
    expect((await post(signed.replace(/<valor>[^<]*/, '<valor>otro'))).status).toBe(400);
  });
});

describe('ACECF from an external buyer over one of our e-CF', () => {
  it('records a valid decision, emits commercial_approval.received, and refuses a wrong one with 400 plain text', async () => {
    const h = await receptionHarness();
    const ecf = await h.issue(invoice31()); // buyer 131880681: the sandbox taxpayer
    const approval = h.sandbox.control.taxpayer.makeApproval({
      issuerRnc: h.tenant.rnc,
      encf: ecf.encf,
      issueDate: ecf.issueDate,
      montoTotal: ecf.montoTotal.toFixed(2),
      decision: 'rejected',
      rejectionReason: 'Precio distinto al acordado',
    });
    const wrong = h.sandbox.control.taxpayer.makeApproval({ issuerRnc: h.tenant.rnc, encf: ecf.encf, issueDate: ecf.issueDate, montoTotal: '1.00', decision: 'accepted' });
    const bad = await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, wrong, { encf: ecf.encf });
    expect(bad.status).toBe(400);
    expect(bad.contentType).toContain('text/plain');
    expect(bad.body).toContain('MontoTotal 1.00');

    const ok = await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, approval, { encf: ecf.encf });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ codigo: 'OK', estado: 'Aprobacion Comercial Aceptada', mensaje: [] });
    const recorded = await listInboundApprovals(h.engine, h.tenant.id);
    expect(recorded).toEqual([expect.objectContaining({ ecfId: ecf.id, encf: ecf.encf, buyerRnc: '131880681', decision: 'rejected', rejectionReason: 'Precio distinto al acordado' })]);
    const events = (await listEvents(h.engine.db, { tenantId: h.tenant.id })).filter((e) => e.type === 'commercial_approval.received');
    expect(events.map((e) => e.data.object)).toEqual([recorded[0]]);

    // The same bytes again: 200, nothing new.
    expect((await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, approval, { encf: ecf.encf })).status).toBe(200);
    expect(await listInboundApprovals(h.engine, h.tenant.id)).toHaveLength(1);
    // A tampered one: the signature fails.
    const tampered = await h.sandbox.control.taxpayer.sendApproval(h.receiverUrl, approval.replace('Precio distinto', 'Precio diferente'), { encf: ecf.encf });
    expect(tampered.status).toBe(400);
    expect(tampered.body).toContain('signature');
  });
});

describe('the tenant’s commercial decision (outgoing ACECF)', () => {
  it('signs a valid ACECF and delivers it with retries to the issuer’s receiver (through the directory) and to the authority', async () => {
    const h = await receptionHarness();
    const sent = await h.sendFresh();
    const id = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0].id;
    h.sandbox.control.failApprovals('issuer', 2);
    h.sandbox.control.failApprovals('authority', 1);

    const res = await h.api('POST', `/api/v1/received-ecf/${id}/commercial-approval`, { decision: 'accepted', rejectionReason: null }, 'emisor');
    expect(res.status).toBe(202);
    const view = await res.json();
    expect(view.approvalState).toBe('accepted');
    const acecf: string = view.commercialApproval.acecf;
    expect(validateAgainstSchema('acecf', acecf)).toEqual({ valid: true, errors: [] });
    expect(verifyWithXmlsec1(acecf, h.certificatePem).ok).toBe(true);
    expect([tag(acecf, 'RNCEmisor'), tag(acecf, 'eNCF'), tag(acecf, 'MontoTotal'), tag(acecf, 'RNCComprador'), tag(acecf, 'Estado')]).toEqual([
      h.sandbox.control.taxpayer.rnc, sent.encf, sent.montoTotal, h.tenant.rnc, '1',
    ]);
    expect(view.commercialApproval.deliveries.issuer.status).toBe('pending');
    expect(await pendingWork(h.engine.db, 'acecf.deliver')).toHaveLength(2);

    await h.drive();
    const after = await (await h.api('GET', `/api/v1/received-ecf/${id}`)).json();
    expect(after.commercialApproval.deliveries.issuer).toMatchObject({ status: 'delivered', attempts: 3, lastError: null });
    expect(after.commercialApproval.deliveries.issuer.url).toMatch(/\/taxpayer\/fe\/aprobacioncomercial\/api\/ecf$/);
    expect(after.commercialApproval.deliveries.taxauth).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(h.sandbox.control.taxpayer.receivedApprovals().map((a) => a.xml)).toEqual([acecf]);
    expect(h.sandbox.control.taxpayer.receivedApprovals()[0]!.fileName).toBe(`${h.tenant.rnc}${sent.encf}.xml`);
    expect(h.sandbox.control.approvals().map((a) => a.xml)).toEqual([acecf]);
  });

  it('gives up after the ladder: failed after 7 attempts, with the last error', async () => {
    const h = await receptionHarness();
    await h.sendFresh();
    const id = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0].id;
    h.sandbox.control.failApprovals('issuer', 100);
    await h.api('POST', `/api/v1/received-ecf/${id}/commercial-approval`, { decision: 'rejected', rejectionReason: 'No solicitado' });
    await h.drive();
    const after = await (await h.api('GET', `/api/v1/received-ecf/${id}`)).json();
    expect(after.commercialApproval.deliveries.issuer).toMatchObject({ status: 'failed', attempts: 7 });
    expect(after.commercialApproval.deliveries.issuer.lastError).toContain('503');
    expect(after.commercialApproval.deliveries.taxauth.status).toBe('delivered');
    expect(tag(after.commercialApproval.acecf, 'DetalleMotivoRechazo')).toBe('No solicitado');
  });

  it('answers 409 for a second decision, a type without commercial approval and a document not received', async () => {
    const h = await receptionHarness();
    await h.sendFresh();
    const [first] = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items;
    expect((await h.api('POST', `/api/v1/received-ecf/${first.id}/commercial-approval`, { decision: 'accepted' })).status).toBe(202);
    const again = await h.api('POST', `/api/v1/received-ecf/${first.id}/commercial-approval`, { decision: 'rejected', rejectionReason: 'x' });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('ReceivedEcf.AlreadyDecided');

    // A type 32 is refused (never sent between taxpayers); one stored as received by an earlier version takes no decision either.
    const consumerSent = await h.sendFresh({
      payload: { type: 32, incomeType: '01', payment: { condition: '1' }, buyer: { rnc: h.tenant.rnc, name: 'Ferretería' }, lines: [{ name: 'Clavos', quantity: 1, unitPrice: '100.00' }] },
    });
    const [refusedConsumer] = (await (await h.api('GET', `/api/v1/received-ecf?encf=${consumerSent.encf}`)).json()).items;
    expect(refusedConsumer).toMatchObject({ type: 32, status: 'not_received', approvalState: 'not_applicable', commercialApprovalAutomatic: true });
    const refusedDecision = await h.api('POST', `/api/v1/received-ecf/${refusedConsumer.id}/commercial-approval`, { decision: 'accepted' });
    expect([refusedDecision.status, (await refusedDecision.json()).code]).toEqual([409, 'ReceivedEcf.NotReceived']);
    await h.engine.db.updateTable('received_ecf').set({ status: 'received', reason_code: null, reason: null }).where('id', '=', refusedConsumer.id).execute();
    const consumer = (await (await h.api('GET', '/api/v1/received-ecf?approval=automatic')).json()).items;
    expect(consumer).toHaveLength(1);
    expect(consumer[0]).toMatchObject({ type: 32, commercialApprovalAutomatic: true, status: 'received' });
    const automatic = await h.api('POST', `/api/v1/received-ecf/${consumer[0].id}/commercial-approval`, { decision: 'accepted' });
    expect(automatic.status).toBe(409);
    expect((await automatic.json()).code).toBe('ReceivedEcf.ApprovalNotApplicable');

    await h.sendFresh({ buyerRnc: '101010101' });
    const refused = (await (await h.api('GET', '/api/v1/received-ecf?Status=not_received')).json()).items[0];
    const notReceived = await h.api('POST', `/api/v1/received-ecf/${refused.id}/commercial-approval`, { decision: 'accepted' });
    expect(notReceived.status).toBe(409);
    expect((await notReceived.json()).code).toBe('ReceivedEcf.NotReceived');
  });

  it('answers 400 with every problem of the body, 404 for another tenant’s and 403 for consultor', async () => {
    const h = await receptionHarness();
    await h.sendFresh();
    const { id } = (await (await h.api('GET', '/api/v1/received-ecf')).json()).items[0];
    const path = `/api/v1/received-ecf/${id}/commercial-approval`;
    const bad = await h.api('POST', path, { decision: 'maybe', rejectionReason: 5, note: 'x' });
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.fieldErrors.map((e: { path: string; code: string }) => `${e.path} ${e.code}`).sort()).toEqual(
      expect.arrayContaining(['decision ReceivedEcf.InvalidDecision', expect.stringMatching(/^rejectionReason /), expect.stringMatching(/^note ObjectAdditionalProperties|^\(body\)/)]),
    );
    const noReason = await (await h.api('POST', path, { decision: 'rejected' })).json();
    expect(noReason.fieldErrors).toEqual([expect.objectContaining({ path: 'rejectionReason', code: 'ReceivedEcf.RejectionReasonRequired' })]);
    const tooLong = await (await h.api('POST', path, { decision: 'rejected', rejectionReason: 'x'.repeat(251) })).json();
    expect(tooLong.fieldErrors).toEqual([expect.objectContaining({ code: 'ReceivedEcf.RejectionReasonTooLong' })]);
    const reasonOnAccept = await (await h.api('POST', path, { decision: 'accepted', rejectionReason: 'no' })).json();
    expect(reasonOnAccept.fieldErrors).toEqual([expect.objectContaining({ code: 'ReceivedEcf.RejectionReasonNotAllowed' })]);
    const missing = await (await h.api('POST', path, {})).json();
    expect(missing.fieldErrors.map((e: { path: string }) => e.path)).toContain('decision');
    expect((await h.api('POST', path, { decision: 'accepted' }, 'consultor')).status).toBe(403);
    const { seedTenant } = await import('../../helpers.js');
    const other = await seedTenant(h.engine);
    const theirs = await fetch(`${h.url}/api/v1/received-ecf/${id}`, { headers: { 'x-api-key': other.keys.admin_tenant } });
    expect(theirs.status).toBe(404);
    expect(await h.engine.db.selectFrom('received_ecf_approvals').selectAll().execute()).toHaveLength(0);
  });
});

describe('the inbox list', () => {
  it('filters by status, approval state, issuer, e-NCF, type and received day, newest first, paged', async () => {
    const h = await receptionHarness();
    const a = await h.sendFresh();
    h.engine.clock.advance(86_400_000);
    const b = await h.sendFresh();
    await h.sendFresh({ buyerRnc: '101010101' });
    const get = async (q: string) => (await (await h.api('GET', `/api/v1/received-ecf${q}`, undefined, 'consultor')).json());
    const all = await get('');
    expect(all.totalCount).toBe(3);
    expect(all.items.map((i: { encf: string }) => i.encf).slice(1)).toEqual([b.encf, a.encf]);
    expect((await get('?status=received')).items.map((i: { encf: string }) => i.encf)).toEqual([b.encf, a.encf]);
    expect((await get('?approval=pending')).totalCount).toBe(2);
    expect((await get('?approval=not_applicable')).totalCount).toBe(1);
    expect((await get(`?issuerRnc=${h.sandbox.control.taxpayer.rnc}&type=31`)).totalCount).toBe(3);
    expect((await get(`?encf=${a.encf}`)).items.map((i: { encf: string }) => i.encf)).toEqual([a.encf]);
    expect((await get('?from=2026-03-10&to=2026-03-10')).items.map((i: { encf: string }) => i.encf)).toEqual([a.encf]);
    const paged = await get('?pageSize=2&page=2');
    expect(paged).toMatchObject({ totalCount: 3, page: 2, pageSize: 2, totalPages: 2, hasNextPage: false, hasPreviousPage: true });
    expect(paged.items).toHaveLength(1);
    const bad = await h.api('GET', '/api/v1/received-ecf?status=maybe&approval=x&from=yesterday');
    expect(bad.status).toBe(400);
    expect(Object.keys((await bad.json()).errors).sort()).toEqual(['query.Approval', 'query.From', 'query.Status']);
  });
});

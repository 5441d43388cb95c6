import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { multipartBody } from '../../src/engine/taxauth/upload.js';
import { TaxauthError } from '../../src/engine/taxauth/errors.js';
import { TaxauthClient } from '../../src/engine/taxauth/client.js';
import { SANDBOX_CODES } from '../../src/sandbox/index.js';
import { consumer32, signedEcf, world } from '../engine/taxauth/fixtures.js';

const MINUTE = 60_000;

async function caught(work: Promise<unknown>): Promise<TaxauthError> {
  const e = await work.then(
    () => {
      throw new Error('expected a TaxauthError, the call succeeded');
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TaxauthError);
  return e as TaxauthError;
}

/** A world, a token, and a function that sends a freshly signed e-CF for an e-NCF. */
async function reception(options: { timeoutMs?: number } = {}) {
  const w = await world(options);
  const token = await w.token();
  const send = async (encf: string, xml?: string) => {
    const doc = xml ?? (await signedEcf(w.engine, w.tenant, encf)).xml;
    return w.client.sendEcf(token, { rnc: w.tenant.rnc, encf, xml: Buffer.from(doc, 'utf8') });
  };
  return { ...w, tok: token, send };
}

describe('e-CF reception', () => {
  it('receives a signed e-CF named {RNC}{eNCF}.xml and answers code 1 by trackId, sequence used', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    const { trackId } = await w.client.sendEcf(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000001', xml: Buffer.from(signed.xml) });
    expect(trackId).toMatch(/^[0-9a-f-]{36}$/);
    const [received] = w.control.submissions();
    expect(received).toMatchObject({ fileName: `${w.tenant.rnc}E310000000001.xml`, xml: signed.xml, kind: 'ecf', environment: 'testecf' });

    expect(await w.client.result(w.tok, trackId)).toEqual({
      trackId,
      code: 1,
      status: 'Aceptado',
      sequenceUsed: true,
      messages: [],
      receivedAt: '2026-03-10T10:00:00.000-04:00',
    });
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toEqual([
      { trackId, status: 'Aceptado', receivedAt: '2026-03-10T10:00:00.000-04:00' },
    ]);
    const status = await w.client.status(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000001', securityCode: signed.securityCode });
    expect(status).toMatchObject({ code: 1, status: 'Aceptado', issuerRnc: w.tenant.rnc, encf: 'E310000000001', securityCode: signed.securityCode, buyerRnc: '131880681' });
    expect((await w.client.status(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000001', securityCode: 'zzzzzz' })).code).toBe(0);
    expect((await w.client.result(w.tok, 'no-such-track')).code).toBe(0);
  });

  it('answers 401 without a token, with an unknown, revoked or expired token, and with another environment’s token', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    const upload = { rnc: w.tenant.rnc, encf: 'E310000000001', xml: signed.xml };
    const { body, contentType } = multipartBody('xml', `${w.tenant.rnc}E310000000001.xml`, 'text/xml', Buffer.from(signed.xml));
    const bare = await request(`${w.sandbox.url}/testecf/recepcion/api/facturaselectronicas`, { method: 'POST', body, headers: { 'content-type': contentType } });
    expect(bare.statusCode).toBe(401);
    await bare.body.dump();

    expect(await caught(w.client.sendEcf('not-a-token', upload))).toMatchObject({ kind: 'http', status: 401, transient: false });
    const cert = new TaxauthClient({ baseUrl: `${w.sandbox.url}/certecf`, fcUrl: `${w.sandbox.url}/certecf`, timeoutMs: 5_000 });
    expect(await caught(cert.sendEcf(w.tok, upload))).toMatchObject({ status: 401 });
    w.clock.advance(61 * MINUTE);
    expect(await caught(w.client.sendEcf(w.tok, upload))).toMatchObject({ status: 401 });
    expect(w.control.submissions()).toEqual([]);
  });

  it('answers 400 (3243) to a file not named {RNC}{eNCF}.xml, and "Multipart cannot be empty" to a chunked upload', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    const url = `${w.sandbox.url}/testecf/recepcion/api/facturaselectronicas`;
    const { body, contentType } = multipartBody('xml', 'factura.xml', 'text/xml', Buffer.from(signed.xml));
    const named = await request(url, { method: 'POST', body, headers: { 'content-type': contentType, authorization: `bearer ${w.tok}` } });
    expect(named.statusCode).toBe(400);
    expect(await named.body.json()).toEqual({ trackId: null, error: '3243', mensaje: 'La longitud del nombre del archivo no es válida' });

    const good = multipartBody('xml', `${w.tenant.rnc}E310000000001.xml`, 'text/xml', Buffer.from(signed.xml));
    const chunked = await request(url, {
      method: 'POST',
      body: Readable.from([good.body]),
      headers: { 'content-type': good.contentType, authorization: `Bearer ${w.tok}` },
    });
    expect(chunked.statusCode).toBe(400);
    expect(await chunked.body.text()).toBe('Multipart cannot be empty');
    expect(w.control.submissions()).toEqual([]);
  });

  it('rejects with code 2 and sequenceUsed false a document that fails the schema or the signature; the e-NCF can then be used', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    const schemaBroken = signed.xml.replace('<FechaHoraFirma>', '<Extra>1</Extra><FechaHoraFirma>');
    const signatureBroken = signed.xml.replace('Constructora Ejemplo SRL', 'Constructora Ejemplo SRX');
    expect(signatureBroken).not.toBe(signed.xml);
    const valueAltered = signed.xml.replace(/<SignatureValue>[A-Za-z0-9+/]/, (m) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'));

    for (const [xml, code] of [
      [schemaBroken, SANDBOX_CODES.schema],
      [signatureBroken, SANDBOX_CODES.signature],
      [valueAltered, SANDBOX_CODES.signature],
      ['<ECF><no-cierra>', SANDBOX_CODES.schema],
    ] as const) {
      const { trackId } = await w.send('E310000000001', xml);
      const result = await w.client.result(w.tok, trackId);
      expect(result).toMatchObject({ code: 2, status: 'Rechazado', sequenceUsed: false });
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]!.code).toBe(code);
    }
    const { trackId } = await w.send('E310000000001', signed.xml);
    expect((await w.client.result(w.tok, trackId)).code).toBe(1);
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toHaveLength(5);
  });

  it('rejects a file whose name does not match the document, and a type-32 under DOP 250,000 (that goes as an RFCE)', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    const { trackId } = await w.send('E310000000002', signed.xml);
    expect(await w.client.result(w.tok, trackId)).toMatchObject({ code: 2, sequenceUsed: false, messages: [{ code: SANDBOX_CODES.nameMismatch }] });
    const small = await signedEcf(w.engine, w.tenant, 'E320000000001', consumer32());
    const sent = await w.send('E320000000001', small.xml);
    expect(await w.client.result(w.tok, sent.trackId)).toMatchObject({ code: 2, sequenceUsed: false, messages: [{ code: SANDBOX_CODES.consumerSummary }] });
  });

  it('answers an e-NCF accepted before like the authority: a new trackId, rejected, sequence used', async () => {
    const w = await reception();
    const first = await w.send('E310000000001');
    expect((await w.client.result(w.tok, first.trackId)).code).toBe(1);
    const again = await w.send('E310000000001');
    expect(again.trackId).not.toBe(first.trackId);
    expect(await w.client.result(w.tok, again.trackId)).toMatchObject({ code: 2, sequenceUsed: true, messages: [{ code: SANDBOX_CODES.sequenceUsed }] });
    expect((await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).map((t) => [t.trackId, t.status])).toEqual([
      [first.trackId, 'Aceptado'],
      [again.trackId, 'Rechazado'],
    ]);
    // consultaestado keeps answering with the accepted one.
    expect((await w.client.status(w.tok, { rnc: w.tenant.rnc, encf: 'E310000000001' })).code).toBe(1);
  });

  it('serves paths and query keys in any case', async () => {
    const w = await reception();
    const seed = await request(`${w.sandbox.url}/TesteCF/Autenticacion/api/Autenticacion/Semilla`);
    expect(seed.statusCode).toBe(200);
    expect(await seed.body.text()).toMatch(/^<\?xml version="1\.0" encoding="utf-8"\?>\r\n<SemillaModel xmlns:xsi="[^"]+" xmlns:xsd="[^"]+">\r\n {2}<valor>[^<]+<\/valor>\r\n {2}<fecha>2026-03-10T10:00:00\.\d{7}-04:00<\/fecha>\r\n<\/SemillaModel>$/);
    const { trackId } = await w.send('E310000000001');
    const result = await request(`${w.sandbox.url}/testecf/ConsultaResultado/api/Consultas/Estado?TrackId=${trackId}`, { headers: { authorization: `Bearer ${w.tok}` } });
    expect(await result.body.json()).toMatchObject({ trackId, codigo: 1, estado: 'Aceptado', fechaRecepcion: '3/10/2026 10:00:00 AM' });
  });
});

describe('scripted outcomes', () => {
  it('reject, with the messages and sequenceUsed flag given', async () => {
    const w = await reception();
    w.control.script({ outcomes: [{ kind: 'reject', messages: [{ code: 2020, value: 'TablaSubDescuento de la línea 1 inválida' }], sequenceUsed: false }, { kind: 'reject' }] });
    const a = await w.send('E310000000001');
    expect(await w.client.result(w.tok, a.trackId)).toMatchObject({
      code: 2,
      status: 'Rechazado',
      sequenceUsed: false,
      messages: [{ code: 2020, value: 'TablaSubDescuento de la línea 1 inválida' }],
    });
    const b = await w.send('E310000000001');
    expect(await w.client.result(w.tok, b.trackId)).toMatchObject({ code: 2, sequenceUsed: true, messages: [{ code: SANDBOX_CODES.rejected }] });
    // Used now: an accept would not help.
    const c = await w.send('E310000000001');
    expect(await w.client.result(w.tok, c.trackId)).toMatchObject({ code: 2, sequenceUsed: true, messages: [{ code: SANDBOX_CODES.sequenceUsed }] });
  });

  it('inProcess for N queries, then the final outcome; conditional is code 4', async () => {
    const w = await reception();
    w.control.script({ encf: 'E310000000001', outcomes: [{ kind: 'inProcess', queries: 2, then: { kind: 'conditional' } }] });
    const { trackId } = await w.send('E310000000001');
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toMatchObject([{ trackId, status: 'En Proceso' }]);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await w.client.result(w.tok, trackId)).code);
    expect(codes).toEqual([3, 3, 4, 4]);
    expect(await w.client.result(w.tok, trackId)).toMatchObject({ status: 'Aceptado Condicional', sequenceUsed: true, messages: [{ code: SANDBOX_CODES.conditional }] });
  });

  it('transientReject: code 2, sequence not used, a message code the engine retries', async () => {
    const w = await reception();
    w.control.script({ outcomes: [{ kind: 'transientReject' }] });
    const { trackId } = await w.send('E310000000001');
    const { TRANSIENT_REJECTION_CODES } = await import('../../src/engine/submission/rules.js');
    const result = await w.client.result(w.tok, trackId);
    expect(result).toMatchObject({ code: 2, sequenceUsed: false });
    expect(TRANSIENT_REJECTION_CODES.has(result.messages[0]!.code)).toBe(true);
    // The same XML sent again is accepted.
    expect((await w.client.result(w.tok, (await w.send('E310000000001')).trackId)).code).toBe(1);
  });

  it('http5xx: the reception answers 503, a transient http error, and nothing is received', async () => {
    const w = await reception();
    w.control.script({ outcomes: [{ kind: 'http5xx' }, { kind: 'http5xx', status: 502 }] });
    expect(await caught(w.send('E310000000001'))).toMatchObject({ kind: 'http', status: 503, transient: true, message: 'Service Unavailable HTTP Error 503. The service is unavailable.' });
    expect(await caught(w.send('E310000000001'))).toMatchObject({ status: 502, transient: true });
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toEqual([]);
  });

  it('timeout: the client gives up after its 1 s timeout; the document is not received unless scripted so', async () => {
    const w = await reception({ timeoutMs: 1_000 });
    w.control.script({ outcomes: [{ kind: 'timeout' }, { kind: 'timeout', received: true }] });
    const started = Date.now();
    expect(await caught(w.send('E310000000001'))).toMatchObject({ kind: 'timeout', status: null, transient: true, operation: 'recepcion' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toEqual([]);
    expect(await caught(w.send('E310000000001'))).toMatchObject({ kind: 'timeout' });
    const listed = await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001');
    expect(listed).toHaveLength(1);
    expect((await w.client.result(w.tok, listed[0]!.trackId)).code).toBe(1);
  });

  it('lostResponse: the client sees a network error, yet trackIds lists the document', async () => {
    const w = await reception();
    w.control.script({ encf: 'E310000000001', outcomes: [{ kind: 'lostResponse' }] });
    expect(await caught(w.send('E310000000001'))).toMatchObject({ kind: 'network', status: null, transient: true });
    const listed = await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001');
    expect(listed).toHaveLength(1);
    expect(await w.client.result(w.tok, listed[0]!.trackId)).toMatchObject({ code: 1, sequenceUsed: true });
  });

  it('unreachable: every call fails with a network error until turned off', async () => {
    const w = await reception();
    w.control.script({ outcomes: [{ kind: 'unreachable' }] });
    expect(await caught(w.send('E310000000001'))).toMatchObject({ kind: 'network', transient: true });
    expect(await caught(w.client.seed())).toMatchObject({ kind: 'network' });
    expect(await caught(w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001'))).toMatchObject({ kind: 'network' });
    w.control.setUnreachable(false);
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E310000000001')).toEqual([]);
    w.control.setUnreachable(true, 300);
    expect(await caught(w.client.seed())).toMatchObject({ kind: 'network' });
    await new Promise((r) => setTimeout(r, 350));
    expect(await w.client.seed()).toContain('<SemillaModel');
  });

  it('takes an e-NCF’s own queue before the next-documents queue', async () => {
    const w = await reception();
    w.control.script({ outcomes: [{ kind: 'reject', sequenceUsed: false }] });
    w.control.script({ encf: 'E310000000002', outcomes: [{ kind: 'conditional' }] });
    const two = await w.send('E310000000002');
    const one = await w.send('E310000000001');
    const three = await w.send('E310000000003');
    expect((await w.client.result(w.tok, two.trackId)).code).toBe(4);
    expect((await w.client.result(w.tok, one.trackId)).code).toBe(2);
    expect((await w.client.result(w.tok, three.trackId)).code).toBe(1);
  });

  it('takes scripts over HTTP from other processes, and refuses malformed ones', async () => {
    const w = await reception();
    const admin = (body: unknown) =>
      request(`${w.sandbox.url}/_sandbox/script`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const ok = await admin({ encf: 'E310000000001', outcomes: [{ kind: 'inProcess', queries: 1, then: { kind: 'reject', messages: [{ code: 614, value: 'El eNCF modificado no ha sido emitido' }], sequenceUsed: false } }] });
    expect(ok.statusCode).toBe(200);
    expect(await ok.body.json()).toEqual({ ok: true });
    const { trackId } = await w.send('E310000000001');
    expect((await w.client.result(w.tok, trackId)).code).toBe(3);
    expect(await w.client.result(w.tok, trackId)).toMatchObject({ code: 2, sequenceUsed: false, messages: [{ code: 614 }] });

    const bad = await admin({ outcomes: [{ kind: 'explode' }] });
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.json()).toMatchObject({ error: 'invalid sandbox command' });

    // Unreachable can be turned off over HTTP, since the admin routes stay up.
    expect((await (await admin({ unreachable: true })).body.json())).toEqual({ ok: true });
    expect(await caught(w.client.seed())).toMatchObject({ kind: 'network' });
    await (await admin({ unreachable: false })).body.dump();
    expect(await w.client.seed()).toContain('<SemillaModel');

    const revoked = await admin({ revokeTokens: true });
    expect(await revoked.body.json()).toEqual({ revoked: 1 });
    const state = await request(`${w.sandbox.url}/_sandbox/state`);
    const body = (await state.body.json()) as { stats: { receptions: number }; submissions: { encf: string; xml?: string }[] };
    expect(body.stats.receptions).toBe(1);
    expect(body.submissions).toMatchObject([{ encf: 'E310000000001' }]);
    expect(body.submissions[0]).not.toHaveProperty('xml');
  });
});

describe('RFCE reception', () => {
  it('answers the summary of a type-32 under DOP 250,000 synchronously, and consultaestado finds it by its security code', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E320000000001', consumer32());
    expect(signed.rfceXml).not.toBeNull();
    const verdict = await w.client.sendRfce(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', xml: Buffer.from(signed.rfceXml!) });
    expect(verdict).toEqual({ code: 1, status: 'Aceptado', sequenceUsed: true, messages: [], encf: 'E320000000001' });
    expect(w.control.submissions()).toMatchObject([{ kind: 'rfce', trackId: null, fileName: `${w.tenant.rnc}E320000000001.xml` }]);
    const status = await w.client.status(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', securityCode: signed.securityCode });
    expect(status).toMatchObject({ code: 1, securityCode: signed.securityCode });
    expect(Number(status.totalAmount)).toBe(Number(signed.rfceXml!.match(/<MontoTotal>([^<]+)</)![1]));
    // An RFCE has no trackId to list.
    expect(await w.client.trackIds(w.tok, w.tenant.rnc, 'E320000000001')).toEqual([]);
    // Sent again: rejected, sequence used.
    expect(await w.client.sendRfce(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', xml: signed.rfceXml! })).toMatchObject({
      code: 2,
      sequenceUsed: true,
    });
  });

  it('follows scripts, and rejects a tampered summary or a full e-CF with sequence not used', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E320000000001', consumer32());
    const send = (xml: string) => w.client.sendRfce(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', xml });
    expect(await send(signed.rfceXml!.replace('<MontoTotal>', '<MontoTotal>1'))).toMatchObject({ code: 2, sequenceUsed: false, messages: [{ code: SANDBOX_CODES.signature }] });
    expect(await send(signed.xml)).toMatchObject({ code: 2, sequenceUsed: false, messages: [{ code: SANDBOX_CODES.schema }] });
    w.control.script({ outcomes: [{ kind: 'conditional', messages: [{ code: 7, value: 'Observación' }] }, { kind: 'lostResponse' }] });
    expect(await send(signed.rfceXml!)).toEqual({ code: 4, status: 'Aceptado Condicional', sequenceUsed: true, messages: [{ code: 7, value: 'Observación' }], encf: 'E320000000001' });
    expect(await caught(send(signed.rfceXml!))).toMatchObject({ kind: 'network' });
    expect(w.control.submissions({ encf: 'E320000000001' })).toHaveLength(4);
  });
});

describe('the sandbox answers as the authority does (NOTES §4.4, §4.5)', () => {
  /** A GET on the sandbox's testecf services with the token, the JSON answer as sent. */
  const ask = async (w: Awaited<ReturnType<typeof reception>>, path: string, query: Record<string, string>, token: string | null = w.tok) => {
    const res = await request(`${w.sandbox.url}/testecf/${path}?${new URLSearchParams(query)}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };

  it('consultarfce answers the verdict of an RFCE by issuer, e-NCF and security code', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E320000000001', consumer32());
    await w.client.sendRfce(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', xml: signed.rfceXml! });
    const path = 'consultarfce/api/Consultas/Consulta';
    const query = { RNC_Emisor: w.tenant.rnc, ENCF: 'E320000000001', Cod_Seguridad_eCF: signed.securityCode };
    expect(await ask(w, path, query)).toEqual({
      status: 200,
      body: { rnc: w.tenant.rnc, encf: 'E320000000001', secuenciaUtilizada: true, codigo: 1, estado: 'Aceptado', mensajes: [] },
    });
    // A refused resend does not hide the accepted summary; query keys in any case.
    await w.client.sendRfce(w.tok, { rnc: w.tenant.rnc, encf: 'E320000000001', xml: signed.rfceXml! });
    expect((await ask(w, path, { rnc_emisor: w.tenant.rnc, encf: 'e320000000001', cod_seguridad_ecf: signed.securityCode })).body).toMatchObject({ codigo: 1, estado: 'Aceptado' });
    // Another security code, or an e-NCF never summarised: not found.
    for (const other of [{ ...query, Cod_Seguridad_eCF: 'zzzzzz' }, { ...query, ENCF: 'E320000000002' }]) {
      expect(await ask(w, path, other)).toEqual({
        status: 200,
        body: { rnc: w.tenant.rnc, encf: other.ENCF, secuenciaUtilizada: false, codigo: 0, estado: 'No encontrado', mensajes: [] },
      });
    }
    // Every parameter is required, each named; and the token, as on every query.
    const bare = await ask(w, path, {});
    expect(bare.status).toBe(400);
    expect(Object.keys(bare.body!.errors as object).sort()).toEqual(['Cod_Seguridad_eCF', 'ENCF', 'RNC_Emisor']);
    expect((await ask(w, path, query, null)).status).toBe(401);
  });

  it('consultaestado gives montoTotal and totalITBIS as numbers', async () => {
    const w = await reception();
    const signed = await signedEcf(w.engine, w.tenant, 'E310000000001');
    await w.send('E310000000001', signed.xml);
    const { body } = await ask(w, 'consultaestado/api/consultas/estado', { rncemisor: w.tenant.rnc, ncfelectronico: 'E310000000001' });
    expect(body).toMatchObject({ codigo: 1, montoTotal: Number(signed.xml.match(/<MontoTotal>([^<]+)</)![1]), totalITBIS: Number(signed.xml.match(/<TotalITBIS>([^<]+)</)![1]) });
    expect(typeof body!.montoTotal).toBe('number');
    expect(typeof body!.totalITBIS).toBe('number');
  });
});

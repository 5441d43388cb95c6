import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TaxauthClient } from '../../../src/engine/taxauth/client.js';
import { multipartBody, uploadName } from '../../../src/engine/taxauth/upload.js';
import { TaxauthError } from '../../../src/engine/taxauth/errors.js';

/**
 * The client against a plain node:http server on 127.0.0.1 that answers
 * with the odd shapes the authority has been seen to use (NOTES §4).
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

async function fakeAuthority(handler: (req: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const client = new TaxauthClient({ baseUrl: `${base}/testecf/`, fcUrl: `${base}/fc/testecf`, timeoutMs: 1_000 });
  return { seen, client, base };
}

const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const TOKEN = 'tok-123456789';
const upload = { rnc: '131234567', encf: 'E310000000001', xml: Buffer.from('<ECF>ñ</ECF>', 'utf8') };

describe('TaxauthClient requests', () => {
  it('uploads one multipart part named xml, file {RNC}{eNCF}.xml, type text/xml, with a real Content-Length and the bearer token', async () => {
    const { seen, client } = await fakeAuthority((_req, res) => json(res, { trackId: 'abc-1', error: null, mensaje: null }));
    expect(await client.sendEcf(TOKEN, upload)).toEqual({ trackId: 'abc-1' });
    const req = seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/testecf/recepcion/api/facturaselectronicas');
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['transfer-encoding']).toBeUndefined();
    expect(Number(req.headers['content-length'])).toBe(req.body.length);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(req.headers['content-type']!)![1]!;
    expect(req.body.toString('utf8')).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="xml"; filename="131234567E310000000001.xml"\r\nContent-Type: text/xml\r\n\r\n<ECF>ñ</ECF>\r\n--${boundary}--\r\n`,
    );
  });

  it('sends the RFCE to the fc host and reads the immediate verdict', async () => {
    const { seen, client } = await fakeAuthority((_req, res) =>
      json(res, { codigo: '1', estado: 'Aceptado', mensajes: [], encf: 'E320000000001', secuenciaUtilizada: 'true' }),
    );
    const v = await client.sendRfce(TOKEN, { ...upload, encf: 'E320000000001', xml: '<RFCE/>' });
    expect(v).toEqual({ code: 1, status: 'Aceptado', sequenceUsed: true, messages: [], encf: 'E320000000001' });
    expect(seen[0]!.url).toBe('/fc/testecf/recepcionfc/api/recepcion/ecf');
    expect(seen[0]!.body.toString()).toContain('filename="131234567E320000000001.xml"');
  });

  it('queries with the parameters encoded', async () => {
    const { seen, client } = await fakeAuthority((req, res) => {
      if (req.url.includes('consultaestado')) json(res, { codigo: 1, estado: 'Aceptado', rncEmisor: '131234567', ncfElectronico: 'E310000000001', montoTotal: 1000.5 });
      else json(res, []);
    });
    await client.trackIds(TOKEN, '131234567', 'E310000000001');
    const status = await client.status(TOKEN, { rnc: '131234567', encf: 'E310000000001', buyerRnc: '131880681', securityCode: 'a+b/c=' });
    expect(status).toMatchObject({ code: 1, status: 'Aceptado', issuerRnc: '131234567', encf: 'E310000000001', totalAmount: '1000.5', buyerRnc: null });
    expect(seen.map((s) => s.url)).toEqual([
      '/testecf/consultatrackids/api/trackids/consulta?rncemisor=131234567&encf=E310000000001',
      '/testecf/consultaestado/api/consultas/estado?rncemisor=131234567&ncfelectronico=E310000000001&rnccomprador=131880681&codigoseguridad=a%2Bb%2Fc%3D',
    ]);
  });

  it('refuses to upload under a name the authority would reject', async () => {
    expect(() => uploadName({ rnc: '13123', encf: 'E310000000001' })).toThrow(/RNC/);
    expect(() => uploadName({ rnc: '131234567', encf: 'B0100000001' })).toThrow(/e-NCF/);
    expect(uploadName({ rnc: '00112345678', encf: 'E310000000001' })).toBe('00112345678E310000000001.xml');
  });

  it('picks a boundary that is not in the content', () => {
    const { body, contentType } = multipartBody('xml', 'a.xml', 'text/xml', Buffer.from('----ecf'));
    const boundary = contentType.split('boundary=')[1]!;
    expect(body.toString().split(boundary)).toHaveLength(3);
  });
});

describe('TaxauthClient reads answers defensively', () => {
  it('takes codigo as a string, a US-style date, and secuenciaUtilizada', async () => {
    const { client } = await fakeAuthority((_req, res) =>
      json(res, {
        trackId: 'T-1',
        codigo: '2',
        estado: 'Rechazado',
        rnc: '131234567',
        encf: 'E310000000001',
        secuenciaUtilizada: false,
        fechaRecepcion: '8/15/2023 6:06:57 AM',
        mensajes: { valor: 'El eNCF modificado no ha sido emitido', codigo: '614' },
      }),
    );
    expect(await client.result(TOKEN, 'T-1')).toEqual({
      trackId: 'T-1',
      code: 2,
      status: 'Rechazado',
      sequenceUsed: false,
      messages: [{ code: 614, value: 'El eNCF modificado no ha sido emitido' }],
      receivedAt: '2023-08-15T06:06:57.000-04:00',
    });
  });

  it('keeps an unreadable date as given and fills the status text from the code', async () => {
    const { client } = await fakeAuthority((_req, res) => json(res, { codigo: 3, fechaRecepcion: 'pronto' }));
    expect(await client.result(TOKEN, 'T-2')).toEqual({ trackId: 'T-2', code: 3, status: 'En Proceso', sequenceUsed: null, messages: [], receivedAt: 'pronto' });
  });

  it('accepts one object where a list of trackIds was documented', async () => {
    const { client } = await fakeAuthority((_req, res) => json(res, { trackId: 'T-9', estado: 'Aceptado', fechaRecepcion: '3/10/2026 10:00:00 AM' }));
    expect(await client.trackIds(TOKEN, '131234567', 'E310000000001')).toEqual([
      { trackId: 'T-9', status: 'Aceptado', receivedAt: '2026-03-10T10:00:00.000-04:00' },
    ]);
  });

  it('reads the token answer in JSON, and a JSON seed as the seed document it stands for', async () => {
    const { client } = await fakeAuthority((req, res) => {
      if (req.method === 'GET') json(res, { valor: 'v<1>', fecha: '2026-03-10T10:00:00-04:00' });
      else json(res, { token: TOKEN, expira: '2026-03-10T15:00:00Z', expedido: '2026-03-10T14:00:00Z' });
    });
    expect(await client.seed()).toBe(
      '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>v&lt;1&gt;</valor><fecha>2026-03-10T10:00:00-04:00</fecha></SemillaModel>',
    );
    const grant = await client.validateSeed('<SemillaModel/>');
    expect(grant).toEqual({ token: TOKEN, expiresAt: new Date('2026-03-10T15:00:00Z'), issuedAt: new Date('2026-03-10T14:00:00Z') });
  });

  it('reads the XML token answer too', async () => {
    const { client } = await fakeAuthority((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<RespuestaAutenticacion><token>${TOKEN}</token><expira>2026-03-10T15:00:00Z</expira><expedido>2026-03-10T14:00:00Z</expedido></RespuestaAutenticacion>`);
    });
    expect((await client.validateSeed('<x/>')).token).toBe(TOKEN);
  });
});

describe('TaxauthClient failures', () => {
  it('turns an error status into an http TaxauthError with the body collapsed and the token removed', async () => {
    const { client } = await fakeAuthority((_req, res) => json(res, { mensajes: [{ valor: `token ${TOKEN} inválido`, codigo: 1 }] }, 400));
    const error = (await client.sendEcf(TOKEN, upload).catch((e: unknown) => e)) as TaxauthError;
    expect(error).toBeInstanceOf(TaxauthError);
    expect(error).toMatchObject({ kind: 'http', status: 400, transient: false, operation: 'recepcion', message: '1: token [token] inválido' });
    expect(error.rawBody).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('marks a 503 HTML page transient', async () => {
    const { client } = await fakeAuthority((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1></body></html>');
    });
    await expect(client.result(TOKEN, 'x')).rejects.toMatchObject({ kind: 'http', status: 503, transient: true, message: 'Service Unavailable' });
  });

  it('calls a 2xx answer without a trackId a protocol error', async () => {
    const { client } = await fakeAuthority((_req, res) => json(res, { trackId: null, error: 'Error', mensaje: 'Archivo vacío' }));
    await expect(client.sendEcf(TOKEN, upload)).rejects.toMatchObject({ kind: 'protocol', status: 200, transient: false, message: /no trackId in the answer: Error: Archivo vacío/ });
    const { client: html } = await fakeAuthority((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    await expect(html.result(TOKEN, 'x')).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('refuses an upload answered with JSON that is not an object, whichever service took it', async () => {
    const { client } = await fakeAuthority((_req, res) => json(res, [{ trackId: 'T-1', codigo: 1, estado: 'Aceptado' }]));
    const sends = {
      recepcion: () => client.sendEcf(TOKEN, upload),
      recepcionfc: () => client.sendRfce(TOKEN, upload),
      anulacionrangos: () => client.annulRanges(TOKEN, upload),
      aprobacioncomercial: () => client.sendCommercialApproval(TOKEN, upload),
    };
    for (const [operation, send] of Object.entries(sends)) {
      await expect(send(), operation).rejects.toMatchObject({ kind: 'protocol', status: 200, operation, message: /the answer is not a JSON object/ });
    }
  });

  it('gives up after the timeout with kind timeout', async () => {
    const { client } = await fakeAuthority(() => undefined); // never answers
    const started = Date.now();
    const error = (await client.seed().catch((e: unknown) => e)) as TaxauthError;
    expect(error).toMatchObject({ kind: 'timeout', status: null, transient: true, operation: 'semilla' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a refused connection as a network error', async () => {
    const { base } = await fakeAuthority(() => undefined);
    const port = Number(new URL(base).port);
    // A port nothing listens on: the fake's own, after closing it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = new TaxauthClient({ baseUrl: `http://127.0.0.1:${free}/testecf`, fcUrl: `http://127.0.0.1:${free}/testecf`, timeoutMs: 1_000 });
    const error = (await client.trackIds(TOKEN, '131234567', 'E310000000001').catch((e: unknown) => e)) as TaxauthError;
    expect(error).toMatchObject({ kind: 'network', status: null, transient: true });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).not.toContain(TOKEN);
    expect(port).toBeGreaterThan(0);
  });
});

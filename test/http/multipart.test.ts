import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CERTIFICATE_FILE_BYTES } from '../../src/engine/certificates/certificates.js';
import { MAX_RECEIVED_BYTES } from '../../src/engine/reception/receive.js';
import { buildApp } from '../../src/http/app.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { seedTenant, testEngine } from '../helpers.js';
import { api } from '../api.js';

/**
 * Malformed and truncated multipart bodies on the two upload routes (the
 * certificate upload and the B2B receiver), over a listening server and a raw
 * socket, so that what reaches the server is exactly the bytes written: each
 * is a 4xx that names the rule (a problem body on /api/v1, plain text on the
 * receiver), never a 5xx, and nothing is stored.
 */

const BOUNDARY = 'ecf-boundary-7f3a';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function part(name: string, content: Buffer | string, fileName?: string): Buffer {
  const disposition = `form-data; name="${name}"${fileName ? `; filename="${fileName}"` : ''}`;
  const type = fileName ? '\r\nContent-Type: application/octet-stream' : '';
  return Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
}
const closing = Buffer.from(`--${BOUNDARY}--\r\n`);

async function server() {
  const engine = await testEngine();
  const app = await buildApp({ engine });
  await app.listen({ host: '127.0.0.1', port: 0 });
  open.push(app);
  const { port } = app.server.address() as AddressInfo;
  const seeded = await seedTenant(engine);
  const p12 = makeP12(makeIdentity(), 'clave');
  const upload = Buffer.concat([part('password', 'clave'), part('file', p12, 'firma.p12'), closing]);
  return { engine, app, port, p12, upload, ...seeded };
}

interface RawAnswer {
  readonly status: number;
  readonly headers: string;
  readonly body: string;
}

/**
 * Writes `head` and `body` on a fresh connection as they are and reads the
 * whole answer (`Connection: close`: the server closes after answering). The
 * HTTP framing is always complete, so the client never half-closes: Node's
 * server ends a connection whose client sent FIN, and a slow answer would be
 * lost.
 */
function raw(port: number, head: string, body: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, headers: text.slice(0, at), body: text.slice(at + 4) });
    });
    socket.write(head);
    socket.write(body);
  });
}

/** A POST with Content-Length the length of `body` (whatever it holds). */
const post = (port: number, path: string, headers: Record<string, string>, body: Buffer) =>
  raw(
    port,
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}Content-Length: ${body.length}\r\n\r\n`,
    body,
  );

/** A POST in chunked transfer encoding, the HTTP framing complete, whatever `body` holds. */
const postChunked = (port: number, path: string, headers: Record<string, string>, body: Buffer) =>
  raw(
    port,
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
    Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]),
  );

const problem = (answer: RawAnswer) => {
  expect(answer.headers).toMatch(/content-type: application\/problem\+json/i);
  return JSON.parse(answer.body) as { status: number; code: string; detail: string; fieldErrors?: { path: string; code: string }[] };
};

describe('certificate upload: truncated and malformed multipart over HTTP', () => {
  it('answers 400 Multipart.Truncated for a body that stops in the middle of the file part (Content-Length and chunked)', async () => {
    const s = await server();
    const headers = { 'x-api-key': s.keys.admin_tenant, 'content-type': MULTIPART };
    const cut = s.upload.subarray(0, s.upload.indexOf(s.p12) + Math.floor(s.p12.length / 2));
    for (const send of [post, postChunked]) {
      const answer = await send(s.port, '/api/v1/certificates', headers, cut);
      expect(answer.status, send.name).toBe(400);
      const body = problem(answer);
      expect(body).toMatchObject({ status: 400, fieldErrors: [{ path: '(body)', code: 'Multipart.Truncated' }] });
      expect(body.detail).toContain('ends in the middle of a part');
    }
    // Cut just before the closing boundary: the file part never ends either.
    const unclosed = await post(s.port, '/api/v1/certificates', headers, s.upload.subarray(0, s.upload.length - closing.length - 2));
    expect(problem(unclosed).fieldErrors).toEqual([expect.objectContaining({ code: 'Multipart.Truncated' })]);
    expect(await s.engine.db.selectFrom('certificates').selectAll().execute()).toEqual([]);
    // The server is still there and takes the whole body.
    const whole = await post(s.port, '/api/v1/certificates', headers, s.upload);
    expect(whole.status).toBe(200);
  });

  it('answers 400 for a Content-Type without boundary, 415 for a wrong one, 413 for a file over the limit, 400 for no file part', async () => {
    const s = await server();
    const key = { 'x-api-key': s.keys.admin_tenant };
    const noBoundary = await post(s.port, '/api/v1/certificates', { ...key, 'content-type': 'multipart/form-data' }, s.upload);
    expect(noBoundary.status).toBe(400);
    expect(problem(noBoundary).fieldErrors).toEqual([expect.objectContaining({ path: 'header.content-type', code: 'Multipart.BoundaryMissing' })]);

    for (const type of ['application/octet-stream', `multipart/mixed; boundary=${BOUNDARY}`]) {
      const wrong = await post(s.port, '/api/v1/certificates', { ...key, 'content-type': type }, s.upload);
      expect(wrong.status, type).toBe(415);
      expect(problem(wrong).status).toBe(415);
    }

    const big = Buffer.concat([part('password', 'clave'), part('file', Buffer.alloc(MAX_CERTIFICATE_FILE_BYTES + 1, 7), 'big.p12'), closing]);
    const tooLarge = await post(s.port, '/api/v1/certificates', { ...key, 'content-type': MULTIPART }, big);
    expect(tooLarge.status).toBe(413);
    expect(problem(tooLarge)).toMatchObject({ code: 'Multipart.FileTooLarge', detail: expect.stringContaining(String(MAX_CERTIFICATE_FILE_BYTES)) });
    // Too large and cut short at once.
    const bigCut = await post(s.port, '/api/v1/certificates', { ...key, 'content-type': MULTIPART }, big.subarray(0, MAX_CERTIFICATE_FILE_BYTES + 200));
    expect(bigCut.status).toBeGreaterThanOrEqual(400);
    expect(bigCut.status).toBeLessThan(500);

    const noFile = await post(s.port, '/api/v1/certificates', { ...key, 'content-type': MULTIPART }, Buffer.concat([part('password', 'clave'), closing]));
    expect(noFile.status).toBe(400);
    expect(problem(noFile).fieldErrors).toEqual([expect.objectContaining({ path: 'file' })]);
    expect(await s.engine.db.selectFrom('certificates').selectAll().execute()).toEqual([]);
  });
});

describe('certificate upload: other malformed multipart, via inject', () => {
  const cases: [string, string, Buffer | string, number, string][] = [
    ['a JSON part that is not JSON', MULTIPART, Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="password"\r\nContent-Type: application/json\r\n\r\n{no\r\n`), closing]), 400, 'Multipart.InvalidJsonPart'],
    ['a part named __proto__', MULTIPART, Buffer.concat([part('__proto__', 'x'), closing]), 400, 'Multipart.ForbiddenPartName'],
    ['a file part named constructor', MULTIPART, Buffer.concat([part('constructor', 'x', 'x.p12'), closing]), 400, 'Multipart.ForbiddenPartName'],
    ['two file parts', MULTIPART, Buffer.concat([part('file', 'a', 'a.p12'), part('file', 'b', 'b.p12'), closing]), 413, 'Multipart.TooManyParts'],
    ['a password longer than the limit', MULTIPART, Buffer.concat([part('password', 'x'.repeat(5000)), closing]), 400, 'Certificate.PasswordTooLong'],
    ['an empty body', MULTIPART, '', 400, 'Validation.Failed'],
    ['a body that is not multipart at all', MULTIPART, 'hola', 400, 'Validation.Failed'],
  ];
  it.each(cases)('%s', async (_name, type, payload, status, code) => {
    const engine = await testEngine();
    const app = await buildApp({ engine });
    const { keys } = await seedTenant(engine);
    const res = await api(app, keys).as('admin_tenant').post('/api/v1/certificates', payload, { headers: { 'content-type': type } });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const body = res.json();
    expect([body.code, ...(body.fieldErrors ?? []).map((e: { code: string }) => e.code)]).toContain(code);
    expect(await engine.db.selectFrom('certificates').selectAll().execute()).toEqual([]);
  });
});

describe('B2B receiver: truncated and malformed multipart over HTTP', () => {
  it('answers 400 in plain text for a body cut in the xml part or without boundary, 413 over the limit, and stores nothing', async () => {
    const s = await server();
    const path = `/${s.tenant.id}/fe/recepcion/api/ecf`;
    const xml = Buffer.from(`<ECF>${'<x>relleno</x>'.repeat(200)}</ECF>`);
    const whole = Buffer.concat([part('xml', xml, '131880681E310000000001.xml'), closing]);
    for (const send of [post, postChunked]) {
      const cut = await send(s.port, path, { 'content-type': MULTIPART }, whole.subarray(0, whole.indexOf(xml) + 100));
      expect(cut.status, send.name).toBe(400);
      expect(cut.headers).toMatch(/content-type: text\/plain/i);
      expect(cut.body).toContain('ends in the middle of a part');
    }
    const noBoundary = await post(s.port, path, { 'content-type': 'multipart/form-data' }, whole);
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body).toContain('names no boundary');
    const big = Buffer.concat([part('xml', Buffer.alloc(MAX_RECEIVED_BYTES + 1, 0x20), 'a.xml'), closing]);
    const tooLarge = await post(s.port, path, { 'content-type': MULTIPART }, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toContain(String(MAX_RECEIVED_BYTES));
    const wrongType = await post(s.port, path, { 'content-type': 'text/xml' }, xml);
    expect(wrongType.status).toBe(415);
    expect(await s.engine.db.selectFrom('received_ecf').selectAll().execute()).toEqual([]);
  });
});

/**
 * One keep-alive connection: `send` writes a request, `next` reads the one
 * answer after the previous (Content-Length framed, as the server answers
 * these). `next` fails after `within` ms, so a hang fails the test instead of
 * stalling the run; it is a hang detector, not a timing assertion.
 */
function keepAlive(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  let buffered = Buffer.alloc(0);
  let closed = false;
  let wake = () => {};
  socket.on('data', (c) => {
    buffered = Buffer.concat([buffered, c]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => {});
  const answer = (): RawAnswer | null => {
    const at = buffered.indexOf('\r\n\r\n');
    if (at < 0) return null;
    const headers = buffered.subarray(0, at).toString('latin1');
    const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
    if (buffered.length < at + 4 + length) return null;
    const body = buffered.subarray(at + 4, at + 4 + length).toString('utf8');
    buffered = buffered.subarray(at + 4 + length);
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0), headers, body };
  };
  return {
    send: (head: string, body: Buffer = Buffer.alloc(0)) => socket.write(Buffer.concat([Buffer.from(head), body])),
    next: (within = 10_000) =>
      new Promise<RawAnswer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer on the connection within ${within} ms`)), within);
        wake = () => {
          const got = answer();
          if (got || closed) {
            clearTimeout(timer);
            if (got) resolve(got);
            else reject(new Error('the server closed the connection without answering'));
          }
        };
        wake();
      }),
    /** Resolves when the server has closed the connection; fails the test after `within` ms. */
    closed: (within = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the connection still open after ${within} ms`)), within);
        wake = () => {
          if (closed) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake();
      }),
    close: () => socket.destroy(),
  };
}

describe('B2B receiver: an upload refused early leaves its connection usable', () => {
  it.each(['recepcion/api/ecf', 'aprobacioncomercial/api/ecf', 'autenticacion/api/validacioncertificado'])(
    '/fe/%s: a 256 KB part not named xml gets its 400, and the next request on the connection its answer',
    async (route) => {
      const s = await server();
      const connection = keepAlive(s.port);
      try {
        const body = Buffer.concat([part('documento', Buffer.alloc(256 * 1024, 0x41), 'grande.xml'), closing]);
        connection.send(`POST /${s.tenant.id}/fe/${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`, body);
        const refused = await connection.next();
        expect(refused.status).toBe(400);
        expect(refused.body).toContain('one file part named xml');
        connection.send(`GET /${s.tenant.id}/fe/autenticacion/api/semilla HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        const seed = await connection.next();
        expect(seed.status).toBe(200);
        expect(seed.body).toContain('<SemillaModel');
      } finally {
        connection.close();
      }
      expect(await s.engine.db.selectFrom('received_ecf').selectAll().execute()).toEqual([]);
    },
  );

  it('a refusal sent before the body is read (a second file part, over the limit of one) closes the connection instead of leaving it to hang', async () => {
    const s = await server();
    const connection = keepAlive(s.port);
    try {
      // The server stops reading at the second file part's header; 4 MB follow it, unread.
      const body = Buffer.concat([part('xml', '<ECF/>', 'a.xml'), part('otro', Buffer.alloc(4 * 1024 * 1024, 0x41), 'b.xml'), closing]);
      connection.send(`POST /${s.tenant.id}/fe/recepcion/api/ecf HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${body.length}\r\n\r\n`, body);
      const refused = await connection.next();
      expect(refused.status).toBe(413);
      expect(refused.body).toContain('more parts than this upload takes');
      expect(refused.headers).toMatch(/^connection: close$/im);
      await connection.closed();
    } finally {
      connection.close();
    }
    expect(await s.engine.db.selectFrom('received_ecf').selectAll().execute()).toEqual([]);
  });
});

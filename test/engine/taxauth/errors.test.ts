import { describe, expect, it } from 'vitest';
import { TaxauthError, collapseErrorBody } from '../../../src/engine/taxauth/errors.js';
import { authorityInstant, messages, parseAuthorityDate, verdictCode } from '../../../src/engine/taxauth/parse.js';

describe('collapsing the authority’s error bodies into one line (NOTES §4.10)', () => {
  const cases: [string, string, string | null, string][] = [
    ['a bare string', 'Firma del certificado invalida', 'text/plain', 'Firma del certificado invalida'],
    [
      'a JSON-encoded string served as text',
      '"El RNC 00112345678 del certificado no está delegado para realizar transaciones."',
      'text/plain; charset=utf-8',
      'El RNC 00112345678 del certificado no está delegado para realizar transaciones.',
    ],
    ['{mensaje}', '{"mensaje":"La longitud del nombre del archivo no es válida"}', 'application/json', 'La longitud del nombre del archivo no es válida'],
    ['{message}', '{"message":"An error has occurred."}', 'application/json', 'An error has occurred.'],
    ['{trackId, error, mensaje}', '{"trackId":null,"error":"3243","mensaje":"La longitud del nombre\\n del archivo"}', null, '3243: La longitud del nombre del archivo'],
    [
      '{mensajes:[{valor,codigo}]}',
      '{"mensajes":[{"valor":"El eNCF modificado no ha sido emitido","codigo":614},{"valor":"Otro","codigo":"2020"}]}',
      'application/json',
      '614: El eNCF modificado no ha sido emitido; 2020: Otro',
    ],
    ['mensajes as plain strings', '{"mensajes":["El campo RNC Emisor es requerido","El campo ENCF es requerido"]}', null, 'El campo RNC Emisor es requerido; El campo ENCF es requerido'],
    [
      'ASP.NET ProblemDetails with ModelState',
      '{"type":"https://tools.ietf.org/html/rfc7231#section-6.5.1","title":"One or more validation errors occurred.","status":400,"errors":{"RncEmisor":["El campo RNC Emisor es requerido"],"Encf":["El campo ENCF es requerido","Longitud inválida"]}}',
      'application/problem+json',
      'One or more validation errors occurred. RncEmisor: El campo RNC Emisor es requerido; Encf: El campo ENCF es requerido, Longitud inválida',
    ],
    ['a bare ModelState', '{"xml":["The xml field is required."]}', 'application/json', 'xml: The xml field is required.'],
    [
      'an IIS HTML page',
      '<!DOCTYPE html>\r\n<html><head><title>Service Unavailable</title><style>p{}</style></head>\r\n<body><h1>Service Unavailable</h1>\r\n<p>HTTP Error 503. The service is unavailable.</p></body></html>',
      'text/html',
      'Service Unavailable HTTP Error 503. The service is unavailable.',
    ],
    ['an empty HTML error page', '<html>ERROR:</html>', 'text/html', 'ERROR:'],
    ['an XML answer', '<?xml version="1.0"?><Error><Mensaje>Servicio &amp; caído</Mensaje></Error>', 'application/xml', 'Servicio & caído'],
    ['nothing', '   ', 'text/plain', ''],
  ];
  it.each(cases)('%s', (_name, body, type, expected) => {
    const text = collapseErrorBody(body, type);
    expect(text).toBe(expected);
    expect(text).not.toMatch(/[\r\n]/);
  });

  it('caps a huge body to one short line, and keeps the raw body on the error', () => {
    const body = `<html><body>${'x '.repeat(10_000)}</body></html>`;
    const error = TaxauthError.fromResponse(502, body, 'text/html', 'recepcion');
    expect(error.message.length).toBeLessThanOrEqual(500);
    expect(error.rawBody).toBe(body);
    expect(error).toMatchObject({ kind: 'http', status: 502, operation: 'recepcion', transient: true });
  });

  it('says HTTP <status> when the body says nothing', () => {
    expect(TaxauthError.fromResponse(401, '', null, 'recepcion').message).toBe('HTTP 401');
  });
});

describe('what is transient', () => {
  it('is 5xx, 408, 429, timeouts and connection errors; not 4xx, 401 or protocol errors', () => {
    const http = (status: number) => new TaxauthError('http', 'x', { status }).transient;
    expect([500, 502, 503, 504, 408, 429].map(http)).toEqual([true, true, true, true, true, true]);
    expect([400, 401, 403, 404, 413].map(http)).toEqual([false, false, false, false, false]);
    expect(new TaxauthError('timeout', 'x').transient).toBe(true);
    expect(new TaxauthError('network', 'x').transient).toBe(true);
    expect(new TaxauthError('protocol', 'x', { status: 200 }).transient).toBe(false);
  });

  it('serialises without the raw body', () => {
    const e = new TaxauthError('http', 'Rechazado', { status: 400, rawBody: 'secret-ish body', operation: 'recepcion' });
    expect(JSON.parse(JSON.stringify(e))).toEqual({ kind: 'http', status: 400, operation: 'recepcion', transient: false, message: 'Rechazado' });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('TaxauthError');
  });
});

describe('reading the authority’s values defensively', () => {
  it('takes codigo as a number or a string, or from the status text', () => {
    expect(verdictCode(1, null)).toBe(1);
    expect(verdictCode('1', null)).toBe(1);
    expect(verdictCode(' 4 ', null)).toBe(4);
    expect(verdictCode(undefined, 'Aceptado Condicional')).toBe(4);
    expect(verdictCode(null, 'En proceso')).toBe(3);
    expect(verdictCode(null, 'TrackId no encontrado.')).toBe(0);
    expect(verdictCode('x', 'Rechazado')).toBe(2);
    expect(verdictCode(7, null)).toBeNull();
  });

  it('reads messages as a list, one object, or plain strings', () => {
    expect(messages([{ valor: 'a', codigo: '614' }, { Valor: 'b', Codigo: 2 }])).toEqual([
      { code: 614, value: 'a' },
      { code: 2, value: 'b' },
    ]);
    expect(messages({ valor: 'solo', codigo: 1 })).toEqual([{ code: 1, value: 'solo' }]);
    expect(messages(['texto'])).toEqual([{ code: 0, value: 'texto' }]);
    expect(messages(null)).toEqual([]);
  });

  it('reads ISO, US-style and dd-MM-yyyy dates, in Dominican time when no offset is given', () => {
    expect(parseAuthorityDate('2026-03-10T14:00:00Z')?.toISOString()).toBe('2026-03-10T14:00:00.000Z');
    expect(parseAuthorityDate('2026-03-10T10:00:00.1234567-04:00')?.toISOString()).toBe('2026-03-10T14:00:00.123Z');
    expect(parseAuthorityDate('2026-03-10T10:00:00')?.toISOString()).toBe('2026-03-10T14:00:00.000Z');
    expect(parseAuthorityDate('8/15/2023 6:06:57 AM')?.toISOString()).toBe('2023-08-15T10:06:57.000Z');
    expect(parseAuthorityDate('8/15/2023 12:06:57 PM')?.toISOString()).toBe('2023-08-15T16:06:57.000Z');
    expect(parseAuthorityDate('8/15/2023 12:06:57 AM')?.toISOString()).toBe('2023-08-15T04:06:57.000Z');
    expect(parseAuthorityDate('15-08-2023 18:06:57')?.toISOString()).toBe('2023-08-15T22:06:57.000Z');
    expect(parseAuthorityDate('2/31/2023 1:00:00 PM')).toBeNull();
    expect(parseAuthorityDate('ayer')).toBeNull();
  });

  it('gives receipt dates in Dominican ISO when readable, as given otherwise', () => {
    expect(authorityInstant('8/15/2023 6:06:57 AM')).toBe('2023-08-15T06:06:57.000-04:00');
    expect(authorityInstant('mañana temprano')).toBe('mañana temprano');
    expect(authorityInstant('')).toBeNull();
    expect(authorityInstant(null)).toBeNull();
  });
});

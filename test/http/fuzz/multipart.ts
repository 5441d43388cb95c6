import fc from 'fast-check';
import { INVALID_UTF8, PROTOTYPE_NAMES, short, type BodyCase } from './mutations.js';

export interface Part {
  readonly name: string;
  /** A file part when set. */
  readonly filename?: string;
  readonly content: Buffer;
  readonly contentType?: string;
}

export const BOUNDARY = '----ecffuzz7MA4YWxkTrZu0gW';

/** A multipart/form-data body, written by hand so any part of it can be broken. */
export function multipartBytes(parts: readonly Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.contentType ?? (p.filename !== undefined ? 'application/octet-stream' : undefined);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`), p.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/**
 * Bodies for a route that reads multipart parts: the valid parts, and the
 * same broken every way (cut anywhere, parts missing, renamed, repeated, a
 * prototype name as a field name, an oversized field, invalid UTF-8, a
 * boundary that does not match, no boundary, JSON instead).
 */
export function multipartCases(valid: readonly Part[], hostileContents: fc.Arbitrary<{ label: string; content: Buffer }>): fc.Arbitrary<BodyCase> {
  const whole = multipartBytes(valid);
  const mp = (label: string, payload: Buffer, contentType = MULTIPART): BodyCase => ({ label, payload, contentType });
  const replacePart = (i: number, change: Partial<Part>) => valid.map((p, j) => (j === i ? { ...p, ...change } : p));
  const partIndex = fc.nat({ max: valid.length - 1 });
  return fc.oneof(
    { arbitrary: fc.constant(mp('valid parts', whole)), weight: 2 },
    { arbitrary: fc.nat({ max: whole.length - 1 }).map((cut) => mp(`cut at byte ${cut} of ${whole.length}`, whole.subarray(0, cut))), weight: 4 },
    { arbitrary: fc.constant(mp('no closing boundary', whole.subarray(0, whole.length - `--${BOUNDARY}--\r\n`.length))), weight: 1 },
    { arbitrary: partIndex.map((i) => mp(`part ${valid[i]!.name} missing`, multipartBytes(valid.filter((_, j) => j !== i)))), weight: 1 },
    { arbitrary: partIndex.map((i) => mp(`part ${valid[i]!.name} twice`, multipartBytes([...valid, valid[i]!]))), weight: 1 },
    {
      arbitrary: fc.tuple(partIndex, fc.constantFrom(...PROTOTYPE_NAMES, '', 'FILE', 'xml[]', 'a"b', 'x'.repeat(3000))).map(([i, name]) => mp(`part ${valid[i]!.name} named ${short(name)}`, multipartBytes(replacePart(i, { name })))),
      weight: 2,
    },
    { arbitrary: fc.tuple(partIndex, hostileContents).map(([i, c]) => mp(`part ${valid[i]!.name} holds ${c.label}`, multipartBytes(replacePart(i, { content: c.content })))), weight: 6 },
    { arbitrary: fc.tuple(partIndex, fc.constantFrom(...INVALID_UTF8)).map(([i, b]) => mp(`part ${valid[i]!.name} with bytes ${b.toString('hex')}`, multipartBytes(replacePart(i, { content: Buffer.concat([valid[i]!.content, b]) })))), weight: 1 },
    { arbitrary: fc.constantFrom('a.p12', '', '../../../etc/passwd', '__proto__', 'x'.repeat(5000), 'ñ\u0000.xml').map((filename) => mp(`file name ${short(filename)}`, multipartBytes(valid.map((p) => (p.filename !== undefined ? { ...p, filename } : p))))), weight: 1 },
    { arbitrary: fc.constant(mp('six parts', multipartBytes([...valid, ...valid, ...valid, ...valid].slice(0, 6)))), weight: 1 },
    { arbitrary: fc.constant(mp('a 5,000-byte text field', multipartBytes([...valid, { name: 'note', content: Buffer.alloc(5000, 'a') }]))), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary=other',
        `multipart/form-data; boundary="${BOUNDARY}"; charset=latin1`,
        'multipart/mixed; boundary=' + BOUNDARY,
        'application/json',
        'text/plain',
        'application/xml',
      ).map((ct) => mp(`content type ${ct}`, whole, ct)),
      weight: 2,
    },
    { arbitrary: fc.constantFrom<BodyCase>({ label: 'empty multipart', payload: Buffer.alloc(0), contentType: MULTIPART }, { label: 'no body' }, { label: 'JSON body', payload: '{"file":"x","password":"y"}', contentType: 'application/json' }), weight: 1 },
  );
}

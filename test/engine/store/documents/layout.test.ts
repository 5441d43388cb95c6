import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBlob, parseBlob } from '../../../../src/engine/store/documents/layout.js';
import { readVarint, varintBytes } from '../../../../src/engine/store/documents/varint.js';
import { cutCertificate, restoreCertificate } from '../../../../src/engine/store/documents/certificate-text.js';

describe('the blob layout', () => {
  it('reads back every header it writes, whatever the frame', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 ** 40 })),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.uint8Array({ maxLength: 64 }),
        (dictionaryId, certificateId, offset, frame) => {
          const header = { dictionaryId, certificateId, certificateOffset: certificateId === 0 ? 0 : offset };
          const parsed = parseBlob(encodeBlob(header, frame));
          expect(parsed).toEqual({ kind: 'compressed', header, frame: Buffer.from(frame) });
        },
      ),
    );
  });

  it('keeps the offset only when a certificate was cut out: [0x00, dictionary, 0, frame...]', () => {
    expect([...encodeBlob({ dictionaryId: 1, certificateId: 0, certificateOffset: 0 }, Buffer.from([9, 9]))]).toEqual([0, 1, 0, 9, 9]);
    expect([...encodeBlob({ dictionaryId: 1, certificateId: 300, certificateOffset: 5 }, Buffer.from([9]))]).toEqual([0, 1, 0xac, 0x02, 5, 9]);
  });

  it('takes a blob that does not begin with NUL for a document stored raw', () => {
    expect(parseBlob(Buffer.from('<?xml version="1.0"?><ECF/>'))).toEqual({ kind: 'raw' });
    expect(parseBlob(Buffer.from('\uFEFF<ECF/>'))).toEqual({ kind: 'raw' });
  });

  it('calls a header cut short malformed', () => {
    expect(parseBlob(Buffer.from([0, 1])).kind).toBe('malformed');
    expect(parseBlob(Buffer.from([0, 1, 0x85])).kind).toBe('malformed');
    expect(parseBlob(Buffer.from([0, 1, 3, 0x80])).kind).toBe('malformed');
  });

  it('varints: every safe integer round-trips; a negative one is refused', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(readVarint(Uint8Array.from(varintBytes(n)), 0)).toEqual({ value: n, next: varintBytes(n).length });
      }),
    );
    expect(() => varintBytes(-1)).toThrow(RangeError);
  });
});

describe('cutting the certificate text out', () => {
  const cert = 'MIIB'.padEnd(1200, 'Qx+/');
  const doc = (inner: string, open = '<X509Certificate>', close = '</X509Certificate>') =>
    Buffer.from(`<?xml version="1.0" encoding="utf-8"?><ECF><Nombre>Ñoño</Nombre><Signature><KeyInfo><X509Data>${open}${inner}${close}</X509Data></KeyInfo></Signature></ECF>`, 'utf8');

  it('cuts the text between the tags at its byte offset and puts it back byte for byte', () => {
    const original = doc(cert);
    const cut = cutCertificate(original)!;
    expect(cut.text.toString()).toBe(cert);
    expect(original.subarray(cut.offset, cut.offset + cut.text.length).toString()).toBe(cert);
    expect(cut.rest.length).toBe(original.length - cert.length);
    expect(restoreCertificate(cut.rest, cut.text, cut.offset)!.equals(original)).toBe(true);
  });

  it('keeps line breaks inside the text and takes a prefixed element', () => {
    const wrapped = cert.match(/.{1,76}/g)!.join('\r\n');
    const original = doc(wrapped, '<ds:X509Certificate>', '</ds:X509Certificate>');
    const cut = cutCertificate(original)!;
    expect(cut.text.toString()).toBe(wrapped);
    expect(restoreCertificate(cut.rest, cut.text, cut.offset)!.equals(original)).toBe(true);
  });

  it('cuts nothing from a document without a certificate, or with one too short to be worth a row', () => {
    expect(cutCertificate(Buffer.from('<ARECF><x/></ARECF>'))).toBeNull();
    expect(cutCertificate(doc('MIIB'))).toBeNull();
    expect(cutCertificate(doc(cert, '<X509Certificate>', '</ds:X509Certificate>'))).toBeNull();
  });

  it('refuses an offset past the end', () => {
    expect(restoreCertificate(Buffer.from('abc'), Buffer.from('x'), 4)).toBeNull();
  });
});

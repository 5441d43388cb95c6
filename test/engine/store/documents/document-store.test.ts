import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../../../src/engine/store/database.js';
import { DocumentDamaged, compressDocument, cutCertificate, documentStore, encodeBlob, parseBlob } from '../../../../src/engine/store/documents/index.js';
import { issueValid } from '../../documents/issue-helper.js';
import { invoice31, testEngine } from '../../../helpers.js';

const signed = issueValid(invoice31()).signed;
const xml = signed.xmlBytes;
const ref = { table: 'ecf_documents', id: 'test-row', encf: 'E310000000001' };
/** The same document signed with another certificate (same length, other bytes). */
function withOtherCertificate(bytes: Buffer): Buffer {
  const cut = cutCertificate(bytes)!;
  const other = Buffer.from(cut.text.toString('latin1').replace(/[A-Za-z]/g, (c) => (c === 'A' ? 'B' : 'A')), 'latin1');
  return Buffer.concat([cut.rest.subarray(0, cut.offset), other, cut.rest.subarray(cut.offset)]);
}

describe('the document store (compression on)', () => {
  it('stores a signed e-CF compressed, its certificate once, and reads back the signed bytes', async () => {
    const engine = await testEngine();
    const docs = engine.documents;
    const second = Buffer.from(xml.toString('latin1').replace('<eNCF>E31', '<eNCF>E32'), 'latin1');
    expect(second.equals(xml)).toBe(false);
    const [a, b] = await Promise.all([docs.prepare(xml), docs.prepare(second)]);
    const [sa, sb] = await inTransaction(engine.db, async (tx) => [await docs.store(tx, a!), await docs.store(tx, b!)]);
    expect(sa.blob[0]).toBe(0);
    expect(sa.blob[1], 'new documents name the newest dictionary').toBe(2);
    expect(sa.blob.length).toBeLessThan(xml.length / 4);
    expect(sa.sha256!.length).toBe(32);
    const certificates = await engine.db.selectFrom('document_certificates').selectAll().execute();
    expect(certificates).toHaveLength(1);
    expect(certificates[0]!.certificate.toString()).toBe(cutCertificate(xml)!.text.toString());
    const parsed = parseBlob(sa.blob);
    expect(parsed.kind === 'compressed' && parsed.header.certificateId).toBe(Number(certificates[0]!.id));
    expect((await docs.read(engine.db, sa.blob, sa.sha256, ref)).equals(xml)).toBe(true);
    expect((await docs.read(engine.db, sb.blob, sb.sha256, ref)).equals(second)).toBe(true);
    // A fresh engine on the same store (no cache) reads it too.
    const fresh = documentStore();
    expect((await fresh.read(engine.db, sa.blob, sa.sha256, ref)).equals(xml)).toBe(true);
  });

  it('a certificate interned in a transaction that rolled back is not remembered: a later one reads right', async () => {
    const engine = await testEngine();
    const docs = engine.documents;
    const first = await docs.prepare(xml);
    await expect(
      inTransaction(engine.db, async (tx) => {
        await docs.store(tx, first);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const other = withOtherCertificate(xml);
    const prepared = await docs.prepare(other);
    const stored = await inTransaction(engine.db, (tx) => docs.store(tx, prepared));
    expect((await docs.read(engine.db, stored.blob, stored.sha256, ref)).equals(other)).toBe(true);
    const again = await inTransaction(engine.db, (tx) => docs.store(tx, first));
    expect((await docs.read(engine.db, again.blob, again.sha256, ref)).equals(xml)).toBe(true);
  });

  it('never returns other bytes: a damaged frame, a wrong digest, an unknown dictionary or certificate are DocumentDamaged naming the document', async () => {
    const engine = await testEngine();
    const docs = engine.documents;
    const prepared = await docs.prepare(xml);
    const { blob, sha256 } = await inTransaction(engine.db, (tx) => docs.store(tx, prepared));
    const damaged = async (b: Buffer, digest: Buffer | string | null = sha256) => {
      const error = await docs.read(engine.db, b, digest, ref).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(DocumentDamaged);
      expect((error as DocumentDamaged).code).toBe('Store.DocumentDamaged');
      expect((error as DocumentDamaged).message).toContain('ecf_documents test-row (e-NCF E310000000001)');
      return (error as Error).message;
    };
    for (let i = 6; i < blob.length; i += Math.ceil(blob.length / 12)) {
      const flipped = Buffer.from(blob);
      flipped[i]! ^= 0x01;
      await damaged(flipped);
    }
    const wrong = Buffer.from(sha256!);
    wrong[0]! ^= 0xff;
    expect(await damaged(blob, wrong)).toMatch(/SHA-256/);
    expect(await damaged(blob, null)).toMatch(/without its SHA-256/);
    const unknownDictionary = Buffer.from(blob);
    unknownDictionary[1] = 200;
    expect(await damaged(unknownDictionary)).toMatch(/never shipped/);
    const parsed = parseBlob(blob);
    if (parsed.kind !== 'compressed') throw new Error('expected a compressed blob');
    const unknownCertificate = Buffer.concat([Buffer.from([0, parsed.header.dictionaryId, 99, parsed.header.certificateOffset & 0x7f | 0x80, parsed.header.certificateOffset >> 7]), parsed.frame]);
    expect(await damaged(unknownCertificate)).toMatch(/certificate 99/);
  });

  it('a document compressed with dictionary 1 (before dictionary 2 shipped) still reads back, and is checked', async () => {
    const engine = await testEngine();
    const docs = engine.documents;
    const old = await compressDocument(xml, 1);
    const cut = cutCertificate(xml)!;
    // Its certificate text interned as the store does it, by storing a document now.
    const interned = parseBlob((await inTransaction(engine.db, async (tx) => docs.store(tx, await docs.prepare(xml)))).blob);
    if (interned.kind !== 'compressed') throw new Error('expected a compressed blob');
    const blob = encodeBlob({ dictionaryId: 1, certificateId: interned.header.certificateId, certificateOffset: cut.offset }, old.frame);
    expect((await docs.read(engine.db, blob, old.sha256, ref)).equals(xml)).toBe(true);
    // The dictionaries differ: the frame read with dictionary 2 is not the document.
    const misnamed = Buffer.from(blob);
    misnamed[1] = 2;
    await expect(docs.read(engine.db, misnamed, old.sha256, ref)).rejects.toThrow(DocumentDamaged);
  });

  it('a raw document (the old layout) reads back and is checked against the hex digest its row keeps', async () => {
    const engine = await testEngine();
    const hex = signed.xmlSha256;
    expect((await engine.documents.read(engine.db, xml, hex, ref)).equals(xml)).toBe(true);
    expect((await engine.documents.read(engine.db, xml, null, ref)).equals(xml)).toBe(true);
    const flipped = Buffer.from(xml);
    flipped[100]! ^= 0x01;
    await expect(engine.documents.read(engine.db, flipped, hex, ref)).rejects.toThrow(DocumentDamaged);
  });
});

describe('the document store (compression off)', () => {
  it('stores the bytes as they are and no digest, as the release before migration 0017 did', async () => {
    const engine = await testEngine();
    const docs = documentStore({ compress: false });
    const prepared = await docs.prepare(xml);
    const stored = await inTransaction(engine.db, (tx) => docs.store(tx, prepared));
    expect(stored.blob.equals(xml)).toBe(true);
    expect(stored.sha256).toBeNull();
    expect(await engine.db.selectFrom('document_certificates').select('id').execute()).toHaveLength(0);
  });
});

describe('raw documents that begin with NUL', () => {
  it('an upload stored raw before migration 0017 that happens to begin with 0x00 reads back by its digest; other bytes are damaged', async () => {
    const engine = await testEngine();
    const odd = Buffer.concat([Buffer.from([0, 1, 0]), Buffer.from('not a document, as it arrived')]);
    const hex = createHash('sha256').update(odd).digest('hex');
    expect((await engine.documents.read(engine.db, odd, hex, ref)).equals(odd)).toBe(true);
    await expect(engine.documents.read(engine.db, odd, 'f'.repeat(64), ref)).rejects.toThrow(DocumentDamaged);
  });
});

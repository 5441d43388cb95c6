import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../../../src/engine/store/database.js';
import {
  DocumentDamaged,
  compressDocument,
  cutCertificate,
  decompressFrame,
  dictionaryBytes,
  frameContentSize,
  isWholeFrame,
  keptContextDecoder,
  CURRENT_DICTIONARY_ID,
} from '../../../../src/engine/store/documents/index.js';
import { issueValid } from '../../documents/issue-helper.js';
import { invoice31, testEngine } from '../../../helpers.js';

/**
 * `ecf store verify` decompresses with one kept zstd context per dictionary
 * (frame-decoder.ts) instead of node:zlib's one context per call. It must
 * answer exactly as the public path does, for every frame, damaged ones
 * included, and a damaged frame must not disturb the frames after it.
 */
const signed = issueValid(invoice31()).signed.xmlBytes;
const base = cutCertificate(signed)!.rest;
/** Distinct documents: the invoice with other numbers, and a longer one. */
const documents = Array.from({ length: 12 }, (_, i) =>
  Buffer.from(base.toString('latin1').replace(/<eNCF>E31\d+/, `<eNCF>E31${String(1000 + i * 7919).padStart(10, '0')}`).repeat(1 + (i % 3)), 'latin1'),
);
const dictionary = dictionaryBytes(CURRENT_DICTIONARY_ID)!;
/**
 * What stores written before the codec compressed on the calling thread hold (node:zlib's
 * thread-pool zstdCompress: no content size in the frame), and what it writes now (size stated).
 */
const { ZSTD_c_compressionLevel: zstdLevel, ZSTD_c_dictIDFlag: zstdDictId } = zlib.constants as unknown as Record<'ZSTD_c_compressionLevel' | 'ZSTD_c_dictIDFlag', number>;
const onPool = (d: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    (zlib as unknown as { zstdCompress(b: Buffer, o: object, done: (e: Error | null, r: Buffer) => void): void }).zstdCompress(
      d,
      { dictionary, params: { [zstdLevel]: 3, [zstdDictId]: 0 } },
      (e, r) => (e ? reject(e) : resolve(r)),
    ),
  );
const asyncFrames = await Promise.all(documents.map(onPool));
const syncFrames = await Promise.all(documents.map(async (d) => (await compressDocument(d, CURRENT_DICTIONARY_ID)).frame));

/** The public path's answer: the bytes, or the error's class. */
function publicAnswer(frame: Buffer, id: number): Buffer | string {
  try {
    return decompressFrame(frame, id);
  } catch (e) {
    return (e as Error).constructor.name;
  }
}
function keptAnswer(decoder: ReturnType<typeof keptContextDecoder>, frame: Buffer, id: number): Buffer | string {
  try {
    return decoder.decompress(frame, id);
  } catch (e) {
    return (e as Error).constructor.name;
  }
}

describe('the kept-context frame decoder', () => {
  it('reads frames with and without a stated content size, one after another on one context', () => {
    expect(asyncFrames.every((f) => frameContentSize(f) === null)).toBe(true);
    expect(syncFrames.map((f) => frameContentSize(f))).toEqual(documents.map((d) => d.length));
    const decoder = keptContextDecoder();
    for (let round = 0; round < 3; round++) {
      for (const [i, d] of documents.entries()) {
        expect(decoder.decompress(asyncFrames[i]!, CURRENT_DICTIONARY_ID).equals(d)).toBe(true);
        expect(decoder.decompress(syncFrames[i]!, CURRENT_DICTIONARY_ID).equals(d)).toBe(true);
      }
    }
  });

  it('a document larger than its buffer is read the public way', async () => {
    const big = Buffer.concat(Array.from({ length: 200 }, (_, i) => Buffer.from(documents[i % documents.length]!)));
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const frame = (await compressDocument(big, CURRENT_DICTIONARY_ID)).frame;
    const decoder = keptContextDecoder();
    expect(decoder.decompress(frame, CURRENT_DICTIONARY_ID).equals(big)).toBe(true);
    expect(decoder.decompress(asyncFrames[0]!, CURRENT_DICTIONARY_ID).equals(documents[0]!)).toBe(true);
  });

  it('takes only whole frames: a frame cut anywhere is answered as the public path answers it', () => {
    const decoder = keptContextDecoder();
    for (const good of [asyncFrames[0]!, syncFrames[0]!]) {
      expect(isWholeFrame(good)).toBe(true);
      for (let cut = 0; cut < good.length; cut++) {
        const frame = good.subarray(0, cut);
        expect(isWholeFrame(frame), `cut at ${cut}`).toBe(false);
        // Node 24 refuses an empty frame, Node 22 answers empty bytes: the same answer either way.
        expect(keptAnswer(decoder, frame, CURRENT_DICTIONARY_ID), `cut at ${cut}`).toEqual(publicAnswer(frame, CURRENT_DICTIONARY_ID));
      }
    }
  });

  it('answers every damaged frame as the public path does, and the next frame still reads right', () => {
    const decoder = keptContextDecoder();
    const damage = fc.record({
      which: fc.nat(documents.length - 1),
      stated: fc.boolean(),
      kind: fc.constantFrom('flip', 'truncate', 'append', 'dictionary'),
      at: fc.nat(),
      bits: fc.integer({ min: 1, max: 255 }),
    });
    fc.assert(
      fc.property(damage, ({ which, stated, kind, at, bits }) => {
        const good = (stated ? syncFrames : asyncFrames)[which]!;
        let frame = Buffer.from(good);
        let id = CURRENT_DICTIONARY_ID;
        if (kind === 'flip') frame[at % frame.length] = frame[at % frame.length]! ^ bits;
        if (kind === 'truncate') frame = frame.subarray(0, at % frame.length);
        if (kind === 'append') frame = Buffer.concat([frame, Buffer.from([bits, at & 255])]);
        if (kind === 'dictionary') id = [0, 2, 200][at % 3]!;
        const expected = publicAnswer(frame, id);
        const got = keptAnswer(decoder, frame, id);
        if (typeof expected === 'string') expect(got).toBe(expected);
        else expect(Buffer.isBuffer(got) && got.equals(expected)).toBe(true);
        const next = asyncFrames[(which + 1) % documents.length]!;
        expect(decoder.decompress(next, CURRENT_DICTIONARY_ID).equals(documents[(which + 1) % documents.length]!)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a read through it still reports a damaged blob, and reads a sound one', async () => {
    const engine = await testEngine();
    const prepared = await engine.documents.prepare(signed);
    const stored = await inTransaction(engine.db, (tx) => engine.documents.store(tx, prepared));
    const ref = { table: 'ecf_documents', id: 'row', encf: 'E310000000001' };
    const decoder = keptContextDecoder();
    expect((await engine.documents.read(engine.db, stored.blob, stored.sha256, ref, decoder)).equals(signed)).toBe(true);
    const damaged = Buffer.from(stored.blob);
    damaged[damaged.length - 24] = damaged[damaged.length - 24]! ^ 1;
    await expect(engine.documents.read(engine.db, damaged, stored.sha256, ref, decoder)).rejects.toBeInstanceOf(DocumentDamaged);
    expect((await engine.documents.read(engine.db, stored.blob, stored.sha256, ref, decoder)).equals(signed)).toBe(true);
  });
});

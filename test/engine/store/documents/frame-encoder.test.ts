import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compressFrame, DEFAULT_LEVEL } from '../../../../src/engine/store/documents/codec.js';
import { cutCertificate, CURRENT_DICTIONARY_ID } from '../../../../src/engine/store/documents/index.js';
import { keptContextEncoder } from '../../../../src/engine/store/documents/frame-encoder.js';
import { issueValid } from '../../documents/issue-helper.js';
import { invoice31 } from '../../../helpers.js';

/**
 * The in-place conversion compresses with one kept zstd context (frame-encoder.ts) instead of
 * node:zlib's context per document. What it writes is stored for good, so each frame must be the
 * public path's own, byte for byte, for every content and in any order, the context reused.
 */
const signed = issueValid(invoice31()).signed.xmlBytes;
const rest = cutCertificate(signed)!.rest;

describe('the kept-context frame encoder', () => {
  it('writes the public path\'s frame byte for byte, document after document through one context, for each dictionary and level', () => {
    const encoder = keptContextEncoder();
    try {
      fc.assert(
        fc.property(
          fc.constantFrom(CURRENT_DICTIONARY_ID, 1, 0),
          fc.constantFrom(DEFAULT_LEVEL, 1, 9),
          fc.integer({ min: 0, max: rest.length }),
          fc.integer({ min: 0, max: 4000 }),
          fc.boolean(),
          (dictionaryId, level, cut, noise, random) => {
            // The signed document, cut anywhere and followed by bytes of its own or random ones.
            const content = Buffer.concat([rest.subarray(0, cut), random ? randomBytes(noise) : rest.subarray(0, Math.min(noise, rest.length))]);
            expect(encoder.encode(content, dictionaryId, level).equals(compressFrame(content, dictionaryId, level))).toBe(true);
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      encoder.close();
    }
  });

  it('gives a content too large for its buffer, and every document after a closed context, to the public path with the same answer', () => {
    const encoder = keptContextEncoder();
    const large = Buffer.concat(Array.from({ length: 200 }, () => rest));
    expect(encoder.encode(large, CURRENT_DICTIONARY_ID, DEFAULT_LEVEL).equals(compressFrame(large, CURRENT_DICTIONARY_ID, DEFAULT_LEVEL))).toBe(true);
    encoder.close();
    expect(encoder.encode(rest, CURRENT_DICTIONARY_ID, DEFAULT_LEVEL).equals(compressFrame(rest, CURRENT_DICTIONARY_ID, DEFAULT_LEVEL))).toBe(true);
  });
});

import { readVarint, varintBytes } from './varint.js';

/**
 * The stored form of a document (docs/store.md, "Compressed documents"):
 *
 *   byte 0    0x00, the mark of this layout (no XML document begins with NUL,
 *             so a blob without it is a document stored raw, as before)
 *   byte 1    the dictionary id, 1..255; 0 = zstd without a dictionary
 *   varint    the document_certificates id, 0 when no certificate text was cut out
 *   varint    only when that id is not 0: the byte offset where the text goes back in
 *   ...       the zstd frame (no checksum: the row keeps a SHA-256; the content size is stated
 *             only by frames compressed synchronously)
 *
 * Pure: no store, no zlib.
 */
export const LAYOUT_MARK = 0x00;

export interface BlobHeader {
  readonly dictionaryId: number;
  /** 0: nothing was cut out. */
  readonly certificateId: number;
  /** Byte offset in the document where the certificate text goes back in (0 when nothing was cut). */
  readonly certificateOffset: number;
}

export type ParsedBlob =
  | { readonly kind: 'raw' }
  | { readonly kind: 'compressed'; readonly header: BlobHeader; readonly frame: Buffer }
  | { readonly kind: 'malformed'; readonly reason: string };

export function encodeBlob(header: BlobHeader, frame: Uint8Array): Buffer {
  if (!Number.isInteger(header.dictionaryId) || header.dictionaryId < 0 || header.dictionaryId > 255) throw new RangeError(`dictionary id ${header.dictionaryId} is not 0..255`);
  const head = [LAYOUT_MARK, header.dictionaryId, ...varintBytes(header.certificateId)];
  if (header.certificateId !== 0) head.push(...varintBytes(header.certificateOffset));
  return Buffer.concat([Buffer.from(head), frame]);
}

/** What a stored blob is; a raw (legacy) document is anything not starting with the mark. */
export function parseBlob(blob: Buffer): ParsedBlob {
  if (blob.length === 0 || blob[0] !== LAYOUT_MARK) return { kind: 'raw' };
  if (blob.length < 3) return { kind: 'malformed', reason: 'the blob ends inside its header' };
  const dictionaryId = blob[1]!;
  const id = readVarint(blob, 2);
  if (!id) return { kind: 'malformed', reason: 'the certificate id is not a varint' };
  let next = id.next;
  let certificateOffset = 0;
  if (id.value !== 0) {
    const offset = readVarint(blob, next);
    if (!offset) return { kind: 'malformed', reason: 'the certificate offset is not a varint' };
    certificateOffset = offset.value;
    next = offset.next;
  }
  return { kind: 'compressed', header: { dictionaryId, certificateId: id.value, certificateOffset }, frame: blob.subarray(next) };
}

import type { Kysely } from 'kysely';
import { afterCommit } from '../database.js';
import type { Database } from '../schema.js';
import { compressDocument, compressFrame, sha256Of, DEFAULT_LEVEL, FrameUnreadable, type CompressedDocument, type FrameEncoder } from './codec.js';
import { restoreCertificate } from './certificate-text.js';
import { CURRENT_DICTIONARY_ID } from './dictionaries.js';
import { DocumentDamaged, type DocumentRef } from './damaged.js';
import { ONE_SHOT, type FrameDecoder } from './frame-decoder.js';
import { encodeBlob, parseBlob, type ParsedBlob } from './layout.js';

/** A document ready to store: compressed (before any transaction) or, with compression off, as it is. */
export interface PreparedDocument {
  readonly bytes: Buffer;
  readonly compressed: CompressedDocument | null;
}

/** What goes in the row: the blob, and the raw SHA-256 for the new digest columns (null in the old layout). */
export interface StoredDocument {
  readonly blob: Buffer;
  readonly sha256: Buffer | null;
}

/** The digest a row keeps: 32 raw bytes (columns of migration 0017) or hex text (older columns); null when it keeps none. */
export type KeptDigest = Buffer | string | null | undefined;

/**
 * Every write and read of a stored document goes through here (one per
 * engine: the certificate ids it caches belong to one store). Writes:
 * `prepare` (compression, outside any transaction), then `store` inside it
 * (the certificate text interned: a small insert the first time). Reads:
 * `read`, which checks the kept SHA-256 and throws DocumentDamaged rather
 * than return other bytes.
 */
export interface DocumentStore {
  readonly compress: boolean;
  prepare(bytes: Buffer): Promise<PreparedDocument>;
  store(tx: Kysely<Database>, prepared: PreparedDocument): Promise<StoredDocument>;
  /** `decoder`: a walk over many documents keeps its zstd contexts (frame-decoder.ts); a single read needs none. */
  read(db: Kysely<Database>, blob: Buffer, digest: KeptDigest, ref: DocumentRef, decoder?: FrameDecoder): Promise<Buffer>;
}

export interface DocumentStoreOptions {
  /** Default true; false writes the layout of the previous release (raw bytes, no new digest). A development option. */
  readonly compress?: boolean;
  readonly level?: number;
  /** How frames are written; default node:zlib's public path, a context per document (an engine passes its kept contexts, frame-encoder.ts). */
  readonly encoder?: FrameEncoder;
}

export function documentStore(options: DocumentStoreOptions = {}): DocumentStore {
  const compress = options.compress !== false;
  const level = options.level ?? DEFAULT_LEVEL;
  const encoder = options.encoder ?? compressFrame;
  // Ids never change once committed; entries are added only after a commit (or from committed reads).
  const idByHash = new Map<string, number>();
  const textById = new Map<number, Buffer>();

  async function intern(tx: Kysely<Database>, text: Buffer): Promise<number> {
    const sha = sha256Of(text);
    const key = sha.toString('hex');
    const cached = idByHash.get(key);
    if (cached !== undefined) return cached;
    const find = () => tx.selectFrom('document_certificates').select('id').where('sha256', '=', sha).executeTakeFirst();
    let row = await find();
    if (!row) {
      await tx.insertInto('document_certificates').values({ sha256: sha, certificate: text }).onConflict((c) => c.column('sha256').doNothing()).execute();
      row = await find();
    }
    const id = Number(row!.id);
    afterCommit(tx, () => idByHash.set(key, id));
    return id;
  }

  async function certificateText(db: Kysely<Database>, id: number): Promise<Buffer | null> {
    const cached = textById.get(id);
    if (cached) return cached;
    const row = await db.selectFrom('document_certificates').select(['certificate', 'sha256']).where('id', '=', id).executeTakeFirst();
    if (!row || !sha256Of(row.certificate).equals(row.sha256)) return null;
    if (!db.isTransaction) textById.set(id, row.certificate);
    return row.certificate;
  }

  return {
    compress,
    async prepare(bytes) {
      return { bytes, compressed: compress ? await compressDocument(bytes, CURRENT_DICTIONARY_ID, level, encoder) : null };
    },
    async store(tx, prepared) {
      const c = prepared.compressed;
      if (!c) return { blob: prepared.bytes, sha256: null };
      const certificateId = c.certificate ? await intern(tx, c.certificate.text) : 0;
      return { blob: encodeBlob({ dictionaryId: c.dictionaryId, certificateId, certificateOffset: c.certificate?.offset ?? 0 }, c.frame), sha256: c.sha256 };
    },
    async read(db, blob, digest, ref, decoder = ONE_SHOT) {
      const parsed = parseBlob(blob);
      if (parsed.kind === 'raw') return checked(blob, digest, ref);
      try {
        return await readCompressed(db, parsed, digest, ref, decoder).catch((e: unknown) => {
          // A kept context decides nothing: a document it read wrong is read again the public way.
          if (e instanceof DocumentDamaged && decoder.kept) return readCompressed(db, parsed, digest, ref, ONE_SHOT);
          throw e;
        });
      } catch (e) {
        // A received upload stored raw before migration 0017 may begin with NUL itself: its digest says so.
        if (e instanceof DocumentDamaged && digest && digestMatches(blob, digest)) return blob;
        throw e;
      }
    },
  };

  async function readCompressed(db: Kysely<Database>, parsed: Exclude<ParsedBlob, { kind: 'raw' }>, digest: KeptDigest, ref: DocumentRef, decoder: FrameDecoder): Promise<Buffer> {
    if (parsed.kind === 'malformed') throw new DocumentDamaged(ref, parsed.reason);
    if (digest === null || digest === undefined) throw new DocumentDamaged(ref, 'a compressed document without its SHA-256');
    const { dictionaryId, certificateId, certificateOffset } = parsed.header;
    let content: Buffer;
    try {
      content = decoder.decompress(parsed.frame, dictionaryId);
    } catch (e) {
      if (!(e instanceof FrameUnreadable)) throw e;
      throw new DocumentDamaged(ref, `the compressed bytes do not decompress (${e.message})`);
    }
    if (certificateId !== 0) {
      const text = await certificateText(db, certificateId);
      if (!text) throw new DocumentDamaged(ref, `its certificate ${certificateId} is not in document_certificates`);
      const whole = restoreCertificate(content, text, certificateOffset);
      if (!whole) throw new DocumentDamaged(ref, `the certificate offset ${certificateOffset} lies outside the document`);
      content = whole;
    }
    return checked(content, digest, ref);
  }
}

function digestMatches(bytes: Buffer, digest: Buffer | string): boolean {
  const sha = sha256Of(bytes);
  return typeof digest === 'string' ? sha.toString('hex') === digest.toLowerCase() : sha.equals(digest);
}

function checked(bytes: Buffer, digest: KeptDigest, ref: DocumentRef): Buffer {
  if (digest === null || digest === undefined) return bytes;
  if (!digestMatches(bytes, digest)) throw new DocumentDamaged(ref, 'its SHA-256 is not the one kept when it was stored');
  return bytes;
}

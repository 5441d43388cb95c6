// Documents written by a bench's bulk loader exactly as the engine stores them (src/engine/store/documents/):
// the certificate text cut out and kept once in document_certificates, the rest compressed with the
// current dictionary at the engine's level, a SHA-256 of the signed bytes beside each blob. Synchronous
// (a loader's better-sqlite3 transaction cannot await); the engine compresses on the thread pool instead.
import type { Kysely } from 'kysely';
import {
  compressFrameSync,
  cutCertificate,
  dictionaryBytes,
  encodeBlob,
  sha256Of,
  CURRENT_DICTIONARY_ID,
  DEFAULT_LEVEL,
} from '../src/engine/store/documents/index.js';
import type { Database } from '../src/engine/store/schema.js';

export interface StoredDocument {
  readonly blob: Buffer;
  readonly sha256: Buffer;
}

export type Packer = (bytes: Buffer) => StoredDocument;

/**
 * A packer for documents whose certificates are among those of `samples`: each distinct certificate
 * text is kept in document_certificates now, through the engine's connection, so the loader only
 * looks its id up.
 */
export async function documentPacker(db: Kysely<Database>, samples: readonly Buffer[]): Promise<Packer> {
  const dictionary = dictionaryBytes(CURRENT_DICTIONARY_ID) ?? undefined;
  const ids = new Map<string, number>();
  for (const bytes of samples) {
    const cut = cutCertificate(bytes);
    if (!cut || ids.has(cut.text.toString('latin1'))) continue;
    const row = await db.insertInto('document_certificates').values({ sha256: sha256Of(cut.text), certificate: cut.text } as never).returning('id').executeTakeFirstOrThrow();
    ids.set(cut.text.toString('latin1'), Number(row.id));
  }
  return (bytes) => {
    const cut = cutCertificate(bytes);
    const certificateId = cut ? ids.get(cut.text.toString('latin1')) : 0;
    if (certificateId === undefined) throw new Error('a document signed with a certificate the packer was not given');
    const frame = compressFrameSync(cut?.rest ?? bytes, dictionary, DEFAULT_LEVEL);
    return { blob: encodeBlob({ dictionaryId: CURRENT_DICTIONARY_ID, certificateId, certificateOffset: cut?.offset ?? 0 }, frame), sha256: sha256Of(bytes) };
  };
}

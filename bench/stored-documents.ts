// Documents written by a bench's bulk loader exactly as the engine stores them (src/engine/store/documents/):
// the certificate text cut out and kept once in document_certificates, the rest compressed with the
// current dictionary at the engine's level, a SHA-256 of the signed bytes beside each blob. Synchronous
// (a loader's better-sqlite3 transaction cannot await; bench/packing.ts runs it on worker threads);
// the engine compresses on the thread pool instead.
import type { Kysely } from 'kysely';
// The codec's own modules rather than the documents' index, which brings the store (Kysely) into each packing worker.
import { cutCertificate } from '../src/engine/store/documents/certificate-text.js';
import { sha256Of, DEFAULT_LEVEL } from '../src/engine/store/documents/codec.js';
import { dictionaryBytes, CURRENT_DICTIONARY_ID } from '../src/engine/store/documents/dictionaries.js';
import { encodeBlob } from '../src/engine/store/documents/layout.js';
import { keptCompressor } from './kept-compressor.js';
import type { Database } from '../src/engine/store/schema.js';

export interface StoredDocument {
  readonly blob: Buffer;
  readonly sha256: Buffer;
}

export type Packer = (bytes: Buffer) => StoredDocument;

/** Each distinct certificate text (latin1) and its document_certificates id. */
export type CertificateIds = readonly (readonly [text: string, id: number])[];

/** The ecf_documents row of one e-CF. */
export function documentRow(ecfKey: number, xml: StoredDocument, rfce: StoredDocument | null): Record<string, unknown> {
  return { ecf_key: ecfKey, xml: xml.blob, rfce_xml: rfce?.blob ?? null, xml_sha256: xml.sha256, rfce_sha256: rfce?.sha256 ?? null };
}

/** Keeps each distinct certificate text of `samples` in document_certificates, through the engine's connection. */
export async function keepCertificates(db: Kysely<Database>, samples: readonly Buffer[]): Promise<CertificateIds> {
  const ids = new Map<string, number>();
  for (const bytes of samples) {
    const cut = cutCertificate(bytes);
    if (!cut || ids.has(cut.text.toString('latin1'))) continue;
    const row = await db.insertInto('document_certificates').values({ sha256: sha256Of(cut.text), certificate: cut.text } as never).returning('id').executeTakeFirstOrThrow();
    ids.set(cut.text.toString('latin1'), Number(row.id));
  }
  return [...ids];
}

/** A packer for documents whose certificates are among `certificates` (kept already: keepCertificates). */
export function packerFor(certificates: CertificateIds): Packer {
  const dictionary = dictionaryBytes(CURRENT_DICTIONARY_ID) ?? undefined;
  const ids = new Map(certificates);
  const compress = keptCompressor(dictionary, DEFAULT_LEVEL);
  return (bytes) => {
    const cut = cutCertificate(bytes);
    const certificateId = cut ? ids.get(cut.text.toString('latin1')) : 0;
    if (certificateId === undefined) throw new Error('a document signed with a certificate the packer was not given');
    const frame = compress(cut?.rest ?? bytes);
    return { blob: encodeBlob({ dictionaryId: CURRENT_DICTIONARY_ID, certificateId, certificateOffset: cut?.offset ?? 0 }, frame), sha256: sha256Of(bytes) };
  };
}

/** keepCertificates, then packerFor: a packer on the calling thread. */
export async function documentPacker(db: Kysely<Database>, samples: readonly Buffer[]): Promise<Packer> {
  return packerFor(await keepCertificates(db, samples));
}

// Compressed documents: the codec, its dictionaries and the store port (docs/store.md, "Compressed documents").
export { documentStore, type DocumentStore, type DocumentStoreOptions, type KeptDigest, type PreparedDocument, type StoredDocument } from './document-store.js';
export { DocumentDamaged, describeDocument, type DocumentRef } from './damaged.js';
export { compressDocument, compressFrameSync, decompressFrame, sha256Of, DEFAULT_LEVEL, type CompressedDocument } from './codec.js';
export { cutCertificate, restoreCertificate } from './certificate-text.js';
export { CURRENT_DICTIONARY_ID, SHIPPED_DICTIONARIES, dictionaryBytes, dictionaryDirectory, type ShippedDictionary } from './dictionaries.js';
export { keptContextEncoder, type KeptEncoder } from './frame-encoder.js';
export { keptContextDecoder, frameContentSize, isWholeFrame, ONE_SHOT, type FrameDecoder } from './frame-decoder.js';
export { encodeBlob, parseBlob, LAYOUT_MARK, type BlobHeader, type ParsedBlob } from './layout.js';
export { readEcfXml, readRfceXml, type EcfDocumentRow, type RfceDocumentRow } from './ecf-documents.js';

// The document-upkeep door of engine/store: what compresses, decompresses and checks every stored document
// (zstd, the dictionaries, the signature verifier on demand), kept apart from ./index.ts so light
// commands do not load it.
export { convertDocuments, conversionPending, startBackgroundConversion, CONVERT_BATCH_ROWS, type RunningConversion, type ConvertOptions, type ConvertProgress, type ConvertReport } from './documents/convert.js';
export { verifyStore, type DamagedDocument, type VerifyOptions, type VerifyProgress, type VerifyReport, type VerifyTableReport } from './documents/verify-store.js';

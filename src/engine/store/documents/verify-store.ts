import { performance } from 'node:perf_hooks';
import type { Engine } from '../../engine-types.js';
import { DocumentDamaged, describeDocument, type DocumentRef } from './damaged.js';
import { DOCUMENT_TABLES, firstKey, keptDigest, readBatch, type DocumentTable } from './document-tables.js';
import { keptContextDecoder, type FrameDecoder } from './frame-decoder.js';
import { parseBlob } from './layout.js';
import { signatureChecker, type SignatureChecker } from '../../signing/signature-checker.js';

/**
 * `ecf store verify` (docs/store.md, "Verifying the store"): every stored
 * document of every table read back as a request would read it (decompressed,
 * its certificate text put back, its SHA-256 checked), and with `signatures`
 * its XML signature checked too, by the verifier the receiver uses
 * (signing/verify.ts). Reads only; never changes a row.
 */

export const VERIFY_BATCH_ROWS = 1000;

export interface DamagedDocument {
  readonly document: DocumentRef;
  readonly reason: string;
  /** The document's table, id, column and e-NCF in words. */
  readonly described: string;
}

export interface VerifyProgress {
  readonly table: string;
  readonly documents: number;
  readonly damaged: number;
  readonly rate: number;
}

export interface VerifyOptions {
  readonly tenantId?: string;
  readonly signatures?: boolean;
  readonly batchRows?: number;
  readonly onProgress?: (progress: VerifyProgress) => void;
  readonly onDamaged?: (damaged: DamagedDocument) => void;
}

export interface VerifyTableReport {
  readonly table: string;
  readonly documents: number;
  /** Raw documents of an older release that keep no digest (RFCE, ARECF, certification cases): read, nothing to check. */
  readonly withoutDigest: number;
  readonly damaged: number;
}

export interface VerifyReport {
  readonly tables: readonly VerifyTableReport[];
  readonly documents: number;
  readonly damaged: readonly DamagedDocument[];
  readonly signaturesChecked: number;
  readonly seconds: number;
}


export async function verifyStore(engine: Engine, options: VerifyOptions = {}): Promise<VerifyReport> {
  const started = performance.now();
  const checkSignature = options.signatures ? await signatureChecker() : null;
  const tables: VerifyTableReport[] = [];
  const damaged: DamagedDocument[] = [];
  let signaturesChecked = 0;
  const decoder = keptContextDecoder();
  for (const spec of DOCUMENT_TABLES) {
    const report = await verifyTable(engine, spec, options, decoder, checkSignature, (d) => {
      damaged.push(d);
      options.onDamaged?.(d);
    });
    signaturesChecked += report.signaturesChecked;
    tables.push(report.table);
  }
  return { tables, documents: tables.reduce((n, t) => n + t.documents, 0), damaged, signaturesChecked, seconds: (performance.now() - started) / 1000 };
}

async function verifyTable(engine: Engine, spec: DocumentTable, options: VerifyOptions, decoder: FrameDecoder, checkSignature: SignatureChecker | null, report: (d: DamagedDocument) => void) {
  const limit = options.batchRows ?? VERIFY_BATCH_ROWS;
  const started = performance.now();
  let after = firstKey(engine.db, spec);
  let documents = 0;
  let withoutDigest = 0;
  let damaged = 0;
  let signaturesChecked = 0;
  const found = (document: DocumentRef, reason: string) => {
    damaged++;
    report({ document, reason, described: describeDocument(document) });
  };
  for (;;) {
    const rows = await readBatch(engine.db, spec, { after, limit, signatures: checkSignature !== null, ...(options.tenantId !== undefined && { tenantId: options.tenantId }) });
    for (const row of rows) {
      for (const [i, column] of spec.columns.entries()) {
        const d = row.documents[i]!;
        if (!d.blob) continue;
        documents++;
        const ref: DocumentRef = { table: spec.table, id: row.id, column: column.column, encf: row.encf };
        const digest = keptDigest(d);
        if (digest === null && parseBlob(d.blob).kind === 'raw') withoutDigest++;
        let bytes: Buffer;
        try {
          bytes = await engine.documents.read(engine.db, d.blob, digest, ref, decoder);
        } catch (e) {
          if (!(e instanceof DocumentDamaged)) throw e;
          found(ref, e.message);
          continue;
        }
        if (checkSignature && d.checkSignature && d.signedAt) {
          signaturesChecked++;
          const wrong = checkSignature(bytes, new Date(d.signedAt));
          if (wrong) found(ref, `its digest matches but its signature does not verify: ${wrong}`);
        }
      }
    }
    options.onProgress?.({ table: spec.table, documents, damaged, rate: documents / Math.max((performance.now() - started) / 1000, 1e-3) });
    if (rows.length < limit) break;
    after = rows.at(-1)!.k;
  }
  return { table: { table: spec.table, documents, withoutDigest, damaged }, signaturesChecked };
}

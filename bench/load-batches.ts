// The big-store bench's rows in batches, with their documents packed on worker threads
// (bench/packing.ts) while the caller inserts the batch before: up to `depth` batches are made
// ahead, so memory holds a few batches whatever the number of rows.
import type { Generated } from './ecf-rows.js';
import { documentJoiner, type Packing } from './packing.js';
import { documentRow, type StoredDocument } from './stored-documents.js';

/** Rows to insert, by table, in an order foreign keys accept. */
export type Tables = { [table: string]: Record<string, unknown>[] };

export interface BatchOptions {
  readonly rows: number;
  readonly batch: number;
  /** Batches made ahead of the one being inserted (default 3). */
  readonly depth?: number;
  readonly make: (i: number) => Generated;
  /** Null leaves the documents out. */
  readonly packing: Packing | null;
  /** Sees each row as it is made (samples, byte counts). */
  readonly onRow?: (g: Generated) => void;
}

interface Pending {
  readonly from: number;
  readonly to: number;
  readonly tables: Tables;
  /** Each row's store key (ecf.store_key), which its documents row points at. */
  readonly ecfKeys: number[];
  /** Each row's XML and its RFCE (null without one), in turn, packed. */
  readonly documents: Promise<(StoredDocument | null)[]> | null;
}

/** The e-CF row's own tables (the documents are added once packed). */
const rowsOf = (g: Generated): Tables => ({ ecf: [g.ecf], ecf_attempts: g.attempts, events: g.events, ecf_fingerprints: g.fingerprints });

export async function* rowBatches(o: BatchOptions): AsyncGenerator<{ readonly from: number; readonly to: number; readonly tables: Tables }> {
  const depth = o.depth ?? 3;
  const ahead: Pending[] = [];
  let next = 0;
  const makeBatch = (from: number, to: number): Pending => {
    const tables: Tables = { ecf: [], ...(o.packing && { ecf_documents: [] }), ecf_attempts: [], events: [], ecf_fingerprints: [] };
    const ecfKeys: number[] = [];
    const documents = o.packing ? documentJoiner(2 * (to - from)) : null;
    for (let i = from; i < to; i++) {
      const g = o.make(i);
      o.onRow?.(g);
      for (const [table, rows] of Object.entries(rowsOf(g))) for (const r of rows) (tables[table] ??= []).push(r);
      if (documents) {
        ecfKeys.push(g.document.ecf_key);
        documents.add(g.document.xml);
        documents.add(g.document.rfce_xml);
      }
    }
    const packed = documents ? o.packing!.pack(documents.done()) : null;
    // A rejection is awaited when the batch's turn comes; until then it must not count as unhandled.
    packed?.catch(() => {});
    return { from, to, tables, ecfKeys, documents: packed };
  };
  while (next < o.rows || ahead.length) {
    while (next < o.rows && ahead.length < depth) {
      const to = Math.min(next + o.batch, o.rows);
      ahead.push(makeBatch(next, to));
      next = to;
    }
    const b = ahead.shift()!;
    if (b.documents) {
      const stored = await b.documents;
      b.tables.ecf_documents = b.ecfKeys.map((key, i) => documentRow(key, stored[2 * i]!, stored[2 * i + 1] ?? null));
    }
    yield b;
  }
}

export interface RowSamples {
  readonly ids: string[];
  readonly encfs: string[];
  readonly buyerRncs: string[];
  /** Bytes of signed XML and RFCE made (stored or not). */
  documentBytes: number;
}

/** Up to `wanted` e-CF drawn evenly from `rows` for the queries, and the document bytes made: onRow's job. */
export function rowSampler(rows: number, wanted = 5_000): { readonly samples: RowSamples; readonly onRow: (g: Generated) => void } {
  const every = Math.max(1, Math.floor(rows / wanted));
  const samples: RowSamples = { ids: [], encfs: [], buyerRncs: [], documentBytes: 0 };
  const onRow = (g: Generated) => {
    if (samples.ids.length < wanted && Math.random() < 1 / every) {
      samples.ids.push(g.ecf.id as string);
      samples.encfs.push(g.ecf.encf as string);
      if (g.ecf.buyer_rnc) samples.buyerRncs.push(g.ecf.buyer_rnc as string);
    }
    samples.documentBytes += g.document.xml.length + (g.document.rfce_xml?.length ?? 0);
  };
  return { samples, onRow };
}

import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { Type, type Static } from '@sinclair/typebox';
import { sql, type Kysely } from 'kysely';
import { parseJsonColumn } from '../../json-column.js';
import type { Engine } from '../../engine-types.js';
import { inTransaction } from '../database.js';
import type { Database } from '../schema.js';
import { sha256Of, type FrameEncoder } from './codec.js';
import { documentStore, type DocumentStore, type KeptDigest } from './document-store.js';
import { DocumentDamaged, DocumentRefValue, type DocumentRef } from './damaged.js';
import { keptContextEncoder } from './frame-encoder.js';
import { DOCUMENT_TABLES, countRows, firstKey, keptDigest, readBatch, type DocumentColumn, type DocumentRow, type DocumentTable } from './document-tables.js';
import { parseBlob } from './layout.js';

/**
 * The in-place conversion of documents stored raw by a release before
 * migration 0017 (docs/store.md, "Converting an existing store"). Each table
 * is walked in batches by its row key; the raw documents of a batch are
 * checked against the digest the row already keeps, compressed outside any
 * transaction, then written in one short transaction that replaces a blob
 * only while it still holds those same raw bytes (a write made meanwhile is
 * never overwritten) and moves the table's cursor in `platform_state`. A kill
 * loses at most the batch in flight; the next run starts after the cursor,
 * and a blob is converted only when it is raw, whatever the cursor says.
 */

/**
 * Rows per batch: a transaction of a few milliseconds, so requests barely wait behind it. A batch's
 * raw and compressed documents live across the event loop's turns until it commits: at 200 rows
 * V8 grew its young generation to hold them (peak RSS 233 MB converting 20,000 e-CF, against 175 MB
 * at 50 rows, in about the same time; docs/performance.md).
 */
export const CONVERT_BATCH_ROWS = 50;

/**
 * Rows compressed between two looks at the event loop: the codec compresses on
 * the calling thread (about 0.2 ms a document), so under `ecf serve` a request
 * waits behind a few milliseconds of it, never a whole batch.
 */
const COMPRESSED_BETWEEN_YIELDS = 20;

const STATE_PREFIX = 'store.compress.';

/** `platform_state.value` of `store.compress.<table>`: one table's cursor. */
const TableStateValue = Type.Object({
  /** The last row key done (its batch committed). */
  after: Type.Union([Type.Number(), Type.String()]),
  done: Type.Boolean(),
  converted: Type.Integer(),
  damaged: Type.Integer(),
  /** The first damaged documents found (a run resumed after a kill still reports them). */
  damagedRefs: Type.Array(DocumentRefValue),
});
type TableState = Static<typeof TableStateValue>;

const KEPT_REFS = 100;

export interface ConvertProgress {
  readonly table: string;
  /** Rows walked (in earlier runs too) out of the rows of the table. */
  readonly done: number;
  readonly total: number;
  /** Documents compressed by this run. */
  readonly converted: number;
  readonly damaged: number;
  /** Documents per second in this run, over the table. */
  readonly rate: number;
  readonly finished: boolean;
}

export interface ConvertOptions {
  readonly batchRows?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: ConvertProgress) => void;
  /** Each damaged document, once, when it is found. */
  readonly onDamaged?: (damaged: DocumentDamaged) => void;
}

export interface ConvertReport {
  /** Per table: rows walked by this run, documents compressed and found damaged by every run so far. */
  readonly tables: readonly { readonly table: string; readonly rows: number; readonly converted: number; readonly damaged: number }[];
  /** Documents compressed by this run. */
  readonly converted: number;
  /** Documents left raw because their bytes do not match the digest kept (all runs). */
  readonly damaged: readonly DocumentRef[];
  readonly damagedCount: number;
  /** False when stopped by the signal before the end. */
  readonly finished: boolean;
}

/** True while some table has not been walked to its end (the conversion has work left). */
export async function conversionPending(db: Kysely<Database>): Promise<boolean> {
  const states = await readStates(db);
  return DOCUMENT_TABLES.some((t) => !states.get(t.table)?.done);
}

export async function convertDocuments(engine: Engine, options: ConvertOptions = {}): Promise<ConvertReport> {
  const db = engine.db;
  // One zstd context kept for the walk (frame-encoder.ts): a context made, the dictionary loaded and
  // a 64 KB output buffer given for each document were most of the conversion's CPU and, freed one
  // by one, held a converting process's memory well past what the walk itself needs.
  const encoder = keptContextEncoder();
  try {
    return await convertWith(engine, encoder.encode, options);
  } finally {
    encoder.close();
  }
}

async function convertWith(engine: Engine, encode: FrameEncoder, options: ConvertOptions): Promise<ConvertReport> {
  const db = engine.db;
  // Always compressing, whatever engine.documents does with new writes (compressDocuments: false).
  const documents = documentStore({ compress: true, encoder: encode });
  const states = await readStates(db);
  const tables: ConvertReport['tables'][number][] = [];
  const damaged: DocumentRef[] = [];
  let damagedCount = 0;
  let finished = true;
  let converted = 0;
  for (const spec of DOCUMENT_TABLES) {
    const state = states.get(spec.table) ?? { after: firstKey(db, spec), done: false, converted: 0, damaged: 0, damagedRefs: [] };
    const result = state.done ? { rows: 0, converted: 0, finished: true } : await convertTable(engine, documents, spec, state, options);
    tables.push({ table: spec.table, rows: result.rows, converted: state.converted, damaged: state.damaged });
    damaged.push(...state.damagedRefs);
    damagedCount += state.damaged;
    converted += result.converted;
    if (!result.finished) {
      finished = false;
      break;
    }
  }
  return { tables, converted, damaged, damagedCount, finished };
}

async function convertTable(engine: Engine, documents: DocumentStore, spec: DocumentTable, state: TableState, options: ConvertOptions) {
  const db = engine.db;
  const limit = options.batchRows ?? CONVERT_BATCH_ROWS;
  const { total, before } = await countRows(db, spec, state.after);
  let done = before;
  let converted = 0;
  const started = performance.now();
  const progress = (finished: boolean) =>
    options.onProgress?.({ table: spec.table, done, total: Math.max(total, done), converted, damaged: state.damaged, rate: converted / Math.max((performance.now() - started) / 1000, 1e-3), finished });
  progress(false);
  for (;;) {
    if (options.signal?.aborted) return { rows: done, converted, finished: false };
    const rows = await readBatch(db, spec, { after: state.after, limit });
    const last = rows.at(-1);
    const found: DocumentDamaged[] = [];
    const work: Conversion[][] = [];
    for (const [i, row] of rows.entries()) {
      if (i > 0 && i % COMPRESSED_BETWEEN_YIELDS === 0) await yieldToOthers();
      work.push(await prepareRow(documents, spec, row, found));
    }
    const next: TableState = {
      ...state,
      after: last ? last.k : state.after,
      done: rows.length < limit,
      damaged: state.damaged + found.length,
      damagedRefs: [...state.damagedRefs, ...found.map((d) => d.document)].slice(0, KEPT_REFS),
    };
    const written = await inTransaction(db, async (tx) => {
      let n = 0;
      for (const w of work.flat()) n += await writeOne(tx, documents, spec, w);
      next.converted = state.converted + n;
      await writeState(tx, spec.table, next, engine.clock.now());
      return n;
    });
    Object.assign(state, next);
    for (const d of found) options.onDamaged?.(d);
    converted += written;
    done += rows.length;
    progress(state.done);
    if (state.done) return { rows: done, converted, finished: true };
    // Between batches the event loop serves whatever else waits (the API under `ecf serve`).
    await yieldToOthers();
  }
}

interface Conversion {
  /** The row's primary key (ecf_documents: the e-CF's store key, which its hex copy's row has too). */
  readonly key: number | string;
  readonly column: string;
  readonly rawDigest: string | null;
  readonly hexCopy: DocumentColumn['hexCopy'];
  readonly raw: Buffer;
  readonly prepared: Awaited<ReturnType<DocumentStore['prepare']>>;
}

/** The raw documents of a row that match their kept digest, compressed (off the event loop); the others are damaged. */
async function prepareRow(documents: DocumentStore, spec: DocumentTable, row: DocumentRow, damaged: DocumentDamaged[]): Promise<Conversion[]> {
  const out: Conversion[] = [];
  for (const [i, column] of spec.columns.entries()) {
    const d = row.documents[i]!;
    if (!d.blob || parseBlob(d.blob).kind !== 'raw') continue;
    const ref: DocumentRef = { table: spec.table, id: row.id, column: column.column, encf: row.encf };
    // The raw bytes against the digest the row keeps: a mismatch is left as it is, never given a fresh digest.
    if (!matchesKept(d.blob, keptDigest(d))) {
      damaged.push(new DocumentDamaged(ref, 'its SHA-256 is not the one kept when it was stored'));
      continue;
    }
    out.push({ key: row.key, column: column.column, rawDigest: column.rawDigest, hexCopy: column.hexCopy, raw: d.blob, prepared: await documents.prepare(d.blob) });
  }
  return out;
}

/** Replaces the blob only while it still holds the raw bytes read; 1 when it did. */
async function writeOne(tx: Kysely<Database>, documents: DocumentStore, spec: DocumentTable, w: Conversion): Promise<number> {
  const stored = await documents.store(tx, w.prepared);
  const digest = w.rawDigest ? sql`, ${sql.ref(w.rawDigest)} = ${stored.sha256}` : sql``;
  const result = await sql`update ${sql.table(spec.table)} set ${sql.ref(w.column)} = ${stored.blob}${digest} where ${sql.ref(spec.key)} = ${w.key} and ${sql.ref(w.column)} = ${w.raw}`.execute(tx);
  if (Number(result.numAffectedRows ?? 0n) === 0) return 0;
  if (w.rawDigest && w.hexCopy && stored.sha256) {
    const { table, key, column } = w.hexCopy;
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = '' where ${sql.ref(key)} = ${w.key} and ${sql.ref(column)} = ${stored.sha256.toString('hex')}`.execute(tx);
  }
  return 1;
}

async function readStates(db: Kysely<Database>): Promise<Map<string, TableState>> {
  const rows = await db.selectFrom('platform_state').select(['key', 'value']).where('key', 'like', `${STATE_PREFIX}%`).execute();
  return new Map(rows.map((r) => [r.key.slice(STATE_PREFIX.length), parseJsonColumn(TableStateValue, r.value, `platform_state.value of ${r.key}`)]));
}

async function writeState(tx: Kysely<Database>, table: string, state: TableState, now: Date): Promise<void> {
  const value = JSON.stringify(state);
  await tx
    .insertInto('platform_state')
    .values({ key: STATE_PREFIX + table, value, updated_at: now.toISOString() })
    .onConflict((c) => c.column('key').doUpdateSet({ value, updated_at: now.toISOString() }))
    .execute();
}

/** True when no digest is kept (nothing to check against) or the bytes match it. */
function matchesKept(bytes: Buffer, digest: KeptDigest): boolean {
  if (digest === null || digest === undefined) return true;
  const sha = sha256Of(bytes);
  return typeof digest === 'string' ? sha.toString('hex') === digest.toLowerCase() : sha.equals(digest);
}

export interface RunningConversion {
  /** Stops after the batch in flight commits (or at once, between batches). */
  stop(): Promise<void>;
  readonly finished: Promise<ConvertReport | null>;
}

export interface BackgroundConversionOptions {
  readonly onProgress?: (progress: ConvertProgress) => void;
  readonly onDamaged?: (damaged: DocumentDamaged) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * The conversion as `ecf serve` runs it after an upgrade: only when a table
 * has not been walked to its end; a batch at a time between the requests.
 * Resolves `finished` with null when there was nothing to do or it was stopped.
 */
export async function startBackgroundConversion(engine: Engine, options: BackgroundConversionOptions = {}): Promise<RunningConversion> {
  if (!(await conversionPending(engine.db))) return { stop: async () => undefined, finished: Promise.resolve(null) };
  const stop = new AbortController();
  const finished = convertDocuments(engine, { signal: stop.signal, ...(options.onProgress && { onProgress: options.onProgress }), ...(options.onDamaged && { onDamaged: options.onDamaged }) })
    .then((report) => (report.finished ? report : null))
    .catch((error: unknown) => {
      options.onError?.(error);
      return null;
    });
  return {
    stop: async () => {
      stop.abort();
      await finished;
    },
    finished,
  };
}

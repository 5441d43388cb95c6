import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { DATABASE_FILE } from '../data-dir.js';
import { EngineError } from '../errors.js';
import { openDatabase, type Db } from '../store/database.js';
import { documentStore } from '../store/documents/index.js';
import type { RestartSignal } from '../store/checkpointer.js';
import { writeExport, type ExportPlan, type ExportProgress, type ExportReport } from './export-walk.js';

/**
 * The export's thread (export-period.ts starts it): its own connection to
 * the store, read only, and the walk. It answers with messages: progress,
 * then the report or the error.
 */

export interface ExportThreadData {
  readonly plan: ExportPlan;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** The serving engine's checkpointer signal: this connection then never checkpoints itself. */
  readonly restartSignal?: RestartSignal;
}

export type ExportThreadMessage =
  | { readonly progress: ExportProgress }
  | { readonly report: ExportReport }
  | { readonly error: { readonly kind?: EngineError['kind']; readonly code?: string; readonly message: string; readonly stack?: string } };

const data = workerData as ExportThreadData;
const post = (m: ExportThreadMessage) => parentPort!.postMessage(m);

async function open(): Promise<Db> {
  if (data.databaseUrl) {
    const { openPostgres } = await import('../store/postgres.js');
    return openPostgres(data.databaseUrl, { maxConnections: 1 });
  }
  return openDatabase(join(data.dataDir, DATABASE_FILE), { autoCheckpoint: data.restartSignal === undefined, ...(data.restartSignal && { restartSignal: data.restartSignal }) });
}

const db = await open();
try {
  post({ report: await writeExport({ db, documents: documentStore() }, data.plan, (progress) => post({ progress })) });
} catch (e) {
  const error = e as Error;
  post({ error: e instanceof EngineError ? { kind: e.kind, code: e.code, message: e.message } : { message: error.message ?? String(e), ...(error.stack && { stack: error.stack }) } });
} finally {
  await db.destroy();
}

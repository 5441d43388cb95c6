import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { DATABASE_FILE } from '../data-dir.js';
import { EngineError } from '../errors.js';
import { openDatabase, type Db } from '../store/database.js';
import { documentStore } from '../store/documents/index.js';
import { writeExport } from './export-walk.js';
import type { ThreadMessage, ThreadTask } from './in-thread.js';
import { checkExport } from './verify-export.js';

/**
 * The thread of an export task (in-thread.ts starts it). The period's walk
 * opens its own connection to the store, read only; the verification needs
 * only the file. It answers with messages: progress, then the result or
 * the error.
 */

const post = (m: ThreadMessage) => parentPort!.postMessage(m);
const progress = (p: unknown) => post({ progress: p });

async function open(data: Extract<ThreadTask, { task: 'export' }>): Promise<Db> {
  if (data.databaseUrl) {
    const { openPostgres } = await import('../store/postgres.js');
    return openPostgres(data.databaseUrl, { maxConnections: 1 });
  }
  return openDatabase(join(data.dataDir, DATABASE_FILE), { autoCheckpoint: data.restartSignal === undefined, ...(data.restartSignal && { restartSignal: data.restartSignal }) });
}

async function run(data: ThreadTask): Promise<unknown> {
  if (data.task === 'verify') return checkExport(data.file, { signatures: data.signatures, onProgress: (checked, of) => progress({ checked, of }) });
  const db = await open(data);
  try {
    return await writeExport({ db, documents: documentStore() }, data.plan, progress);
  } finally {
    await db.destroy();
  }
}

try {
  post({ result: await run(workerData as ThreadTask) });
} catch (e) {
  const error = e as Error;
  post({ error: e instanceof EngineError ? { kind: e.kind, code: e.code, message: e.message } : { message: error.message ?? String(e), ...(error.stack && { stack: error.stack }) } });
}

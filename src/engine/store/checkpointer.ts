import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs
 * inside the commit that crosses the threshold, so one request in a few
 * dozen paid for copying the WAL into the database and the fsync after it
 * (measured: half the commit time of an e-CF). A long-running server turns
 * automatic checkpoints off on its connection and lets this thread, with a
 * connection of its own, run PASSIVE checkpoints: they never block writers
 * or readers. Under steady writes a PASSIVE checkpoint never catches the
 * last frame, and SQLite starts the WAL over only once every frame is
 * copied, so the file would grow without end: past a size the thread asks
 * for a RESTART, which waits for the writer lock but, right after a passive
 * pass, has only the last few frames left to copy.
 *
 * Plain JavaScript evaluated in the worker, so it runs the same from the
 * TypeScript sources (tests) and from the build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log >= workerData.restartFrames) {
      Atomics.store(workerData.restartPending, 0, 1);
      try {
        db.pragma('wal_checkpoint(RESTART)');
      } finally {
        Atomics.store(workerData.restartPending, 0, 0);
      }
    }
  } catch (e) {
    parentPort.postMessage({ error: String((e && e.message) || e) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage({ stopped: true });
});
`;

export interface Checkpointer {
  /** One last checkpoint, then the thread ends. */
  stop(): Promise<void>;
}

/**
 * Frames (4 KB pages) in the WAL past which the log is restarted: 64 MB.
 * A RESTART holds the writer lock for its fsync (5 to 60 ms measured), so it
 * should come seldom: at full issuing speed every few seconds, and never in
 * ordinary use, where the WAL starts over by itself in the first idle moment.
 */
const RESTART_FRAMES = 16384;

/**
 * Set by the checkpoint thread while its RESTART waits for a moment with no
 * writer: under steady load the server's group commits follow each other
 * with hardly a gap, and the RESTART waited seconds while the WAL grew. The
 * server's writer gives it that moment before its next transaction.
 */
export type RestartSignal = Int32Array;

export const newRestartSignal = (): RestartSignal => new Int32Array(new SharedArrayBuffer(4));

export const restartPending = (signal: RestartSignal): boolean => Atomics.load(signal, 0) === 1;

export function startCheckpointer(file: string, restartSignal: RestartSignal, intervalMs = 250, onError?: (message: string) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs, restartFrames: RESTART_FRAMES, restartPending: restartSignal },
  });
  worker.unref();
  const stopped = new Promise<void>((resolve) => {
    worker.on('message', (m: { error?: string; stopped?: boolean }) => {
      if (m.error) onError?.(m.error);
      if (m.stopped) resolve();
    });
    worker.on('exit', () => resolve());
    worker.on('error', (e) => {
      onError?.(String(e));
      resolve();
    });
  });
  return {
    async stop() {
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

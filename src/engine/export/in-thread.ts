import { EngineError } from '../errors.js';
import { siblingModule, startModuleWorker } from '../module-worker.js';
import type { RestartSignal } from '../store/checkpointer.js';
import type { ExportPlan } from './export-walk.js';

/**
 * Runs an export task (the period's walk, or the verification of a file) in
 * a worker thread of its own, for two reasons: each is CPU-bound for
 * minutes at a million e-CF and would hold `ecf serve`'s event loop, and a
 * thread's young generation can be bounded, where V8 grows a process's to
 * 128 MB under the walk's allocation rate (most of the peak RSS before;
 * docs/record.md has the figures). Its progress comes back as messages; an
 * EngineError thrown there is thrown here as the same EngineError.
 */

/** What the thread (export-thread.ts) is asked to do, and what it answers. */
export type ThreadTask =
  | {
      readonly task: 'export';
      readonly plan: ExportPlan;
      readonly dataDir: string;
      readonly databaseUrl?: string;
      /** The serving engine's checkpointer signal: this connection then never checkpoints itself. */
      readonly restartSignal?: RestartSignal;
    }
  | { readonly task: 'verify'; readonly file: string; readonly signatures: boolean };

export type ThreadMessage =
  | { readonly progress: unknown }
  | { readonly result: unknown }
  | { readonly error: { readonly kind?: EngineError['kind']; readonly code?: string; readonly message: string; readonly stack?: string } };

/** The thread's young generation, in MB: 16 keeps the scavenger's pauses short and its memory small (docs/record.md). */
const YOUNG_GENERATION_MB = 16;

export function runInThread<R, P>(task: ThreadTask, onProgress?: (p: P) => void): Promise<R> {
  const worker = startModuleWorker(siblingModule(import.meta.url, 'export-thread'), { workerData: task, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  return new Promise<R>((done, fail) => {
    let answer: ThreadMessage | undefined;
    worker.on('message', (m: ThreadMessage) => {
      if ('progress' in m) onProgress?.(m.progress as P);
      else answer = m;
    });
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (answer && 'result' in answer) return done(answer.result as R);
      if (answer && 'error' in answer) {
        const e = answer.error;
        if (e.kind && e.code) return fail(new EngineError(e.kind, e.code, e.message));
        return fail(Object.assign(new Error(e.message), e.stack && { stack: e.stack }));
      }
      fail(new Error(`The export's thread ended (code ${code}) without an answer.`));
    });
  });
}

import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread on a module of ours. Built, the module is a .js file and
 * Node loads it as it is; from the TypeScript sources (tests, development)
 * the thread first loads tsx, which Node's worker does not inherit from the
 * thread that starts it.
 */
export function startModuleWorker(module: URL, options: WorkerOptions = {}): Worker {
  if (!fileURLToPath(module).endsWith('.ts')) return new Worker(module, options);
  const url = JSON.stringify(module.href);
  return new Worker(`import('tsx/esm/api').then((api) => api.tsImport(${url}, ${url}))`, { ...options, eval: true });
}

/** The sibling module `name` (without extension) of the module at `here`, with the extension `here` has: .ts from the sources, .js built. */
export const siblingModule = (here: string, name: string): URL => new URL(`./${name}${here.slice(here.lastIndexOf('.'))}`, here);

// The sandbox in a process of its own, as the authority is on a machine of its own: its checks
// then use the other core instead of the engine's. Prints its URL on the first line of stdout.
//
//   node --import tsx bench/sandbox-child.ts '{"latency":{"all":{"delayMs":300}}}'
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../src/sandbox/index.js';
import type { SandboxLoadInput } from '../src/sandbox/load.js';

export interface SandboxChild {
  readonly url: string;
  readonly process: ChildProcess;
  close(): Promise<void>;
}

/** Starts this file as a child process with the given load; resolves with its URL. */
export async function startSandboxChild(load: SandboxLoadInput | undefined): Promise<SandboxChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), JSON.stringify(load ?? {})], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox process exited with ${code}`)));
  });
  return {
    url,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load = JSON.parse(process.argv[2] ?? '{}') as SandboxLoadInput;
  const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, load });
  process.stdout.write(`${sandbox.url}\n`);
  process.once('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
}

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/ecf.js', import.meta.url));

/**
 * `ecf serve` answers for 5 s after SIGTERM by default (issue 32's drain), which every test that
 * stops a server would wait out. Tests start it without the drain unless they pass
 * `--stop-drain` themselves (the tests of the drain).
 */
export const NO_DRAIN = ['--stop-drain', '0'] as const;

/** `args` with `--stop-drain 0` added unless they set `--stop-drain` themselves. */
export function withoutDrain(args: readonly string[]): string[] {
  return args.includes('--stop-drain') ? [...args] : [...args, ...NO_DRAIN];
}

/**
 * Starts the built `ecf serve` (`npm test` builds dist first) on a free port
 * over `dataDir`, without the stop drain unless `args` set one, and resolves
 * with its base URL once it listens. Tests and the benchmarks share it.
 */
export async function startServe(
  dataDir: string,
  options: { env?: NodeJS.ProcessEnv; logLevel?: string; args?: readonly string[] } = {},
): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const args = [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', options.logLevel ?? 'warn', ...withoutDrain(options.args ?? [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env && { env: options.env }) });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving (http:\/\/[^\s]+)\/api\/v1/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`ecf serve exited with ${code}: ${out}`)));
  });
  return { child, base, output: () => out };
}

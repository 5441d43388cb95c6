import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withoutDrain } from '../../serve-process.js';

const bin = fileURLToPath(new URL('../../../bin/ecf.js', import.meta.url));

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly base: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** The stdout lines that are JSON log lines, parsed. */
  logLines(): Record<string, unknown>[];
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
}

/**
 * Starts the built `ecf serve` as test/serve-process.ts does (without the
 * stop drain unless `args` set `--stop-drain`), keeping all it
 * writes: these tests read its log lines and search them for secrets.
 */
export async function startServeCapturing(dataDir: string, args: readonly string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-format', 'json', ...withoutDrain(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = /serving (https?:\/\/[^\s]+)\/api\/v1/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', look);
    void exited.then((code) => reject(new Error(`ecf serve exited with ${code}: ${out}`)));
  });
  const logLines = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, base, output: () => out, stdout: () => stdout, logLines, exited };
}

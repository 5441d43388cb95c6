import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/ecf.js', import.meta.url));

/**
 * Starts the built `ecf serve` (`npm test` builds dist first) on a free port
 * over `dataDir` and resolves with its base URL once it listens. Tests and
 * the processes benchmark share it.
 */
export async function startServe(
  dataDir: string,
  options: { env?: NodeJS.ProcessEnv; logLevel?: string; args?: readonly string[] } = {},
): Promise<{ child: ChildProcess; base: string }> {
  const args = [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', options.logLevel ?? 'warn', ...(options.args ?? [])];
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
  return { child, base };
}
